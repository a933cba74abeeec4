"""``amc inspect``: a device's current screen, printed, or served as a live inspector page.

``amc inspect [--device SPEC] [--app APP_ID] [--format tree|json|xml]`` prints the screen (after
launching ``APP_ID`` when given). ``amc inspect --serve [--port N] [--device SPEC] [--app ID]
[--record FLOW.yaml [--record-format amc|maestro] [--overwrite]]`` serves :mod:`amc.inspector` on
127.0.0.1 until Ctrl-C; with ``--record`` every action taken from the page is appended to ``FLOW.yaml``, which
begins with a ``launch_app`` of ``--app`` (else of the app in front). Every argument is checked
before a device is contacted; the record file is claimed after the first look.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from ..actions.settle import SettleConfig
from ..core.apps import is_home_screen
from ..core.errors import ConfigError
from ..core.models import Scene, UIElement
from ..core.selectors import short_type
from ..drivers.base import Driver
from ..flows.recorded import FORMATS
from ..inspector import FlowDraft, InspectorServer, InspectorSession, check_path, claim_path
from ..runtime.observer import Observer
from .common import EXIT_OK, Streams, add_device_options, choose_device, connect_device

__all__ = ["run_inspect", "scene_tree", "setup_inspect"]

# Android packages and iOS bundle ids: letters, digits, '_', '.', '-'.
_APP_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,254}")


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535; 0 picks a free one)")
    return int(text)


def setup_inspect(parser: argparse.ArgumentParser) -> None:
    add_device_options(parser)
    parser.add_argument("--app", metavar="APP_ID", help="launch this app (package / bundle id) first")
    parser.add_argument(
        "--format",
        choices=("tree", "json", "xml"),
        help="tree: indented outline; json: the Scene as JSON; xml: the raw page source, when the "
        "backend keeps one (default: tree)",
    )
    serve = parser.add_argument_group("live inspector")
    serve.add_argument(
        "--serve", action="store_true", help="serve a web page on 127.0.0.1 to look at and drive the device"
    )
    serve.add_argument(
        "--port", type=_port, metavar="N", help="with --serve: the port (default: 0, any free port)"
    )
    serve.add_argument(
        "--record",
        metavar="FLOW.yaml",
        help="with --serve: write every action taken from the page into this new flow file",
    )
    serve.add_argument(
        "--record-format",
        choices=FORMATS,
        default="amc",
        help="with --record: the flow's dialect, amc (the project's flows, the default) or maestro",
    )
    serve.add_argument(
        "--overwrite", action="store_true", help="with --record: replace the file if it already exists"
    )


def _describe(el: UIElement) -> str:
    parts = [short_type(el.type)]
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


def _check(args: argparse.Namespace) -> None:
    """Refuse contradictory or malformed arguments before any device is contacted."""
    if args.app is not None and not _APP_ID.fullmatch(args.app):
        raise ConfigError(
            f"--app {args.app!r} is not an app id", hint="a package or bundle id, e.g. com.android.settings"
        )
    if args.serve and args.format is not None:
        raise ConfigError(
            "--format prints a screen; --serve serves the page instead", hint="pass one of them"
        )
    for option, given in (("--port", args.port is not None), ("--record", args.record is not None)):
        if given and not args.serve:
            raise ConfigError(f"{option} needs --serve", hint=f"amc inspect --serve {option} …")
    if args.overwrite and args.record is None:
        raise ConfigError("--overwrite needs --record FLOW.yaml")
    if args.record is not None:
        check_path(args.record, overwrite=args.overwrite)


def run_inspect(args: argparse.Namespace, io: Streams) -> int:
    _check(args)
    choice = choose_device(args.device)
    spec = choice.spec or f"sim:{args.platform or 'android'}"
    io.err.write(f"device: {spec} ({choice.reason})\n")
    driver = connect_device(spec)
    try:
        if args.app is not None:
            driver.launch_app(args.app)
        # What is shown is the settled screen, by the rule flows wait with (actions/settle.py): a
        # launched app slides in, and a look mid-way shows it half on screen.
        settled = Observer(driver).settled(SettleConfig.from_env()).observation.scene
        if args.serve:
            return _serve(args, io, driver, spec)
        scene = settled
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


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """While serving, SIGTERM stops the inspector as Ctrl-C does (the recording is already saved)."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve(args: argparse.Namespace, io: Streams, driver: Driver, spec: str) -> int:
    session = InspectorSession(driver)
    first = session.look()
    if args.record is not None:
        app = args.app or first.scene.foreground_app or driver.current_app()
        if not app or is_home_screen(app):
            raise ConfigError(
                "--record starts the flow with a launch_app of the app in front, but the home screen is",
                hint="pass --app APP_ID",
            )
        path = claim_path(args.record, overwrite=args.overwrite)
        session.draft = FlowDraft(
            app,
            platform=driver.platform,
            name=path.stem,
            path=path,
            device=f"{spec} ({driver.device_id})",
            format=args.record_format,
        )
        session.draft.save()
    server = InspectorServer(session, port=args.port or 0)
    url = server.start()
    io.out.write(f"inspector: {url}\n")
    io.out.flush()
    io.err.write("serving on 127.0.0.1 only; press Ctrl-C to stop\n")
    try:
        with _stop_on_sigterm():
            server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    if session.draft is not None:
        steps = len(session.draft.steps)
        io.out.write(
            f"recorded {steps} step{'' if steps == 1 else 's'} to {session.draft.path}; "
            + (
                f"replay it: amc run {session.draft.path} --device {spec}\n"
                if session.draft.format == "amc"
                else f"replay it: maestro test {session.draft.path}\n"
            )
        )
    return EXIT_OK
