"""Where each XML format keeps each field: one table per format, read by the element builder and
by the queries alike, so that a rule is spelled once.

A :class:`Schema` maps every string field of :class:`~core.models.UIElement` to the raw
attributes it comes from (the first non-empty one wins; :data:`TAG`, the element's own name,
only as the last source of ``type``), says which attributes hide or disable an element
(``"false"``) and which are plain flags. :func:`element_view` builds an element from a node with
it (its raw attributes a :class:`NodeAttributes` over the node), and :func:`query_plan` turns a
:data:`~core.lazy.Query` into tests on the same attributes (run by :mod:`.walk`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any, Final, TypeVar, overload

from ...core.lazy import Field, LazyElement, Query, TreeSource
from ...core.models import Bounds
from . import native
from .bounds import android_bounds, ios_bounds
from .common import BOOL, new_view, view_slots

__all__ = [
    "ANDROID",
    "IOS",
    "TAG",
    "NodeAttributes",
    "Plan",
    "Schema",
    "element_builder",
    "element_view",
    "native_builder",
    "query_plan",
    "read_names",
    "shown",
]

TAG: Final = "#tag"  # the element's own name (``node``, ``android.widget.Button``, ``XCUIElementTypeCell``)
_FLAG: Final = BOOL.get
_FLAG_FIELDS: Final = ("clickable", "focusable", "focused", "selected", "checked", "scrollable", "password")


_T = TypeVar("_T")


@dataclass(frozen=True)
class Schema:
    """One format's attribute names; see the module docstring."""

    fields: Mapping[Field, tuple[str, ...]]
    visible: tuple[str, ...]  # the first non-empty one; "false" hides the element
    enabled: str  # "false" disables the element
    flags: tuple[str, ...]  # UIElement flags read from the attribute of the same name
    bounds: tuple[tuple[str, ...], Callable[..., Bounds]]  # the attributes, and Bounds of their values
    switch_types: frozenset[str] = frozenset()  # types whose ``checked`` is ``value == "1"``
    # What element_view reads: each string field's attributes (TAG, always last, left out: the
    # builder falls back to the name), and each UIElement flag's attribute, or None where the
    # format has no such flag.
    plan: tuple[tuple[str, ...], ...] = field(init=False)
    flag_names: tuple[str | None, ...] = field(init=False)

    def __post_init__(self) -> None:
        for name, names in self.fields.items():
            if TAG in names and (name != "type" or names[-1] != TAG):
                raise ValueError("TAG can only be the last source of type")
        order: tuple[Field, ...] = ("type", "text", "label", "identifier", "value")
        plan = tuple(tuple(n for n in self.fields[f] if n != TAG) for f in order)
        object.__setattr__(self, "plan", plan)
        flag_names: tuple[str | None, ...] = tuple(n if n in self.flags else None for n in _FLAG_FIELDS)
        object.__setattr__(self, "flag_names", flag_names)

    @property
    def display(self) -> tuple[str, ...]:
        """The attributes ``display_text`` reads, in order (text, else label, else value)."""
        return self.fields["text"] + self.fields["label"] + self.fields["value"]


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
    bounds=(("bounds",), android_bounds),
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
    bounds=(("x", "y", "width", "height"), ios_bounds),
    switch_types=frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeToggle"}),
)


def shown(schema: Schema, get: Callable[[str], str | None]) -> bool:
    """Whether the element whose attributes ``get`` reads is visible (see :attr:`Schema.visible`)."""
    for raw in schema.visible:
        value = get(raw)
        if value:
            return value != "false"
    return True


