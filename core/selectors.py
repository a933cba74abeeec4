"""Selectors: find elements on a Scene locally, with the same meaning on Android and iOS.

A selector is resolved against the latest Scene the harness already holds, so finding a target
costs no device request. Fields combine with AND; ``index`` picks the n-th match (0-based).

- ``text``: exact text (Android ``text``, iOS ``label``/``value`` of static texts); also matches
  an element whose label equals it when the element has no text.
- ``text_contains`` / ``text_regex``: substring / regular-expression search on the same text.
- ``id``: Android resource-id with or without its ``package:id/`` prefix, or the iOS
  accessibility identifier (WDA ``name``).
- ``label``: Android content-desc or iOS accessibility label.
- ``type``: the native type, or its short form (``Button`` matches ``android.widget.Button`` and
  ``XCUIElementTypeButton``).
- ``xpath``: an XPath 1.0 expression over a normalised view of the Scene (see :func:`xpath_view`):
  one XML element per UIElement, named after its native type, with the attributes ``type text label
  id value bounds enabled visible`` (and ``clickable focusable focused selected checked scrollable
  password`` where known) followed by the element's raw attributes (``resource-id``,
  ``content-desc``, ``package``, ``name``, ``x`` …). The other fields then filter what it selected.
  The view is built on first use and cached for the last few Scenes.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from lxml import etree

from .errors import ConfigError, TargetNotFound

if TYPE_CHECKING:
    from .models import Bounds, Scene, UIElement

__all__ = ["Selector", "XPathView", "tap_point", "xpath_view"]

_IOS_TYPE_PREFIX = "XCUIElementType"
_MAX_REGEX_LENGTH = 1000
_MAX_XPATH_LENGTH = 2000
_STRING_FIELDS = ("text", "text_contains", "text_regex", "id", "label", "type", "xpath")


def _short_type(native: str) -> str:
    if native.startswith(_IOS_TYPE_PREFIX):
        return native[len(_IOS_TYPE_PREFIX) :]
    return native.rsplit(".", 1)[-1]


def _id_matches(wanted: str, identifier: str | None) -> bool:
    if identifier is None:
        return False
    if identifier == wanted:
        return True
    # "com.app:id/login" matches "login"; "login" does not match "com.app:id/other_login".
    if ":id/" in identifier and ":id/" not in wanted:
        return identifier.split(":id/", 1)[1] == wanted
    return False


@dataclass(frozen=True)
class Selector:
    """Which element to act on; see the module docstring for each field's meaning."""

    text: str | None = None
    text_contains: str | None = None
    text_regex: str | None = None
    id: str | None = None
    label: str | None = None
    type: str | None = None
    index: int | None = None
    enabled: bool | None = None
    visible: bool | None = True
    xpath: str | None = None

    def __post_init__(self) -> None:
        for name in _STRING_FIELDS:
            val = getattr(self, name)
            if val is not None and not isinstance(val, str):
                raise ConfigError(f"selector field {name!r} must be a string, got {type(val).__name__}")
            if val == "":
                raise ConfigError(f"selector field {name!r} is empty; leave it out instead")
        if self.index is not None and (
            isinstance(self.index, bool) or not isinstance(self.index, int) or self.index < 0
        ):
            raise ConfigError(f"selector field 'index' must be a non-negative integer, got {self.index!r}")
        for name in ("enabled", "visible"):
            val = getattr(self, name)
            if val is not None and not isinstance(val, bool):
                raise ConfigError(f"selector field {name!r} must be true or false, got {val!r}")
        if self.text_regex is not None:
            if len(self.text_regex) > _MAX_REGEX_LENGTH:
                raise ConfigError(f"selector text_regex is longer than {_MAX_REGEX_LENGTH} characters")
            try:
                re.compile(self.text_regex)
            except re.error as exc:
                raise ConfigError(
                    f"selector text_regex {self.text_regex!r} is not a valid regex: {exc}"
                ) from exc
        if self.xpath is not None:
            if len(self.xpath) > _MAX_XPATH_LENGTH:
                raise ConfigError(f"selector xpath is longer than {_MAX_XPATH_LENGTH} characters")
            _check_xpath(self.xpath)
        if not any(getattr(self, n) is not None for n in _STRING_FIELDS):
            raise ConfigError(
                "a selector needs at least one of text, text_contains, text_regex, id, label, type or xpath"
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | str) -> Selector:
        """Build from a step's or flow's mapping; a bare string means ``text``."""
        if isinstance(data, str):
            return cls(text=data)
        if not isinstance(data, Mapping):
            raise ConfigError(f"a selector must be a mapping or a string, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ConfigError(
                f"unknown selector field(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known))}"
            )
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def describe(self) -> str:
        """A short human form for messages and logs (long values are cut, never quoted whole)."""

        def short(value: object) -> str:
            text = repr(value)
            return text if len(text) <= 80 else f"{text[:70]}… ({len(text)} chars)"

        return ", ".join(
            f"{k}={short(v)}" for k, v in self.to_dict().items() if k != "visible" or v is not True
        )

    def matches(self, el: UIElement) -> bool:
        """Whether ``el`` satisfies every field but ``xpath`` (which needs the whole Scene)."""
        if self.visible is not None and el.visible != self.visible:
            return False
        if self.enabled is not None and el.enabled != self.enabled:
            return False
        if self.type is not None and self.type != el.type and self.type != _short_type(el.type):
            return False
        if self.id is not None and not _id_matches(self.id, el.identifier):
            return False
        if self.label is not None and el.label != self.label:
            return False
        if self.text is not None or self.text_contains is not None or self.text_regex is not None:
            candidates = [c for c in (el.text, el.label if not el.text else None, el.value) if c]
            if self.text is not None and self.text not in candidates:
                return False
            if self.text_contains is not None and not any(self.text_contains in c for c in candidates):
                return False
            if self.text_regex is not None:
                pattern = _compiled(self.text_regex)
                if not any(pattern.search(c) for c in candidates):
                    return False
        return True

    def find_all(self, scene: Scene) -> list[UIElement]:
        """Every matching element in document order (just the ``index``-th one when it is set)."""
        if self.xpath is not None:
            found = [el for el in xpath_view(scene).select(self.xpath) if self.matches(el)]
        else:
            found = [el for el in scene.root.iter() if self.matches(el)]
        if self.index is not None:
            return found[self.index : self.index + 1]
        return found

    def resolve(self, scene: Scene) -> UIElement:
        """The one element to act on, or ``TargetNotFound`` naming the selector."""
        found = self.find_all(scene)
        if not found:
            raise TargetNotFound(
                f"no element matches {self.describe()} on the current screen "
                f"(app {scene.foreground_app or 'unknown'}, {len(scene)} elements)",
                hint="check the selector against `amc inspect`; the screen may not have loaded yet",
            )
        return found[0]


def _check_xpath(expression: str) -> None:
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


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# --- XPath over a normalised view of a Scene ------------------------------------------------------

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


def tap_point(el: UIElement, window: Bounds) -> tuple[int, int]:
    """Where to tap ``el``: the centre of its visible part inside the window.

    Zero-size elements and elements entirely off screen raise ``TargetNotFound``.
    """
    if el.bounds.is_empty():
        raise TargetNotFound(
            f"{_short_type(el.type)} {el.display_text or el.identifier or ''!r} has zero size"
        )
    visible = el.bounds if window.is_empty() else el.bounds.intersection(window)
    if visible is None:
        raise TargetNotFound(
            f"{_short_type(el.type)} {el.display_text or el.identifier or ''!r} is off screen "
            f"at {el.bounds.to_dict()}",
            hint="scroll it into view first",
        )
    return visible.center
