"""Render the simulated iOS screen as WebDriverAgent reports it: a WDA element tree, XML and JSON.

The layout (:mod:`sim.layout`) draws the screen as native :class:`SimNode` trees with
XCUITest type names. This module turns such a tree into what WebDriverAgent derives from an
XCUITest snapshot (:class:`WdaNode`, with WDA's own attribute rules: ``name`` is the identifier or
else the label, a static text's ``value`` falls back to its label, a switch's value is ``0``/``1``,
a text field's value falls back to its placeholder, empty strings become absent) and renders it:

- :func:`render_xml`: ``GET /source`` (``format=xml``), as appium/WebDriverAgent writes it with
  libxml2: attributes in WDA's order (``type value name label enabled visible accessible x y width
  height index placeholderValue traits``), ``processId`` and ``bundleId`` on the application
  element, two-space indentation, ``true``/``false`` booleans. Older generations write fewer:
  ``placeholderValue`` came with 9.1.0 and ``traits`` with 9.12.0 (CHANGELOG), ``processId`` and
  ``bundleId`` with 10.1.0 (PR #1055; ``tests/fixtures/real/ios/wda-16.2.0-…`` shows them), so the
  face passes ``generation`` flags.
- :func:`render_json`: ``GET /source?format=json``: nested dicts with the short ``type``,
  ``rawIdentifier``, ``rect``, ``frame`` and ``isEnabled``/``isVisible``/``isAccessible`` strings.
- :func:`render_accessible`: ``GET /wda/accessibleSource``.

Pure functions; nothing here touches the device or the network.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..core.models import Bounds
from .nodes import SimNode

__all__ = ["TYPE_PREFIX", "WdaNode", "pid_for", "render_accessible", "render_json", "render_xml", "wda_tree"]

TYPE_PREFIX = "XCUIElementType"

# Element types that are accessibility elements (the rest are containers).
_ACCESSIBLE = frozenset(
    f"{TYPE_PREFIX}{t}"
    for t in (
        "Button",
        "StaticText",
        "TextField",
        "SecureTextField",
        "Switch",
        "Key",
        "Icon",
        "Image",
        "Link",
    )
)
# FBDoesElementSupportInnerText: these carry placeholderValue and fall back to it for value.
_INNER_TEXT = frozenset(
    f"{TYPE_PREFIX}{t}" for t in ("TextField", "SecureTextField", "SearchField", "TextView")
)
_TRAITS = {
    f"{TYPE_PREFIX}Button": "Button",
    f"{TYPE_PREFIX}Icon": "Button",
    f"{TYPE_PREFIX}Switch": "Button",
    f"{TYPE_PREFIX}Key": "KeyboardKey",
    f"{TYPE_PREFIX}StaticText": "StaticText",
    f"{TYPE_PREFIX}Image": "Image",
    f"{TYPE_PREFIX}Link": "Link",
}
# Characters XML 1.0 cannot carry; WDA drops them (fb_xmlSafeStringWithReplacement:@"").
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
)


@dataclass(frozen=True)
class WdaNode:
    """One element as WebDriverAgent describes it. ``sim`` is the native node it came from."""

    type: str
    value: str | None
    name: str | None
    label: str | None
    identifier: str | None
    enabled: bool
    visible: bool
    accessible: bool
    focused: bool
    rect: Bounds
    index: int
    placeholder: str | None
    traits: str
    sim: SimNode
    children: tuple[WdaNode, ...] = ()
    bundle_id: str | None = None
    pid: int | None = None

    def iter(self) -> Iterator[WdaNode]:
        """This node and its descendants, depth first, in document order."""
        stack: list[WdaNode] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    @property
    def short_type(self) -> str:
        return self.type[len(TYPE_PREFIX) :] if self.type.startswith(TYPE_PREFIX) else self.type

    def attribute(self, name: str) -> Any:
        """An attribute by its WDA predicate name (``name``, ``label``, ``wdValue``, ``visible`` …)."""
        key = name[2].lower() + name[3:] if name.startswith("wd") and len(name) > 2 else name
        key = {"elementType": "type", "identifier": "name", "title": "label"}.get(key, key)
        if key in ("x", "y", "width", "height"):
            return _rect(self.rect)[key]
        if key in ("rect", "frame"):
            return _rect(self.rect)
        if key == "placeholderValue":
            return self.placeholder
        return getattr(self, key, None)


def pid_for(bundle_id: str, running: int | None = None) -> int:
    """An app's process id: the device's for a running app (``running``, ``SimDevice.pid_of``: a new
    one each launch, as iOS gives each launch a new process, so ``activeAppInfo`` and the source's
    ``processId`` agree), else a stable, plausible one (SpringBoard, which always runs)."""
    return running if running is not None else 200 + zlib.crc32(bundle_id.encode()) % 30000


def _empty_to_none(text: str | None) -> str | None:
    return text if text else None


def _value(node: SimNode) -> str | None:
    kind = node.type
    if kind == f"{TYPE_PREFIX}StaticText":
        return _empty_to_none(node.value) or _empty_to_none(node.label)
    if kind == f"{TYPE_PREFIX}Switch":
        return "1" if node.checked else "0"
    if kind == f"{TYPE_PREFIX}Button":
        return _empty_to_none(node.value) or ("1" if node.selected else None)
    if kind in _INNER_TEXT:
        return _empty_to_none(node.value) or _empty_to_none(node.hint)
    return _empty_to_none(node.value)


def wda_tree(
    root: SimNode, *, bundle_id: str | None = None, index: int = 0, pid: int | None = None
) -> WdaNode:
    """The WDA view of a native iOS tree; ``bundle_id`` goes on the (application) root."""
    inner_text = root.type in _INNER_TEXT
    return WdaNode(
        type=root.type,
        value=_value(root),
        name=_empty_to_none(root.ident) or _empty_to_none(root.label),
        label=(root.label or "") if inner_text else _empty_to_none(root.label),
        identifier=_empty_to_none(root.ident),
        enabled=root.enabled,
        visible=root.visible,
        accessible=root.type in _ACCESSIBLE and not root.hidden,
        focused=root.focused,
        rect=root.bounds,
        index=index,
        placeholder=root.hint if inner_text else None,
        traits=_TRAITS.get(root.type, ""),
        sim=root,
        children=tuple(wda_tree(child, index=i) for i, child in enumerate(root.children)),
        bundle_id=bundle_id,
        pid=(pid if pid is not None else pid_for(bundle_id)) if bundle_id else None,
    )


# --- XML -------------------------------------------------------------------------------------


def _attr(text: str) -> str:
    return _XML_UNSAFE.sub("", text).translate(_ATTR_ESCAPES)


def _bool(flag: bool) -> str:
    return "true" if flag else "false"


def _rect(bounds: Bounds) -> dict[str, int]:
    return {"x": bounds.left, "y": bounds.top, "width": bounds.width, "height": bounds.height}


def _xml_attributes(node: WdaNode, placeholders: bool = True, traits: bool = True) -> list[tuple[str, str]]:
    attrs: list[tuple[str, str]] = [("type", node.type)]
    for name in ("value", "name", "label"):
        val = getattr(node, name)
        if val is not None:
            attrs.append((name, val))
    attrs += [
        ("enabled", _bool(node.enabled)),
        ("visible", _bool(node.visible)),
        ("accessible", _bool(node.accessible)),
    ]
    attrs += [(key, str(val)) for key, val in _rect(node.rect).items()]
    attrs.append(("index", str(node.index)))
    if node.placeholder is not None and placeholders:
        attrs.append(("placeholderValue", node.placeholder))
    if traits:
        attrs.append(("traits", node.traits))
    if node.pid is not None:
        attrs.append(("processId", str(node.pid)))
        if node.bundle_id:
            attrs.append(("bundleId", node.bundle_id))
    return attrs


def _write_xml(node: WdaNode, depth: int, out: list[str], placeholders: bool, traits: bool) -> None:
    pad = "  " * depth
    attrs = " ".join(f'{key}="{_attr(val)}"' for key, val in _xml_attributes(node, placeholders, traits))
    if not node.children:
        out.append(f"{pad}<{node.type} {attrs}/>\n")
        return
    out.append(f"{pad}<{node.type} {attrs}>\n")
    for child in node.children:
        _write_xml(child, depth + 1, out, placeholders, traits)
    out.append(f"{pad}</{node.type}>\n")


def render_xml(root: WdaNode, *, placeholders: bool = True, traits: bool = True) -> str:
    """``GET /source`` as XML, byte for byte in WDA's layout (``placeholders``/``traits``: whether
    this WDA generation writes those attributes)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    _write_xml(root, 0, out, placeholders, traits)
    return "".join(out)