class NodeAttributes(Mapping[str, str]):
    """An element's raw attributes as its document holds them: a read-only mapping that reads
    the lxml node when asked, in the document's order.

    Copying the attributes into a dict cost half of building an element (17 attributes on a
    uiautomator node) while a step reads a few of them, if any. Equal to the dict of the same
    attributes; pickled and copied as that dict.
    """

    __slots__ = ("_node",)

    def __init__(self, node: Any) -> None:
        self._node = node

    def _read(self, key: object) -> str | None:
        if not isinstance(key, str):
            return None
        try:
            value: str | None = self._node.get(key)
        except ValueError:  # not a name lxml reads ("a b", "")
            return None
        return value

    def __getitem__(self, key: str) -> str:
        value = self._read(key)
        if value is None:
            raise KeyError(key)
        return value

    @overload
    def get(self, key: str, /) -> str | None: ...
    @overload
    def get(self, key: str, default: str, /) -> str: ...
    @overload
    def get(self, key: str, default: _T, /) -> str | _T: ...
    def get(self, key: str, default: object = None, /) -> object:
        value = self._read(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return self._read(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._node.keys())

    def __len__(self) -> int:
        return len(self._node.keys())

    def __repr__(self) -> str:
        return repr(dict(self._node.items()))

    def __reduce__(self) -> tuple[type[dict[str, str]], tuple[dict[str, str]]]:
        return dict, (dict(self._node.items()),)


Builder = Callable[[TreeSource, Any], LazyElement]
_builders: dict[tuple[int, bool], tuple[Schema, Builder]] = {}


def read_names(schema: Schema) -> tuple[str, ...]:
    """Every attribute the element builder reads, each once, in the order it first reads them."""
    type_keys, text_keys, label_keys, id_keys, value_keys = schema.plan
    names = (
        *type_keys,
        *value_keys,
        *text_keys,
        *label_keys,
        *id_keys,
        *schema.bounds[0],
        schema.enabled,
        *schema.visible,
        *(name for name in schema.flag_names if name is not None),
    )
    return tuple(dict.fromkeys(names))


def _builder_source(schema: Schema, native: bool) -> str:
    """The builder's source. Python reads each attribute with ``node.get`` where it is needed;
    with the C module (``native``) it reads them all in one call first, as ``a0``, ``a1`` …"""
    names = read_names(schema)

    def read(name: str) -> str:
        return f"a{names.index(name)}" if native else f"get({name!r})"

    def first(keys: tuple[str, ...], last: str = "None") -> str:
        """The first non-empty attribute of ``keys``, else ``last``."""
        return "(" + " or ".join([read(key) for key in keys] + [last]) + ")"

    type_keys, text_keys, label_keys, id_keys, value_keys = schema.plan
    flags = [f"FLAG({read(name)})" if name is not None else "None" for name in schema.flag_names]
    if schema.switch_types:  # a switch's checked comes from its value
        flags[4] = "((value == '1') if type_ in SWITCHES else None)"
    unpack = f"    {''.join(f'a{i}, ' for i in range(len(names)))}= VALUES(node, NAMES)\n"
    return (
        "def build(source, node):\n"
        + (unpack if native else "    get = node.get\n")
        + f"    type_ = {first(type_keys, 'node.tag')}\n"
        f"    value = {first(value_keys)}\n"
        "    return new_view(source, node, type_,\n"
        f"        {first(text_keys)}, {first(label_keys)}, {first(id_keys)}, value,\n"
        f"        BOUNDS({', '.join(read(n) for n in schema.bounds[0])}),\n"
        f"        {read(schema.enabled)} != 'false', {first(schema.visible)} != 'false',\n"
        f"        {', '.join(flags)},\n"
        "        NodeAttributes(node))\n"
    )


Values = Callable[[Any, tuple[bytes, ...]], tuple[str | None, ...]]  # the C module's values()


def _builder(schema: Schema, values: Values | None) -> Builder:
    """``schema``'s element builder, written out as straight-line Python once: the loops over each
    field's attributes cost a fifth of building an element. The attribute names in its source are
    the table's own, quoted with ``repr``. With ``values`` (the C module's) it reads every
    attribute in one call instead of a ``node.get`` each."""
    namespace: dict[str, Any] = {
        "new_view": new_view,
        "NodeAttributes": NodeAttributes,
        "FLAG": _FLAG,
        "BOUNDS": schema.bounds[1],
        "SWITCHES": schema.switch_types,
        "VALUES": values,
        "NAMES": tuple(name.encode("utf-8") for name in read_names(schema)),
    }
    source = _builder_source(schema, values is not None)
    exec(compile(source, "<element builder>", "exec"), namespace)
    build: Builder = namespace["build"]
    return build


def native_builder(schema: Schema, module: ModuleType) -> Builder:
    """``schema``'s element builder in C (``module.build``): the table the straight-line Python
    builder is written from, as indexes into :func:`read_names`. Each rule keeps its meaning:
    the first non-empty attribute of a field (the element's name last for ``type``), ``"false"``
    disables or hides, a flag is ``BOOL`` of its attribute, a switch is checked when its value is
    ``"1"``, and bounds come from the schema's own function."""
    names = read_names(schema)

    def at(keys: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(names.index(key) for key in keys)

    bound_names, bounds = schema.bounds
    spec = (
        LazyElement,
        view_slots(),
        tuple(name.encode("utf-8") for name in names),
        tuple(at(keys) for keys in schema.plan),
        (at(bound_names), bounds),
        names.index(schema.enabled),
        at(schema.visible),
        tuple(None if name is None else names.index(name) for name in schema.flag_names),
        schema.switch_types or None,
        NodeAttributes,
    )
    return partial(module.build, module.compile_builder(spec))


def element_builder(schema: Schema) -> Builder:
    """``schema``'s element builder, ``build(source, node)``, for the way this process reads
    trees (:mod:`.native`): made on first use, then the same function."""
    module = native.NATIVE
    key = (id(schema), module is not None)
    hit = _builders.get(key)
    if hit is None or hit[0] is not schema:
        build = _builder(schema, None) if module is None else native_builder(schema, module)
        hit = _builders[key] = (schema, build)
    return hit[1]


def element_view(schema: Schema, source: TreeSource, node: Any) -> LazyElement:
    """The element ``node`` stands for in ``schema``'s format; its children come from ``source``."""
    return element_builder(schema)(source, node)


# Per group: (attribute or None for the element's name, whether the name stands in when the
# attribute is empty, ((equals?, needle), …)).
Plan = tuple[tuple[tuple[str | None, bool, tuple[tuple[bool, str], ...]], ...], ...]


def query_plan(schema: Schema, query: Query) -> Plan:
    """``query`` in ``schema``'s attribute names.

    Per group, ``(attribute or None for the name, name stands in?, ((equals?, needle), …))``:
    each attribute a field comes from, read once per element, with the tests on it (a superset: a
    field's value is one of its attributes). Where the element's name is a field's last source
    (Android's ``type``: ``class``, else the name) it is read only when the attribute before it
    is empty, as the builder does. A "contains" test whose needle holds another one of the same
    field in its group is left out: the shorter needle admits every element the longer would.
    """
    groups = []
    for group in query:
        by_attr: dict[tuple[str | None, bool], list[tuple[bool, str]]] = {}
        for name, op, needle in group:
            if op == "~" and any(
                f == name and o == "~" and n and n != needle and n in needle for f, o, n in group
            ):
                continue
            sources = schema.fields[name]
            named = len(sources) > 1 and sources[-1] == TAG  # the name after an attribute
            for i, raw in enumerate(sources[:-1] if named else sources):
                slot = (None, False) if raw == TAG else (raw, named and i == len(sources) - 2)
                by_attr.setdefault(slot, []).append((op == "=", needle))
        groups.append(tuple((attr, named, tuple(tests)) for (attr, named), tests in by_attr.items()))
    return tuple(groups)
