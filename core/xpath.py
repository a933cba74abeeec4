"""XPath over a normalised view of a Scene: the part of the selectors that needs lxml.

``core.selectors`` imports this module only when a selector has an ``xpath``, so importing the
harness's values does not load lxml.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING

from lxml import etree

from .errors import ConfigError

if TYPE_CHECKING:
    from .models import Scene, UIElement

__all__ = ["XPathView", "check_xpath", "xpath_view"]


def check_xpath(expression: str) -> None:
    """Refuse an expression that cannot select elements, whatever the Scene.

    lxml reports some syntax errors, unknown functions and unbound variables only when it
    evaluates, so the expression is run once against a one-element probe; its result type (a
    node-set, or a number / string / boolean) does not depend on the document.
    """
    try:
        result = etree.XPath(expression)(etree.Element("probe"))
    except etree.XPathError as exc:
        raise ConfigError(f"selector xpath {expression!r} is not valid XPath: {exc}") from exc
    if not isinstance(result, list):
        raise ConfigError(f"selector xpath {expression!r} yields a {type(result).__name__}, not elements")


_NAME_BAD = re.compile(r"[^A-Za-z0-9_.\-]")
_NAME_OK = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_FLAGS = ("clickable", "focusable", "focused", "selected", "checked", "scrollable", "password")
# Normalised names: a raw attribute spelled the same never shadows them (an empty raw text="" is
# not a text).
_NORMALISED = frozenset({"type", "text", "label", "id", "value", "bounds", "enabled", "visible", *_FLAGS})
_VIEW_CACHE_SIZE = 4
_view_cache: OrderedDict[int, tuple[UIElement, XPathView]] = OrderedDict()
_view_lock = threading.Lock()


@lru_cache(maxsize=4096)
def _tag(native_type: str) -> str:
    """An XML element name for a native type (``android.widget.Button`` stays as it is)."""
    name = _NAME_BAD.sub("_", native_type) or "_"
    return name if _NAME_OK.fullmatch(name) else "_" + name


@lru_cache(maxsize=4096)
def _attribute_name_ok(name: str) -> bool:
    return _NAME_OK.fullmatch(name) is not None


def _attributes(el: UIElement) -> dict[str, str]:
    b = el.bounds
    attrs = {"type": el.type}
    for key, val in (("text", el.text), ("label", el.label), ("id", el.identifier), ("value", el.value)):
        if val is not None:
            attrs[key] = val
    attrs["bounds"] = f"[{b.left},{b.top}][{b.right},{b.bottom}]"
    attrs["enabled"] = "true" if el.enabled else "false"
    attrs["visible"] = "true" if el.visible else "false"
    for key in _FLAGS:
        flag = getattr(el, key)
        if flag is not None:
            attrs[key] = "true" if flag else "false"
    for key, val in el.attributes.items():
        if key not in _NORMALISED and _attribute_name_ok(key):
            attrs[key] = val
    return attrs


class XPathView:
    """A Scene as an lxml tree, and the way back from its nodes to the Scene's elements."""

    __slots__ = ("_elements", "root")

    def __init__(self, root: UIElement) -> None:
        self._elements: dict[etree._Element, UIElement] = {}
        self.root = self._node(None, root)
        stack: list[tuple[etree._Element, UIElement]] = [(self.root, root)]
        while stack:
            parent, el = stack.pop()
            for child in el.children:
                stack.append((self._node(parent, child), child))

    def _node(self, parent: etree._Element | None, el: UIElement) -> etree._Element:
        attrs = _attributes(el)
        try:
            node = (
                etree.Element(_tag(el.type), attrs)
                if parent is None
                else etree.SubElement(parent, _tag(el.type), attrs)
            )
        except ValueError:  # a character XML cannot hold (possible in JSON sources)
            clean = {k: _XML_BAD.sub("\ufffd", v) for k, v in attrs.items()}
            node = (
                etree.Element(_tag(el.type), clean)
                if parent is None
                else etree.SubElement(parent, _tag(el.type), clean)
            )
        self._elements[node] = el
        return node

    def path(self, element: UIElement) -> str | None:
        """An absolute XPath that selects ``element`` (this Scene's object) by its position, e.g.
        ``/hierarchy/android.widget.FrameLayout[2]/android.widget.Button``; None if it is not here."""
        for node, el in self._elements.items():
            if el is element:
                return str(self.root.getroottree().getpath(node))
        return None

    def select(self, expression: str) -> list[UIElement]:
        """The Scene elements ``expression`` selects, in document order.

        Results that are not elements (attribute values, numbers …) are ignored; an expression
        that does not yield a node-set, or fails to evaluate, is a ``ConfigError``.
        """
        try:
            result = self.root.xpath(expression)
        except etree.XPathError as exc:
            raise ConfigError(f"selector xpath {expression!r} cannot be evaluated: {exc}") from exc
        if not isinstance(result, list):
            raise ConfigError(f"selector xpath {expression!r} yields a {type(result).__name__}, not elements")
        found: list[UIElement] = []
        for item in result:
            el = self._elements.get(item) if isinstance(item, etree._Element) else None
            if el is not None:
                found.append(el)
        return found


def xpath_view(scene: Scene) -> XPathView:
    """The XPath view of ``scene``'s tree, built once and kept for the last few Scenes."""
    root = scene.root
    key = id(root)
    with _view_lock:
        hit = _view_cache.get(key)
        if hit is not None and hit[0] is root:
            _view_cache.move_to_end(key)
            return hit[1]
    view = XPathView(root)
    with _view_lock:
        _view_cache[key] = (root, view)  # holding root keeps id(root) from being reused
        _view_cache.move_to_end(key)
        while len(_view_cache) > _VIEW_CACHE_SIZE:
            _view_cache.popitem(last=False)
    return view
