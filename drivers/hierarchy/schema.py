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
from .common import BOOL, new_view

__all__ = ["ANDROID", "IOS", "TAG", "Schema", "element_view", "query_xpath"]

TAG: Final = "#tag"  # the element's own name (``node``, ``android.widget.Button``, ``XCUIElementTypeCell``)
_FLAG: Final = BOOL.get
_FLAG_FIELDS: Final = ("clickable", "focusable", "focused", "selected", "checked", "scrollable", "password")


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

    def __post_init__(self) -> None:
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
    from .android import android_bounds  # the format's own parser of "[l,t][r,b]"

    return android_bounds(get("bounds"))


def _ios_bounds(get: Callable[[str], str | None]) -> Bounds:
    from .ios import ios_bounds

    return ios_bounds(get)


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
    bounds=_ios_bounds,
    switch_types=frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeToggle"}),
)


def element_view(schema: Schema, source: TreeSource, node: Any) -> LazyElement:
    """The element ``node`` stands for in ``schema``'s format; its children come from ``source``."""
    attrib: dict[str, str] = dict(node.attrib)
    tag: str = node.tag
    get = attrib.get
    fields = schema.fields
    values: list[str | None] = []
    for name in ("type", "text", "label", "identifier", "value"):
        found = None
        for raw in fields[name]:  # type: ignore[index]
            found = tag if raw == TAG else get(raw)
            if found:
                break
        values.append(found or None)
    type_, text, label, identifier, value = values
    visible = "true"
    for raw in schema.visible:
        shown = get(raw)
        if shown:
            visible = shown
            break
    flags = dict.fromkeys(_FLAG_FIELDS)
    for name in schema.flags:
        flags[name] = _FLAG(get(name))
    if schema.switch_types:
        flags["checked"] = (value == "1") if type_ in schema.switch_types else None
    return new_view(
        source,
        node,
        type_ or tag,
        text,
        label,
        identifier,
        value,
        schema.bounds(get),
        get(schema.enabled) != "false",
        visible != "false",
        flags["clickable"],
        flags["focusable"],
        flags["focused"],
        flags["selected"],
        flags["checked"],
        flags["scrollable"],
        flags["password"],
        attrib,
    )


_compiled: dict[tuple[int, tuple[tuple[tuple[str, bool], ...], ...]], etree.XPath] = {}
_compiled_lock = threading.Lock()


def query_xpath(schema: Schema, query: Query) -> tuple[etree.XPath, dict[str, str]]:
    """The XPath selecting the descendants that satisfy ``query``, and its variables.

    Needles travel as XPath variables (``$v0`` …), never inside the expression, so any text is
    safe; one compiled expression serves every query of the same shape.
    """
    shape = tuple(tuple((f, bool(n)) for f, n in group) for group in query)
    vars_: dict[str, str] = {}
    groups: list[str] = []
    for group in query:
        tests: list[str] = []
        for name, needle in group:
            for raw in schema.fields[name]:
                if needle:
                    var = f"v{len(vars_)}"
                    vars_[var] = needle
                    tests.append(f"contains({_attr_xpath(raw)}, ${var})")
                else:
                    tests.append(f"string({_attr_xpath(raw)}) != ''")
        groups.append("(" + (" or ".join(tests) or "false()") + ")")
    key = (id(schema), shape)
    xpath = _compiled.get(key)
    if xpath is None:
        xpath = etree.XPath("descendant::*[" + " and ".join(groups) + "]")
        with _compiled_lock:
            _compiled[key] = xpath
    return xpath, vars_
