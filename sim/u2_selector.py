"""UiSelector matching on the simulated screen, as the uiautomator2 server's selector RPCs do it.

A selector arrives as the dict uiautomator2 builds (``mask``, ``text``, ``textContains``,
``resourceId``, ``className``, ``description…``, boolean flags, ``index``, ``instance``;
``childOrSibling`` parts are followed by :mod:`sim.u2_methods`). :func:`candidates` yields the
nodes a selector searches (every visible node of the app windows and a pulled-down shade, not the
status bar or the keyboard), :func:`selector_matches` tests one, :func:`obj_info` describes a match
as ``objInfo`` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .layout import ANDROID_IME
from .nodes import SimNode

__all__ = ["RpcError", "candidates", "obj_info", "selector_matches"]


class RpcError(Exception):
    """A JSON-RPC error answer (``code``, ``message``, ``data`` as the real server fills them)."""

    def __init__(self, code: int, message: str, data: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _full_match(pattern: str, value: str) -> bool:
    try:
        return re.fullmatch(pattern, value, re.DOTALL) is not None
    except re.error:
        return False


_TEXT_TESTS: dict[str, Callable[[str, str], bool]] = {
    "": lambda want, got: got == want,
    "Contains": lambda want, got: want in got,
    "Matches": _full_match,
    "StartsWith": lambda want, got: got.startswith(want),
}
_FLAG_FIELDS = {
    "checkable": "checkable",
    "checked": "checked",
    "clickable": "clickable",
    "scrollable": "scrollable",
    "enabled": "enabled",
    "focusable": "focusable",
    "focused": "focused",
    "selected": "selected",
}


def selector_matches(selector: Mapping[str, Any], node: SimNode, index: int) -> bool:
    for key, want in selector.items():
        if key in ("mask", "childOrSibling", "childOrSiblingSelector", "instance"):
            continue
        got: Any
        if key.startswith("text"):
            test, got = _TEXT_TESTS.get(key[4:]), node.text or ""
        elif key.startswith("description"):
            test, got = _TEXT_TESTS.get(key[11:]), node.label or ""
        elif key.startswith("className"):
            test, got = _TEXT_TESTS.get(key[9:]), node.type
        elif key.startswith("packageName"):
            test, got = _TEXT_TESTS.get(key[11:]), node.package or ""
        elif key.startswith("resourceId"):
            test, got = _TEXT_TESTS.get(key[10:]), node.ident or ""
        elif key in _FLAG_FIELDS:
            if bool(getattr(node, _FLAG_FIELDS[key])) != bool(want):
                return False
            continue
        elif key == "longClickable":
            if bool(want):
                return False
            continue
        elif key == "index":
            if index != want:
                return False
            continue
        else:
            raise RpcError(-32602, f"java.lang.IllegalArgumentException: unsupported selector field {key}")
        if test is None or not isinstance(want, str) or not test(want, got):
            return False
    return True


def candidates(tree: SimNode) -> Iterator[tuple[SimNode, int]]:
    """Nodes a UiSelector searches: every visible node of the app windows (not status bar or IME)."""
    for root in tree.children:
        if root.package == ANDROID_IME or (root.ident or "").endswith(":id/status_bar_container"):
            continue  # the keyboard and the status bar; the pulled-down shade is searched
        stack: list[tuple[SimNode, int]] = [(root, 0)]
        while stack:
            node, index = stack.pop()
            yield node, index
            stack.extend(reversed([(c, i) for i, c in enumerate(node.children) if c.visible]))


def _bounds(node: SimNode) -> dict[str, int]:
    b = node.bounds
    return {"left": b.left, "top": b.top, "right": b.right, "bottom": b.bottom}


def obj_info(node: SimNode) -> dict[str, Any]:
    return {
        "bounds": _bounds(node),
        "checkable": node.checkable,
        "checked": node.checked,
        "childCount": len(node.children),
        "className": node.type,
        "clickable": node.clickable,
        "contentDescription": node.label,
        "enabled": node.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "longClickable": False,
        "packageName": node.package,
        "resourceName": node.ident,
        "scrollable": node.scrollable,
        "selected": node.selected,
        "text": node.text,
        "visibleBounds": _bounds(node),
    }
