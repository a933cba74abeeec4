"""The dicts ``json.loads`` built from a WDA JSON source, behind a Scene: elements built on demand.

:class:`JsonSource` turns a node object into a :class:`~core.lazy.LazyElement` when it is first
read (types normalised to the XML spelling, ``attributes`` the raw scalars plus
``x``/``y``/``width``/``height``) and answers the whole-tree questions of :mod:`core.lazy` by
walking the dicts, building only the elements worth testing. :data:`FIELDS` says where each string
field comes from, for the builder and the queries alike.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from ...core.lazy import Field, LazyElement, Query, Test, ViewCache, set_children
from ...core.models import Bounds, UIElement
from .common import EMPTY, new_view, rect_bounds
from .ios import SWITCH_TYPES
from .schema import Plan
from .walk import Walker, walker

__all__ = ["FIELDS", "JsonSource"]

_PREFIX: Final = "XCUIElementType"
_FRAME: Final = re.compile(r"\{\{\s*([-\d.eE+]+),\s*([-\d.eE+]+)\},\s*\{\s*([-\d.eE+]+),\s*([-\d.eE+]+)\}\}")
_TRUE: Final = frozenset({"1", "true", "True", "YES", True})  # True == 1
# Where each string field comes from (the first non-empty one wins); "type" is normalised to
# the XML spelling. The element builder and the queries of JsonSource both read this table.
FIELDS: Final[Mapping[Field, tuple[str, ...]]] = {
    "type": ("type",),
    "text": ("label", "value"),
    "label": ("label",),
    "identifier": ("name",),
    "value": ("value",),
}
_DISPLAY: Final = FIELDS["text"] + FIELDS["label"] + FIELDS["value"]
_FROM_RECT: Final = frozenset({"x", "y", "width", "height"})  # attributes _bounds writes


def _scalar(value: Any) -> str | None:
    """A JSON scalar as the string XML would carry; None for null, objects and arrays."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None or kind is dict or kind is list:
        return None
    if kind is bool:
        return "1" if value else "0"
    if kind is float and value.is_integer():
        return str(int(value))
    return str(value)


def _number(value: Any) -> float:
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[no-any-return]
    if kind is str:
        try:
            return float(value)
        except ValueError:
            return 0
    return 0


def _bounds(node: Mapping[str, Any], attributes: dict[str, str]) -> Bounds:
    rect = node.get("rect")
    if type(rect) is dict:
        x, y = _number(rect.get("x")), _number(rect.get("y"))
        w, h = _number(rect.get("width")), _number(rect.get("height"))
    else:
        frame = node.get("frame")
        match = _FRAME.fullmatch(frame.strip()) if type(frame) is str else None
        if match is None:
            return EMPTY
        x, y, w, h = (_number(g) for g in match.groups())
    bounds = rect_bounds(x, y, w, h)
    attributes["x"], attributes["y"] = str(bounds.left), str(bounds.top)
    attributes["width"], attributes["height"] = str(bounds.width), str(bounds.height)
    return bounds


def _flag(value: Any, default: bool) -> bool:
    kind = type(value)
    if kind is str or kind is bool or kind is int:
        return value in _TRUE
    return default  # null or a stray object keeps the default


def _native(short: str) -> str:
    return short if short.startswith(_PREFIX) else _PREFIX + short


def _string(node: Mapping[str, Any], key: str) -> str | None:
    """A node's raw value as ``attributes`` keeps it (the type normalised), or None."""
    raw = node.get(key)
    text = raw if type(raw) is str else _scalar(raw)
    return _native(text) if key == "type" and text is not None else text


