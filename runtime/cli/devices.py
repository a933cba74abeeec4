"""``amc devices`` (what discovery finds) and ``amc inspect`` (the current screen of a device)."""

from __future__ import annotations

import argparse
import json

from ...core.errors import ConfigError
from ...core.models import Scene, UIElement
from ...drivers import connect as connect_module
from .common import EXIT_OK, Streams, add_device_options, choose_device, connect_device

__all__ = ["run_devices", "run_inspect", "scene_tree", "setup_devices", "setup_inspect"]

_IOS_PREFIX = "XCUIElementType"
_SIMULATED = ("sim:android", "sim:ios")


def setup_devices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")


def run_devices(args: argparse.Namespace, io: Streams) -> int:
    found = connect_module.discover()
    if args.json:
        io.out.write(json.dumps([d.to_dict() for d in found], indent=2) + "\n")
        return EXIT_OK
    if not found:
        io.out.write(
            "no attached device found (adb and WebDriverAgent looked); "
            f"the simulated devices are always there: {', '.join(_SIMULATED)}\n"
        )
        return EXIT_OK
    rows = [("SPEC", "PLATFORM", "BACKEND", "STATE", "DESCRIPTION")]
    rows += [(d.spec, d.platform, d.backend, d.state, d.description) for d in found]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        io.out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + f"  {row[4]}\n")
    unusable = [d for d in found if not d.usable]
    for d in unusable:
        io.err.write(f"note: {d.spec} is {d.state}; run `amc doctor` for the fix\n")
    return EXIT_OK


def setup_inspect(parser: argparse.ArgumentParser) -> None:
    add_device_options(parser)
    parser.add_argument(
        "--format",
        choices=("tree", "json", "xml"),
        default="tree",
        help="tree: indented outline; json: the Scene as JSON; xml: the raw page source, when the "
        "backend keeps one (default: tree)",
    )


def _short(type_name: str) -> str:
    if type_name.startswith(_IOS_PREFIX):
        return type_name[len(_IOS_PREFIX) :]
    return type_name.rsplit(".", 1)[-1]


def _describe(el: UIElement) -> str:
    parts = [_short(el.type)]
    if el.text:
        parts.append(json.dumps(el.text, ensure_ascii=False))
    if el.label and el.label != el.text:
        parts.append(f"label={json.dumps(el.label, ensure_ascii=False)}")
    if el.identifier:
        parts.append(f"id={el.identifier}")
    if el.value and el.value not in (el.text, el.label):
        parts.append(f"value={json.dumps(el.value, ensure_ascii=False)}")
    b = el.bounds
    parts.append(f"[{b.left},{b.top}][{b.right},{b.bottom}]")
    flags = [
        name
        for name, on in (
            ("hidden", not el.visible),
            ("disabled", not el.enabled),
            ("clickable", el.clickable),
            ("checked", el.checked),
            ("focused", el.focused),
            ("password", el.password),
            ("scrollable", el.scrollable),
        )
        if on
    ]
    if flags:
        parts.append("(" + ", ".join(flags) + ")")
    return " ".join(parts)


def scene_tree(scene: Scene) -> str:
    """The Scene as an indented outline, one element per line."""
    lines = [
        f"{scene.platform} {scene.device_id}  app={scene.foreground_app or 'unknown'}"
        + (f"  activity={scene.activity}" if scene.activity else "")
        + f"  {scene.window_size[0]}x{scene.window_size[1]}  {len(scene)} elements  via {scene.backend}"
    ]
    stack: list[tuple[UIElement, int]] = [(scene.root, 0)]
    while stack:
        el, depth = stack.pop()
        lines.append("  " * depth + _describe(el))
        stack.extend((child, depth + 1) for child in reversed(el.children))
    return "\n".join(lines) + "\n"


def run_inspect(args: argparse.Namespace, io: Streams) -> int:
    choice = choose_device(args.device)
    spec = choice.spec or f"sim:{args.platform or 'android'}"
    io.err.write(f"device: {spec} ({choice.reason})\n")
    driver = connect_device(spec)
    try:
        scene = driver.observe()
    finally:
        driver.close()
    if args.format == "json":
        io.out.write(json.dumps(scene.to_dict(), indent=2, ensure_ascii=False) + "\n")
    elif args.format == "xml":
        if scene.source is None:
            raise ConfigError(
                f"the {scene.backend} backend keeps no raw page source for this screen",
                hint="use --format json or --format tree",
            )
        io.out.write(scene.source if scene.source.endswith("\n") else scene.source + "\n")
    else:
        io.out.write(scene_tree(scene))
    return EXIT_OK