# --- JSON ------------------------------------------------------------------------------------


def _frame(bounds: Bounds) -> str:
    return f"{{{{{bounds.left}, {bounds.top}}}, {{{bounds.width}, {bounds.height}}}}}"


def _flag(flag: bool) -> str:
    return "1" if flag else "0"


def render_json(node: WdaNode) -> dict[str, Any]:
    """``GET /source?format=json``: the tree as WDA's ``fb_tree`` dictionaries."""
    info: dict[str, Any] = {
        "type": node.short_type,
        "rawIdentifier": node.identifier,
        "name": node.name,
        "value": node.value,
        "label": node.label,
        "rect": _rect(node.rect),
        "customActions": None,
        "frame": _frame(node.rect),
        "nativeFrame": _frame(node.rect),
        "isEnabled": _flag(node.enabled),
        "isVisible": _flag(node.visible),
        "isAccessible": _flag(node.accessible),
        "isNativeAccessibilityElement": _flag(node.accessible),
        "isFocused": _flag(node.focused),
        "traits": node.traits,
    }
    if node.type in _INNER_TEXT:
        info["placeholderValue"] = node.placeholder
    if node.children:
        info["children"] = [render_json(child) for child in node.children]
    return info


def render_accessible(node: WdaNode) -> dict[str, Any]:
    """``GET /wda/accessibleSource``: only accessible elements, containers keep what they hold."""
    info: dict[str, Any] = {}
    if node.accessible:
        if node.visible:
            info["value"] = node.value
            info["label"] = node.label
    else:
        children = [c for c in (render_accessible(child) for child in node.children) if c]
        if children:
            info["children"] = children
    if info:
        info["type"] = node.short_type
        info["rawIdentifier"] = node.identifier
        info["name"] = node.name
    return info
