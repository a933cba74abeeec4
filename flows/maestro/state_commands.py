"""Maestro's device-state commands whose values name files or lists, read here (the others are
read by their actions' forms in :mod:`amc.flows.maestro.commands`):

- ``addMedia``: a list of files (or ``files:`` in a mapping), each resolved beside the flow when
  relative and checked to exist now, as Maestro checks when it reads the flow
  (``YamlFluentCommand.kt`` ``addMediaCommand``: "Media File Not Found"; corpus e013/e014), and to lie
  in the flow's project (the folders a ``runScript`` file must lie in: :mod:`amc.flows.maestro.files`).
- ``assertScreenshot``: its ``path`` resolved beside the flow, ``.png`` added when it has no picture
  extension (``Orchestra.kt`` ``normalizeScreenshotPath``), inside the flow's project;
  ``thresholdPercentage`` (95 by default, ``YamlAssertScreenshot.kt``) and ``cropOn``.
- ``travel``: ``points`` (each ``"lat,lon"``) and ``speed`` in metres per second.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..roots import FileOutsideRoot, file_in_roots
from .files import in_roots
from .selectors import selector
from .values import MaestroReader

__all__ = ["FILE_COMMANDS"]

_PICTURES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tiff", ".wbmp", ".heic", ".heif")


def _common(r: MaestroReader, entries: dict[str, Node]) -> tuple[bool, str | None]:
    optional = r.boolean(entries["optional"], "optional") if "optional" in entries else False
    label = r.text(entries["label"], "label") if "label" in entries else None
    return optional, label


def _in_project(r: MaestroReader, node: Node, command: str, written: str, base: str) -> str:
    try:  # the caller's root first (amc mcp --flow-root): refused before the file is looked at
        path = file_in_roots(written, base=base, roots=r.file_roots, what=command)
    except FileOutsideRoot as outside:
        raise r.fail(node, outside.message, hint=outside.hint) from None
    if not in_roots(path, r.script_roots):
        raise r.fail(
            node,
            f"{command} {written!r} lies outside the flow's project ({', '.join(r.script_roots)})",
            hint="keep the files a flow uses in its folder, or in the project holding it",
        )
    return str(path)


def _add_media(
    r: MaestroReader, command: str, node: Node, base: str
) -> tuple[dict[str, Any], bool, str | None]:
    entries: dict[str, Node] = r.mapping(node, command) if isinstance(node, MappingNode) else {}
    files = entries.get("files", node)
    if not isinstance(files, SequenceNode) or not files.value:
        raise r.fail(node, "Invalid addMedia command: media files cannot be empty")
    paths = []
    for item in files.value:
        written = r.text(item, "addMedia's file")
        path = _in_project(r, item, command, written, base)
        if not Path(path).is_file():
            raise r.fail(
                item, f"Media File Not Found: {written!r}", hint="media files are resolved beside the flow"
            )
        paths.append(path)
    return {"files": paths}, *_common(r, entries)


def _assert_screenshot(
    r: MaestroReader, command: str, node: Node, base: str
) -> tuple[dict[str, Any], bool, str | None]:
    entries: dict[str, Node] = {"path": node} if isinstance(node, ScalarNode) else r.mapping(node, command)
    if "path" not in entries:
        raise r.fail(node, "assertScreenshot needs a `path`")
    written = r.text(entries["path"], "assertScreenshot's path")
    if not written.lower().endswith(_PICTURES):
        written += ".png"
    args: dict[str, Any] = {"path": _in_project(r, entries["path"], command, written, base)}
    if "thresholdPercentage" in entries:
        args["threshold"] = r.number(entries["thresholdPercentage"], "thresholdPercentage", 0, 100)
    if "cropOn" in entries:
        args["crop_on"] = selector(r, entries["cropOn"], "assertScreenshot's cropOn")[0]
    return args, *_common(r, entries)


def _travel(r: MaestroReader, command: str, node: Node, base: str) -> tuple[dict[str, Any], bool, str | None]:
    entries = r.mapping(node, command)
    points = entries.get("points")
    if not isinstance(points, SequenceNode):
        raise r.fail(node, "travel needs `points`: a list of 'latitude,longitude'")
    args: dict[str, Any] = {"points": [r.text(p, "travel's point") for p in points.value]}
    if "speed" in entries:
        args["speed"] = r.number(entries["speed"], "travel's speed", 0, 1e9, open_low=True)
    return args, *_common(r, entries)


FILE_COMMANDS: dict[str, tuple[str, Callable[..., tuple[dict[str, Any], bool, str | None]]]] = {
    "addMedia": ("add_media", _add_media),
    "assertScreenshot": ("assert_screenshot", _assert_screenshot),
    "travel": ("travel", _travel),
}
