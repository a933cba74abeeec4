"""The loop a query runs over lxml nodes, written out once per shape of plan.

A :data:`~.schema.Plan` says which raw attributes to read and what to test on each. Interpreting
it node by node (a loop over groups, over attributes, over tests) cost more than the attribute
reads themselves: about 60% more than the same test written out by hand. :func:`walker` writes
that loop out as Python source for each *shape* of plan (the attributes, whether the element's
name stands in for an empty one, which tests are "equals" and which "contains") and compiles it
once; the needles are the walker's arguments, never part of its source, so a selector's text is
never code. The attribute names in the source are the format tables' own (:mod:`.schema`),
quoted with ``repr``. Where the C module is loaded (:mod:`.native`), XML queries run there
instead, on the same plans (:func:`native_plan`); these walkers stay the reference, and answer
JSON sources and the queries C strings cannot spell.

For the title rule's plan (one group: ``class`` contains Toolbar or ActionBar, else
``resource-id`` contains one of three words) the walker writes::

    def walk(nodes, view, needles):
        n0, n1, n2, n3, n4 = needles
        for node in nodes:
            get = node.get
            if ((v := (get('class') or node.tag)) and (n0 in v or n1 in v)) or (
                (v := get('resource-id')) and (n2 in v or n3 in v or n4 in v)):
                yield view(node)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, Final

from ...core.lazy import LazyElement, Query
from .schema import Plan, Schema, query_plan

__all__ = ["Walker", "attribute_plan", "compiled", "native_plan", "walker"]

# (nodes, the source's view, the plan's needles in order) -> the views of the nodes that pass
Walker = Callable[[Iterable[Any], Callable[[Any], LazyElement], tuple[str, ...]], Iterator[LazyElement]]
Shape = tuple[bool, tuple[tuple[tuple[str | None, bool, tuple[bool, ...]], ...], ...]]

_MAX_WALKERS: Final = 256
_MAX_QUERIES: Final = 1024
_walkers: dict[Shape, Walker] = {}
_queries: dict[tuple[int, Query], tuple[Walker, tuple[str, ...]]] = {}
_plans: dict[tuple[int, int], tuple[Query, Any]] = {}
_attribute_plans: dict[str, Any] = {}
_UNFIT: Final = object()  # a query C strings cannot spell: a needle with NUL or a lone surrogate
_lock = threading.Lock()


def _source(shape: Shape) -> str:
    scalars, plan = shape
    needles = 0
    groups: list[str] = []
    for group in plan:
        slots: list[str] = []
        for attr, named, equals in group:
            if attr is None:
                read = "node.tag"
            elif named:
                read = f"(get({attr!r}) or node.tag)"
            else:
                read = f"get({attr!r})"
            tests = []
            for equal in equals:
                tests.append(f"v == n{needles}" if equal else f"n{needles} in v")
                needles += 1
            tested = " or ".join(tests)
            if scalars:  # a number or a flag passes: its element's string is made when it is built
                slots.append(
                    f"((v := {read}) is not None and (v.__class__ is not str or (v and ({tested}))))"
                )
            else:
                slots.append(f"((v := {read}) and ({tested}))")
        groups.append(f"({' or '.join(slots)})" if slots else "False")  # no attribute: never holds
    names = "".join(f"n{i}, " for i in range(needles))
    unpack = f"    {names}= needles\n" if needles else ""
    return (
        "def walk(nodes, view, needles):\n"
        f"{unpack}"
        "    for node in nodes:\n"
        "        get = node.get\n"
        f"        if {' and '.join(groups)}:\n"
        "            yield view(node)\n"
    )


def walker(plan: Plan, *, scalars: bool = False) -> tuple[Walker, tuple[str, ...]]:
    """The compiled loop for ``plan``'s shape, and the needles to call it with. ``scalars``: the
    nodes are JSON objects, whose values may be numbers or flags where a string was expected;
    those pass every test (a superset: the element's string is made when it is built)."""
    shape: Shape = (
        scalars,
        tuple(
            tuple((attr, named, tuple(equal for equal, _ in tests)) for attr, named, tests in group)
            for group in plan
        ),
    )
    needles = tuple(needle for group in plan for _, _, tests in group for _, needle in tests)
    walk = _walkers.get(shape)
    if walk is None:
        namespace: dict[str, Any] = {}
        exec(compile(_source(shape), f"<walker {len(plan)} groups>", "exec"), namespace)
        walk = namespace["walk"]
        with _lock:
            if len(_walkers) >= _MAX_WALKERS:
                _walkers.clear()
            _walkers[shape] = walk
    return walk, needles


def compiled(schema: Schema, query: Query) -> tuple[Walker, tuple[str, ...]]:
    """:func:`walker` of ``query``'s plan in ``schema``, remembered per query (a rule asks the same
    query every step; a selector's, as long as the selector is the same)."""
    key = (id(schema), query)
    hit = _queries.get(key)
    if hit is None:
        hit = walker(query_plan(schema, query))
        with _lock:
            if len(_queries) >= _MAX_QUERIES:
                _queries.clear()
            _queries[key] = hit
    return hit


def _encoded(plan: Plan) -> tuple[Any, ...] | None:
    """``plan`` with its names and needles in UTF-8, or None when one cannot be a C string."""
    try:
        encoded = tuple(
            tuple(
                (
                    None if attr is None else attr.encode("utf-8"),
                    named,
                    tuple((equals, needle.encode("utf-8")) for equals, needle in tests),
                )
                for attr, named, tests in group
            )
            for group in plan
        )
    except UnicodeEncodeError:
        return None
    spelled = [t for group in encoded for a, _, tests in group for t in (a or b"", *(n for _, n in tests))]
    return None if any(b"\0" in t for t in spelled) else encoded


def native_plan(module: ModuleType, schema: Schema, query: Query) -> Any | None:
    """``query``'s plan in ``schema`` compiled for ``module.next_match`` (the C module's),
    remembered per query object (a rule's query is a constant, a selector's is made once per
    selector; keyed by identity, so that a step does not hash the nested tuple again); None for a
    query whose needle holds a NUL (no XML value does) or a lone surrogate, which the Python
    walker then answers."""
    key = (id(schema), id(query))
    hit = _plans.get(key)
    if hit is None or hit[0] is not query:
        encoded = _encoded(query_plan(schema, query))
        hit = (query, _UNFIT if encoded is None else module.compile_plan(encoded))
        with _lock:
            if len(_plans) >= _MAX_QUERIES:
                _plans.clear()
            _plans[key] = hit  # the entry keeps the query alive: its id is not reused meanwhile
    return None if hit[1] is _UNFIT else hit[1]


def attribute_plan(module: ModuleType, name: str) -> Any:
    """A plan for ``module.next_match`` passing the elements whose raw attribute ``name`` is not
    empty (a superset, as every plan: the caller reads the value)."""
    hit = _attribute_plans.get(name)
    if hit is None:
        hit = module.compile_plan((((name.encode("utf-8"), False, ((False, b""),)),),))
        with _lock:
            if len(_attribute_plans) >= _MAX_QUERIES:
                _attribute_plans.clear()
            _attribute_plans[name] = hit
    return hit
