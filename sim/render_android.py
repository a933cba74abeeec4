"""Render the simulated device's Android node tree as uiautomator2's ``dumpWindowHierarchy`` XML.

The output follows the uiautomator2 server's ``AccessibilityNodeInfoDumper`` (API 30+ device):
an XML declaration with ``standalone='yes'``, a ``<hierarchy rotation="0">`` root holding one
``<node>`` per window root, each node with the attributes in the server's order (``NAF`` first
when the node is a clickable control with no text or description, then ``index``, ``text``,
``resource-id``, ``class``, ``package``, ``content-desc``, the boolean flags,
``visible-to-user``, ``bounds="[l,t][r,b]"``, ``drawing-order``, ``hint`` and ``display-id``),
indented by two spaces per level with CRLF line ends as Android's ``XmlSerializer`` writes them.
Children that are not visible to the user are skipped, as the server does. The same renderer
serves the Appium UiAutomator2 face's building blocks (:func:`node_attributes`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .nodes import SimNode

__all__ = ["XML_DECLARATION", "node_attributes", "render_hierarchy"]

XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
_NEWLINE = "\r\n"
_INDENT = "  "
# Layout classes the server never flags as NAF (not accessibility friendly).
_NAF_EXCLUDED = (
    "android.widget.GridView",
    "android.widget.GridLayout",
    "android.widget.ListView",
    "android.widget.TableLayout",
)


_SPECIAL = re.compile('[&<>"\x00-\x1f\ud800-\udfff\ufffe\uffff]')
_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "\n": "&#10;",
    "\r": "&#13;",
    "\t": "&#9;",
}


def _entity(found: re.Match[str]) -> str:
    # the server replaces characters XML cannot carry (other controls, lone surrogates, U+FFFE/F)
    # with a dot
    return _ENTITIES.get(found.group(), ".")


def _escape(value: str) -> str:
    """Escape an attribute value as Android's KXmlSerializer does (``&``, ``<``, ``>``, ``"``, controls)."""
    return _SPECIAL.sub(_entity, value) if _SPECIAL.search(value) else value


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _has_readable_descendant(node: SimNode) -> bool:
    return any(child.text or child.label or _has_readable_descendant(child) for child in node.children)


def _is_naf(node: SimNode) -> bool:
    if node.type.endswith(_NAF_EXCLUDED):
        return False
    if not (node.clickable and node.enabled) or node.label or node.text:
        return False
    return not _has_readable_descendant(node)


def node_attributes(node: SimNode, index: int, drawing_order: int) -> list[tuple[str, str]]:
    """The attributes uiautomator2 writes for one node, in the server's order."""
    b = node.bounds
    attrs: list[tuple[str, str]] = []
    if _is_naf(node):
        attrs.append(("NAF", "true"))
    attrs += [
        ("index", str(index)),
        ("text", node.text or ""),
        ("resource-id", node.ident or ""),
        ("class", node.type),
        ("package", node.package or ""),
        ("content-desc", node.label or ""),
        ("checkable", _bool(node.checkable)),
        ("checked", _bool(node.checked)),
        ("clickable", _bool(node.clickable)),
        ("enabled", _bool(node.enabled)),
        ("focusable", _bool(node.focusable)),
        ("focused", _bool(node.focused)),
        ("scrollable", _bool(node.scrollable)),
        ("long-clickable", _bool(node.clickable and node.ref is not None and node.ref.startswith("icon:"))),
        ("password", _bool(node.password)),
        ("selected", _bool(node.selected)),
        ("visible-to-user", _bool(node.visible)),
        ("bounds", f"[{b.left},{b.top}][{b.right},{b.bottom}]"),
        ("drawing-order", str(drawing_order)),
        ("hint", node.hint or ""),
        ("display-id", "0"),
    ]
    return attrs


def _lines(node: SimNode, index: int, drawing_order: int, depth: int, max_depth: int) -> Iterator[str]:
    pad = _INDENT * depth
    attrs = " ".join(
        f'{name}="{_escape(value)}"' for name, value in node_attributes(node, index, drawing_order)
    )
    children = [(i, c) for i, c in enumerate(node.children) if c.visible] if max_depth > 0 else []
    if not children:
        yield f"{pad}<node {attrs} />"
        return
    yield f"{pad}<node {attrs}>"
    for i, child in children:
        yield from _lines(child, i, i + 1, depth + 1, max_depth - 1)
    yield f"{pad}</node>"


def render_hierarchy(tree: SimNode, *, rotation: int = 0, max_depth: int = 50) -> str:
    """The whole screen as uiautomator2's ``dumpWindowHierarchy(False, max_depth)`` returns it.

    ``tree`` is the simulated device's Android tree: a ``hierarchy`` node whose children are the
    window roots (the app, a dialog, the status bar, the keyboard), dumped in that order.
    """
    if max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, got {max_depth}")
    roots = tree.children if tree.type == "hierarchy" else (tree,)
    lines = [XML_DECLARATION, f'<hierarchy rotation="{rotation}">']
    for root in roots:
        lines.extend(_lines(root, 0, 0, 1, max_depth))
    lines.append("</hierarchy>")
    return _NEWLINE.join(lines)