def _first(node: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        text = _string(node, key)
        if text:
            return text
    return None


def _element(source: JsonSource, node: Mapping[str, Any]) -> LazyElement:
    # Raw scalars as XML would carry them; "children" (a list) and "rect" (an object) drop out.
    attributes: dict[str, str] = {}
    for key, raw in node.items():
        if type(raw) is str:
            attributes[key] = raw
        else:
            text = _scalar(raw)
            if text is not None:
                attributes[key] = text
    native = _first(node, FIELDS["type"]) or _PREFIX
    value = _first(node, FIELDS["value"])
    focused = node.get("isFocused")
    return new_view(
        source,
        node,
        native,
        _first(node, FIELDS["text"]),
        _first(node, FIELDS["label"]),
        _first(node, FIELDS["identifier"]),
        value,
        _bounds(node, attributes),
        _flag(node.get("isEnabled"), True),
        _flag(node.get("isVisible"), True),
        None,
        None,
        None if focused is None else _flag(focused, False),
        None,
        (value == "1") if native in SWITCH_TYPES else None,
        None,
        None,
        attributes,
    )


def _below(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The descendants of a checked node, in document order."""
    stack: list[Iterator[Any]] = [iter(node.get("children") or ())]
    while stack:
        for kid in stack[-1]:
            yield kid
            grand = kid.get("children")
            if grand:
                stack.append(iter(grand))
                break
        else:
            stack.pop()


def _test(test: Test) -> Callable[[Mapping[str, Any]], bool]:
    """A predicate on raw nodes that holds for every node whose element passes ``test`` (it may
    hold for more: a number or a flag where a string was expected always passes)."""
    field, op, needle = test
    keys = FIELDS[field]
    if field == "type":
        if not needle.startswith(_PREFIX):
            return lambda node: bool(_holds_value(_first(node, keys), op, needle))
        short = needle[len(_PREFIX) :]  # WDA writes "Button" for XCUIElementTypeButton
        if op == "=":
            return lambda node: (raw := node["type"]) == short or raw == needle
        return lambda node: short in node["type"]
    if op == "=":

        def equals(node: Mapping[str, Any]) -> bool:
            for key in keys:
                raw = node.get(key)
                if raw == needle or (raw is not None and raw.__class__ is not str):
                    return True
            return False

        return equals

    def contains(node: Mapping[str, Any]) -> bool:
        for key in keys:
            raw = node.get(key)
            if raw.__class__ is str:
                if raw and needle in raw:
                    return True
            elif raw is not None:
                return True
        return False

    return contains


_MAX_PLANS: Final = 1024
_plans: dict[Query, tuple[Walker, tuple[str, ...]] | None] = {}
_plans_lock = threading.Lock()
_UNSEEN: Final[Any] = object()


def _plan(query: Query) -> Plan | None:
    """``query`` as tests on raw keys (see :func:`.schema.query_plan`), or None when a test needs
    the element's spelled-out type (a type test on a name without the ``XCUIElementType`` prefix)."""
    groups = []
    for group in query:
        by_key: dict[str, list[tuple[bool, str]]] = {}
        for field, op, needle in group:
            if field == "type":
                if not needle.startswith(_PREFIX):
                    return None
                short = needle[len(_PREFIX) :]  # WDA writes "Button" for XCUIElementTypeButton
                tests = [(True, short), (True, needle)] if op == "=" else [(False, short)]
            else:
                tests = [(op == "=", needle)]
            for key in FIELDS[field]:
                kept = by_key.setdefault(key, [])
                kept.extend(t for t in tests if t not in kept)
        groups.append(tuple((key, False, tuple(tests)) for key, tests in by_key.items()))
    return tuple(groups)


def _walker(query: Query) -> tuple[Walker, tuple[str, ...]] | None:
    """The compiled walk of ``query`` over JSON nodes (:mod:`.walk`), remembered; None as for
    :func:`_plan`."""
    hit = _plans.get(query, _UNSEEN)  # one read: another thread may clear the cache meanwhile
    if hit is not _UNSEEN:
        return hit  # type: ignore[no-any-return]
    plan = _plan(query)
    hit = walker(plan, scalars=True) if plan is not None else None
    with _plans_lock:
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[query] = hit
    return hit


def _holds_value(value: str | None, op: str, needle: str) -> bool:
    return bool(value) and (value == needle if op == "=" else needle in value)  # type: ignore[operator]


class JsonSource:
    """The dicts ``json.loads`` built, behind one Scene (see the module docstring)."""

    __slots__ = ("_lock", "_nodes", "_pruned", "_values", "_views")

    def __init__(self, nodes: list[Mapping[str, Any]]) -> None:
        self._nodes = nodes  # every node in document order, the root first
        self._values: dict[str, tuple[frozenset[str], bool]] = {}
        self._pruned: dict[Query, Query | None] = {}
        self._views = ViewCache()  # by id(): the tree keeps every node alive
        self._lock = threading.RLock()

    def view(self, node: Mapping[str, Any]) -> LazyElement:
        el = self._views.get(id(node))
        if el is None:
            with self._lock:
                el = self._views.get(id(node))
                if el is None:
                    el = _element(self, node)
                    self._views.put(id(node), el)
        return el

    def _descendants(self, el: LazyElement) -> Iterator[Mapping[str, Any]]:
        node = el._node
        return iter(self._nodes[1:]) if node is self._nodes[0] else _below(node)

    def children_of(self, el: LazyElement) -> tuple[UIElement, ...]:
        with self._lock:
            view = self.view
            kids: tuple[UIElement, ...] = tuple(view(k) for k in el._node.get("children") or ())
            set_children(el, kids)
        return el.children

    def count(self, el: LazyElement) -> int:
        return 1 + sum(1 for _ in self._descendants(el))

    def _strings(self, key: str) -> tuple[frozenset[str], bool]:
        """Every string a key holds in this document, and whether it also holds other scalars."""
        hit = self._values.get(key)
        if hit is None:
            raw = [node.get(key) for node in self._nodes]
            strings = frozenset(v for v in raw if v.__class__ is str)
            hit = self._values[key] = (strings, any(v is not None and v.__class__ is not str for v in raw))
        return hit

    def _possible(self, test: Test) -> bool:
        """Whether an element of this document may pass ``test``: "equals" tests on the type (the
        enricher's, on a few names) are checked against the types the document holds; any other
        test may pass (a walk that stops at the first match costs less than an index)."""
        field, op, needle = test
        if op != "=" or field != "type":
            return True
        for key in FIELDS[field]:
            strings, others = self._strings(key)
            if others or needle in strings:
                return True
            if field == "type" and needle.startswith(_PREFIX) and needle[len(_PREFIX) :] in strings:
                return True
        return False

    def _prune(self, query: Query) -> Query | None:
        groups = []
        for group in query:
            kept = tuple(test for test in group if self._possible(test))
            if not kept:
                return None
            groups.append(kept)
        return tuple(groups)

    def candidates(self, el: LazyElement, query: Query) -> Iterator[UIElement]:
        yield el
        pruned = self._pruned.get(query, query)
        if pruned is query:
            pruned = self._pruned[query] = self._prune(query)
        if pruned is None:
            return
        view = self.view
        compiled = _walker(pruned)
        if compiled is not None:
            walk, needles = compiled
            yield from walk(self._descendants(el), view, needles)
            return
        groups = [[_test(test) for test in group] for group in pruned]
        if len(groups) == 1 and len(groups[0]) == 1:
            only = groups[0][0]
            yield from (view(node) for node in self._descendants(el) if only(node))
        else:
            yield from (
                view(node)
                for node in self._descendants(el)
                if all(any(t(node) for t in group) for group in groups)
            )

    def first_attribute(self, el: LazyElement, name: str) -> str | None:
        if name in _FROM_RECT:  # made from the rect as an element is built: ask the elements
            return next((v for n in self._descendants(el) if (v := self.view(n).attributes.get(name))), None)
        for node in self._descendants(el):
            value = _scalar(node.get(name))  # as _element keeps it
            if value:
                return value
        return None

    def texts(self, el: LazyElement) -> list[str]:
        out: list[str] = []
        for node in self._descendants(el):
            if _flag(node.get("isVisible"), True):
                text = _first(node, _DISPLAY)
                if text:
                    out.append(text)
        return out
