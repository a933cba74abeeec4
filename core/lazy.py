"""Elements built on demand from a parsed document, and the queries that run without building them.

A parser (``drivers.hierarchy``) keeps the document it read (an lxml tree, the dicts of a JSON
source) behind a :class:`TreeSource` and hands out :class:`LazyElement` views: an element's fields
are read from its node when the element is built, its ``children`` only when first asked for. A
``LazyElement`` *is* a :class:`~core.models.UIElement`: equal (``==``, ``hash``) to the eagerly
built element of the same input, frozen, and pickled or copied as a plain ``UIElement``.

The whole-tree questions a step asks (which elements might match a selector, how many elements,
which texts, the first value of a raw attribute) go to the source through :func:`candidates`,
:func:`count`, :func:`texts` and :func:`first_attribute`, which
answer natively over the document; for a tree of plain ``UIElement`` (built by hand, by
``sim.scene``) they walk it in Python. Either way the answer is the same.

A :data:`Query` says what an element must hold for a caller to look at it: every group must
hold (AND) and a group holds when one of its ``(field, op, needle)`` tests does (OR): the
field's value equals the needle (``"="``) or contains it (``"~"``; an empty needle: the field is
not empty). Answers are a superset, in document order, of the elements the caller wants, always
starting with the element asked about: the caller applies its exact rule to each (one rule,
spelled once, whichever way the tree was built).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Final, Literal, Protocol

from .models import UIElement

__all__ = [
    "Field",
    "LazyElement",
    "Op",
    "Query",
    "Test",
    "TreeSource",
    "ViewCache",
    "candidates",
    "count",
    "first",
    "first_attribute",
    "matches_query",
    "set_children",
    "texts",
]

Field = Literal["type", "text", "label", "identifier", "value"]
Op = Literal["=", "~"]
Test = tuple[Field, Op, str]
Query = tuple[tuple[Test, ...], ...]

_CHILDREN: Final[Any] = vars(UIElement)["children"]  # the slot the property below stands in for
_FIELDS: Final = tuple(UIElement.__match_args__)


class TreeSource(Protocol):
    """What a parsed document answers about the subtree under one of its nodes."""

    def children_of(self, el: LazyElement) -> tuple[UIElement, ...]:
        """The views of ``el``'s children (the same objects on every call)."""
        ...

    def count(self, el: LazyElement) -> int:
        """How many elements ``el``'s subtree holds, ``el`` included."""
        ...

    def candidates(self, el: LazyElement, query: Query) -> Iterator[UIElement]:
        """``el``, then its descendants that satisfy ``query``, in document order (built as the
        caller goes: one that stops at the first it wants builds no more)."""
        ...

    def texts(self, el: LazyElement) -> list[str]:
        """The ``display_text`` of every visible descendant of ``el`` that has one, in order."""
        ...

    def first_attribute(self, el: LazyElement, name: str) -> str | None:
        """The first non-empty raw attribute ``name`` of a descendant of ``el``, in document order."""
        ...


class LazyElement(UIElement):
    """A :class:`UIElement` whose children are built from its source when first read."""

    __slots__ = ("__weakref__", "_node", "_source")

    _source: TreeSource
    _node: Any

    @property
    def children(self) -> tuple[UIElement, ...]:
        try:
            kids: tuple[UIElement, ...] = _CHILDREN.__get__(self)
        except AttributeError:
            kids = self._source.children_of(self)
        return kids

    @children.setter
    def children(self, value: tuple[UIElement, ...]) -> None:
        _CHILDREN.__set__(self, value)

    def __repr__(self) -> str:
        # Shown as the plain element it equals (children read in full, as for a UIElement).
        return "UIElement" + UIElement.__repr__(self)[len("LazyElement") :]

    def __reduce__(self) -> tuple[type[UIElement], tuple[Any, ...]]:
        # Pickled and copied as the plain element it equals: the document stays behind.
        return UIElement, tuple(getattr(self, name) for name in _FIELDS)


class ViewCache:
    """The views a source has built, by node, held weakly.

    A view holds its source (to build its children); were the source to hold its views strongly,
    every parsed Scene would be a reference cycle, freed only when the garbage collector's oldest
    generation runs: a long task dropping a Scene per step then held tens of MiB of dropped lxml
    trees between full collections. Held weakly, a view lives while its parent's children, its
    Scene or a caller hold it (the same object on every call meanwhile), and a Scene nobody holds is
    freed at once by reference counting. Not locked: a source calls it under its own lock.
    """

    __slots__ = ("_refs",)

    def __init__(self) -> None:
        self._refs: dict[Hashable, weakref.ref[LazyElement]] = {}

    def get(self, key: Hashable) -> LazyElement | None:
        """The live view of ``key``, or None."""
        ref = self._refs.get(key)
        return ref() if ref is not None else None

    def put(self, key: Hashable, el: LazyElement) -> None:
        self._refs[key] = weakref.ref(el)


def set_children(el: LazyElement, children: tuple[UIElement, ...]) -> None:
    """Fix ``el``'s children (a source does it once, when they are first read)."""
    _CHILDREN.__set__(el, children)


def _values(el: UIElement, field: Field) -> str | None:
    return el.identifier if field == "identifier" else getattr(el, field)


def matches_query(el: UIElement, query: Query) -> bool:
    """Whether ``el`` itself satisfies ``query`` (see the module docstring)."""
    for group in query:
        for field, op, needle in group:
            value = _values(el, field)
            if value and (value == needle if op == "=" else needle in value):
                break
        else:
            return False
    return True


def _source(el: UIElement) -> TreeSource | None:
    return el._source if type(el) is LazyElement else None


def candidates(el: UIElement, query: Query) -> Iterator[UIElement]:
    """``el`` and the descendants that may satisfy ``query`` (a superset), in document order."""
    source = _source(el)
    if source is not None and query:
        return source.candidates(el, query)  # type: ignore[arg-type]
    return el.iter() if not query else _walk(el, query)


def first(
    el: UIElement, query: Query, match: Callable[[UIElement], bool], index: int = 0
) -> UIElement | None:
    """The ``index``-th element under ``el`` (itself included) that ``match`` accepts among the
    candidates of ``query``, built no further than needed."""
    for found in candidates(el, query):
        if match(found):
            if index == 0:
                return found
            index -= 1
    return None


def _walk(el: UIElement, query: Query) -> Iterator[UIElement]:
    it = el.iter()
    yield next(it)
    for node in it:
        if matches_query(node, query):
            yield node


def count(el: UIElement) -> int:
    """How many elements ``el``'s subtree holds, itself included."""
    source = _source(el)
    if source is not None:
        return source.count(el)  # type: ignore[arg-type]
    return sum(1 for _ in el.iter())


def texts(el: UIElement) -> list[str]:
    """The readable text of every visible element under ``el`` (itself included), in order."""
    source = _source(el)
    if source is None:
        return [node.display_text for node in el.iter() if node.visible and node.display_text]
    own = [el.display_text] if el.visible and el.display_text else []
    return own + source.texts(el)  # type: ignore[arg-type]


def first_attribute(el: UIElement, name: str) -> str | None:
    """The first non-empty raw attribute ``name`` under ``el`` (itself first), or None; no
    element is built on the way."""
    own = el.attributes.get(name)
    if own:
        return own
    source = _source(el)
    if source is not None:
        return source.first_attribute(el, name)  # type: ignore[arg-type]
    return next((v for node in el.iter() if (v := node.attributes.get(name))), None)
