"""Render an abstract UI tree in every wire format the parsers read (used by the property tests).

The renderers follow what the devices emit (attribute names, order and spelling) and let lxml do
the escaping, so anything XML can carry survives the trip.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

__all__ = ["Node", "appium_android", "uiautomator", "wda_json", "wda_xml", "xcuitest"]


@dataclass
class Node:
    """Platform-neutral test node: ``text`` is Android text / iOS label, ``desc`` content-desc / value."""

    cls: str
    bounds: tuple[int, int, int, int]
    text: str = ""
    desc: str = ""
    ident: str = ""
    enabled: bool = True
    visible: bool = True
    children: list[Node] = field(default_factory=list)


def _b(v: bool) -> str:
    return "true" if v else "false"


def _bounds(b: tuple[int, int, int, int]) -> str:
    return f"[{b[0]},{b[1]}][{b[2]},{b[3]}]"


def _android_attrs(n: Node, index: int, package: str) -> dict[str, str]:
    return {
        "index": str(index),
        "text": n.text,
        "resource-id": n.ident,
        "class": n.cls,
        "package": package,
        "content-desc": n.desc,
        "checkable": "false",
        "checked": "false",
        "clickable": "true",
        "enabled": _b(n.enabled),
        "focusable": "false",
        "focused": "false",
        "scrollable": "false",
        "long-clickable": "false",
        "password": "false",
        "selected": "false",
        "visible-to-user": _b(n.visible),
        "bounds": _bounds(n.bounds),
    }


def _serialise(root: etree._Element, *, declaration: str) -> bytes:
    return declaration.encode() + etree.tostring(root, encoding="utf-8")


def uiautomator(windows: list[Node], package: str = "com.example.app") -> bytes:
    root = etree.Element("hierarchy", {"rotation": "0"})

    def add(parent: etree._Element, n: Node, index: int) -> None:
        el = etree.SubElement(parent, "node", _android_attrs(n, index, package))
        for i, c in enumerate(n.children):
            add(el, c, i)

    for i, w in enumerate(windows):
        add(root, w, i)
    return _serialise(root, declaration="<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>")


def appium_android(windows: list[Node], package: str = "com.example.app") -> bytes:
    root = etree.Element(
        "hierarchy", {"index": "0", "class": "hierarchy", "rotation": "0", "width": "1", "height": "1"}
    )

    def add(parent: etree._Element, n: Node, index: int) -> None:
        attrs = _android_attrs(n, index, package)
        attrs["displayed"] = attrs.pop("visible-to-user")
        for key in ("resource-id", "content-desc"):
            if not attrs[key]:
                del attrs[key]  # Appium leaves empty ones out
        el = etree.SubElement(parent, n.cls, attrs)
        for i, c in enumerate(n.children):
            add(el, c, i)

    for i, w in enumerate(windows):
        add(root, w, i)
    return _serialise(root, declaration="<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n")


def _ios_attrs(n: Node, index: int) -> dict[str, str]:
    left, top, right, bottom = n.bounds
    attrs = {"type": n.cls}
    if n.desc:
        attrs["value"] = n.desc
    if n.ident:
        attrs["name"] = n.ident
    if n.text:
        attrs["label"] = n.text
    attrs.update(
        {
            "enabled": _b(n.enabled),
            "visible": _b(n.visible),
            "accessible": "true",
            "x": str(left),
            "y": str(top),
            "width": str(right - left),
            "height": str(bottom - top),
            "index": str(index),
        }
    )
    return attrs


def _ios_tree(app: Node) -> etree._Element:
    def build(parent: etree._Element | None, n: Node, index: int) -> etree._Element:
        attrs = _ios_attrs(n, index)
        el = etree.Element(n.cls, attrs) if parent is None else etree.SubElement(parent, n.cls, attrs)
        for i, c in enumerate(n.children):
            build(el, c, i)
        return el

    return build(None, app, 0)


def wda_xml(app: Node) -> bytes:
    return _serialise(_ios_tree(app), declaration='<?xml version="1.0" encoding="UTF-8"?>\n')


def xcuitest(app: Node) -> bytes:
    wrapper = etree.Element("AppiumAUT")
    wrapper.append(_ios_tree(app))
    return _serialise(wrapper, declaration='<?xml version="1.0" encoding="UTF-8"?>')


def _json_node(n: Node) -> dict[str, Any]:
    left, top, right, bottom = n.bounds
    out: dict[str, Any] = {
        "type": n.cls.removeprefix("XCUIElementType"),
        "name": n.ident or None,
        "label": n.text or None,
        "value": n.desc or None,
        "rect": {"x": left, "y": top, "width": right - left, "height": bottom - top},
        "frame": f"{{{{{left}, {top}}}, {{{right - left}, {bottom - top}}}}}",
        "isEnabled": "1" if n.enabled else "0",
        "isVisible": "1" if n.visible else "0",
        "rawIdentifier": n.ident or None,
    }
    if n.children:
        out["children"] = [_json_node(c) for c in n.children]
    return out


def wda_json(app: Node, *, wrapped: bool = True) -> bytes:
    tree = _json_node(app)
    doc = {"value": tree, "sessionId": "00000000-0000-0000-0000-000000000000"} if wrapped else tree
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")
