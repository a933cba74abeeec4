"""Where each XML format keeps each field: one table per format, read by the element builder and
by the XPath compiler alike, so that a rule is spelled once.

A :class:`Schema` maps every string field of :class:`~core.models.UIElement` to the raw
attributes it comes from (the first non-empty one wins; :data:`TAG` is the element's own name),
says which attributes hide or disable an element (``"false"``) and which are plain flags.
:func:`element_view` builds an element from a node with it; :func:`query_xpath` and
:data:`Schema.visible_xpath` turn the same table into XPath 1.0 that libxml2 evaluates natively.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

from ...core.lazy import Field, LazyElement, Query, TreeSource
from ...core.models import Bounds
from .bounds import android_bounds, ios_bounds
from .common import BOOL, new_view

__all__ = ["ANDROID", "IOS", "TAG", "Schema", "element_view", "query_xpath", "shown"]

TAG: Final = "#tag"  # the element's own name (``node``, ``android.widget.Button``, ``XCUIElementTypeCell``)
_FLAG: Final = BOOL.get
_FLAG_FIELDS: Final = ("clickable", "focusable", "focused", "selected", "checked", "scrollable", "password")


_compiled_lock = threading.Lock()


def _attr_xpath(name: str) -> str:
    return "name()" if name == TAG else f"@{name}"


@dataclass(frozen=True)
class Schema:
    """One format's attribute names; see the module docstring."""

    fields: Mapping[Field, tuple[str, ...]]
    visible: tuple[str, ...]  # the first non-empty one; "false" hides the element
    enabled: str  # "false" disables the element
    flags: tuple[str, ...]  # UIElement flags read from the attribute of the same name
    bounds: Callable[[Callable[[str], str | None]], Bounds]
    switch_types: frozenset[str] = frozenset()  # types whose ``checked`` is ``value == "1"``
    visible_xpath: str = field(init=False)  # the XPath predicate "this element is visible"
    # What element_view reads: each string field's attributes (TAG, always last, left out: the
    # builder falls back to the name), and each UIElement flag's attribute or None.
    plan: tuple[tuple[str, ...], ...] = field(init=False)
    flag_plan: tuple[str | None, ...] = field(init=False)

    def __post_init__(self) -> None:
        for names in self.fields.values():
            if TAG in names[:-1]:
                raise ValueError("TAG can only be the last source of a field")
        order: tuple[Field, ...] = ("type", "text", "label", "identifier", "value")
        plan = tuple(tuple(n for n in self.fields[f] if n != TAG) for f in order)
        object.__setattr__(self, "plan", plan)
        flag_plan = tuple(name if name in self.flags else None for name in _FLAG_FIELDS)
        object.__setattr__(self, "flag_plan", flag_plan)
        hidden, before = [], []
        for name in self.visible:  # hidden: the first non-empty visibility attribute says "false"
            hidden.append("(" + " and ".join([*before, f"@{name}='false'"]) + ")")
            before.append(f"not(string(@{name}))")
        object.__setattr__(self, "visible_xpath", f"not({' or '.join(hidden)})" if hidden else "true()")

    @property
    def display(self) -> tuple[str, ...]:
        """The attributes ``display_text`` reads, in order (text, else label, else value)."""
        return self.fields["text"] + self.fields["label"] + self.fields["value"]


def _android_bounds(get: Callable[[str], str | None]) -> Bounds:
    return android_bounds(get("bounds"))


ANDROID: Final = Schema(
    fields={
        "type": ("class", TAG),
        "text": ("text",),
        "label": ("content-desc",),
        "identifier": ("resource-id",),
        "value": (),
    },
    visible=("visible-to-user", "displayed"),  # uiautomator, Appium
    enabled="enabled",
    flags=_FLAG_FIELDS,
    bounds=_android_bounds,
)
IOS: Final = Schema(
    fields={
        "type": (TAG,),
        "text": ("label", "value"),
        "label": ("label",),
        "identifier": ("name",),
        "value": ("value",),
    },
    visible=("visible",),
    enabled="enabled",
    flags=("focused", "selected"),
    bounds=ios_bounds,
    switch_types=frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeToggle"}),
)


def shown(schema: Schema, get: Callable[[str], str | None]) -> bool:
    """Whether the element whose attributes ``get`` reads is visible (see :attr:`Schema.visible`)."""
    for raw in schema.visible:
        value = get(raw)
        if value:
            return value != "false"
    return True


def element_view(schema: Schema, source: TreeSource, node: Any) -> LazyElement:
    """The element ``node`` stands for in ``schema``'s format; its children come from ``source``."""
    attrib: dict[str, str] = dict(node.attrib)
    tag: str = node.tag
    get = attrib.get
    type_keys, text_keys, label_keys, id_keys, value_keys = schema.plan
    # next(filter(None, map(...))): the first non-empty value, looked up in C
    type_ = next(filter(None, map(get, type_keys)), None) or tag
    value = next(filter(None, map(get, value_keys)), None)
    flags = [None if name is None else _FLAG(get(name)) for name in schema.flag_plan]
    if schema.switch_types:
        flags[4] = (value == "1") if type_ in schema.switch_types else None
    return new_view(
        source,
        node,
        type_,
        next(filter(None, map(get, text_keys)), None),
        next(filter(None, map(get, label_keys)), None),
        next(filter(None, map(get, id_keys)), None),
        value,
        schema.bounds(get),
        get(schema.enabled) != "false",
        shown(schema, get),
        *flags,
        attrib,
    )


_compiled: dict[tuple[int, Query, str | None], tuple[etree.XPath, dict[str, str]]] = {}
_COMPILED_MAX: Final = 1024


def _tag_test(op: str, needle: str, tag: str) -> bool:
    return tag == needle if op == "=" else needle in tag


def query_xpath(schema: Schema, query: Query, tag: str | None = None) -> tuple[etree.XPath, dict[str, str]]:
    """The XPath selecting the descendants that satisfy ``query``, and its variables.

    Needles travel as XPath variables (``$v0`` …), never inside the expression, so any text is
    safe. ``tag``, when every descendant has that name (a uiautomator dump: ``node``), decides
    the tests on the element name here instead of in libxml2. Compiled expressions are kept.
    """
    key = (id(schema), query, tag)
    hit = _compiled.get(key)
    if hit is not None:
        return hit
    variables: dict[str, str] = {}
    groups: list[str] = []
    for group in query:
        tests: list[str] = []
        for name, op, needle in group:
            for raw in schema.fields[name]:
                if raw == TAG and tag is not None:
                    if _tag_test(op, needle, tag):
                        tests.append("true()")
                    continue
                attr = _attr_xpath(raw)
                if not needle:
                    if op == "~":
                        tests.append(f"string({attr}) != ''")
                    continue
                var = f"v{len(variables)}"
                variables[var] = needle
                tests.append(f"{attr} = ${var}" if op == "=" else f"contains({attr}, ${var})")
        groups.append("(" + (" or ".join(tests) or "false()") + ")")
    hit = (etree.XPath("descendant::*[" + " and ".join(groups) + "]"), variables)
    with _compiled_lock:
        if len(_compiled) >= _COMPILED_MAX:
            _compiled.clear()
        _compiled[key] = hit
    return hit
