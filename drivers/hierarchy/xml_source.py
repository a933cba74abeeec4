"""The safe XML parse, and the lxml tree behind a Scene.

:func:`parse_xml` reads a document with a plain lxml parser (no Python callback per element: the
C tree is the whole cost) that never reads a DTD, never expands an entity, never touches the
network or a file and never recovers a broken document, then checks the element and depth caps
natively (and, for Android, whether every ``bounds`` is plainly ``[int,int][int,int]``). Every
failure leaves as a :class:`~core.errors.SceneParseError` naming the format and where reading
stopped.

:class:`XmlSource` keeps the tree and builds :class:`~core.lazy.LazyElement` views of its nodes
on demand (one view per node, the same object every time), and answers the whole-tree questions
of :mod:`core.lazy` from the format's :class:`~.schema.Schema`: a walk over the nodes that builds
no element until one passes, in C where the C module is loaded (:mod:`.native`), else a loop over
lxml's nodes (:mod:`.walk`) and counts in XPath.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any, Final

from lxml import etree

from ...core.errors import SceneParseError
from ...core.lazy import LazyElement, Query, ViewCache, set_children
from ...core.models import UIElement
from . import native
from .common import DEFAULT_MAX_DEPTH, Limits, SourceFormat
from .schema import Schema, element_builder, shown
from .walk import attribute_plan, compiled, native_plan

__all__ = ["XmlSource", "element_position", "first_below", "parse_xml"]

_SAFE_PARSER_OPTIONS: Final[dict[str, Any]] = {
    "encoding": "utf-8",  # the caller hands over UTF-8 whatever the XML declaration says
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,  # libxml2 then refuses more than 256 levels and 10 MB text nodes itself
    "recover": False,
    "remove_comments": True,
    "remove_pis": True,
    "collect_ids": False,
}

_LIBXML_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")
_TOO_DEEP = "Excessive depth"  # libxml2's message past 256 levels without huge_tree
_COUNT_ALL: Final[Any] = etree.XPath("count(//*)")
_COUNT_BELOW: Final[Any] = etree.XPath("count(descendant::*)")
_POSITION: Final[Any] = etree.XPath("count(preceding::*) + count(ancestor-or-self::*)")
_BOUNDS: Final = b"bounds"


class _RefuseExternal(etree.Resolver):
    """Fails the parse instead of letting libxml2 open a file or URL.

    libxml2 (2.14) opens the external subset and external parameter entities of a DOCTYPE even
    with ``load_dtd=False`` and ``resolve_entities=False``. :func:`parse_xml`'s callers refuse
    DOCTYPEs before parsing; this is the second line of defence.
    """

    def resolve(self, system_url: str, public_id: str, context: object) -> Any:  # type: ignore[override]  # lxml-stubs omit context
        raise SceneParseError(f"the document asks for an external resource ({system_url[:80]!r}); refused")


_REFUSE_EXTERNAL: Final = _RefuseExternal()
_parsers = threading.local()  # lxml parsers are not thread-safe: one per thread


def _parser() -> etree.XMLParser:
    parser: etree.XMLParser | None = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = etree.XMLParser(**_SAFE_PARSER_OPTIONS)
        parser.resolvers.add(_REFUSE_EXTERNAL)
    return parser


def element_position(node: Any) -> str:
    """Where ``node`` is, as the errors say it: its number in document order (the root is 1)."""
    return f"element {int(_POSITION(node))}"


def first_below(node: Any, name: str) -> str | None:
    """The first non-empty attribute ``name`` of a descendant of ``node``, in document order (a
    walk: on a real dump the first descendant has it, which XPath takes a microsecond to say)."""
    module = native.NATIVE
    if module is not None:
        plan = attribute_plan(module, name)
        below = module.next_match(node, node, plan)
        while below is not None:
            found: str | None = below.get(name)
            if found:
                return found
            below = module.next_match(node, below, plan)  # pragma: no cover - a value of several nodes
        return None
    for below in node.iterdescendants():
        value: str | None = below.get(name)
        if value:
            return value
    return None


# A bounds attribute in the raw bytes that is not "[int,int][int,int]": searching for one runs
# in C at memory speed; only when there is one (entities, spaces, garbage) are the elements'
# bounds checked one by one.
_ODD_BOUNDS_BYTES: Final = re.compile(rb"""bounds\s*=\s*(["'])(?!\[-?\d+,-?\d+\]\[-?\d+,-?\d+\]\1)""")
_NAME_BYTES: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")


def _odd_bounds(data: bytes) -> bool:
    """Whether a ``bounds`` attribute in ``data`` may not be ``[digits,digits][digits,digits]``."""
    for match in _ODD_BOUNDS_BYTES.finditer(data):
        start = match.start()
        if start == 0 or data[start - 1] not in _NAME_BYTES:  # not the end of another name
            return True
    return False


def _depth_xpath(depth: int) -> Any:
    return etree.XPath("(/*" + "/*" * depth + ")[1]")  # the first element nested deeper than depth


def parse_xml(
    data: bytes, fmt: SourceFormat, limits: Limits, *, plain_bounds: bool = False
) -> tuple[Any, int, bool]:
    """The root element of UTF-8 ``data``, how many elements it holds (within ``limits``), and,
    with ``plain_bounds``, whether a descendant's ``bounds`` attribute may not be plainly
    ``[int,int][int,int]`` (True when unsure: the caller then reads each one); any failure is a
    ``SceneParseError``.

    The caller has already refused DOCTYPE declarations; the parser is configured so that even
    a declaration slipping through would neither load nor expand anything.
    """
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position
        message = _LIBXML_SUFFIX.sub("", exc.msg or str(exc)).strip()
        if message.startswith(_TOO_DEEP):
            raise SceneParseError(
                f"the tree is nested deeper than {min(limits.max_depth, DEFAULT_MAX_DEPTH)} levels",
                format=fmt,
                position=f"line {line}:{column}",
            ) from exc
        raise SceneParseError(
            f"malformed XML: {message}", format=fmt, position=f"line {line}:{column}"
        ) from exc
    module = native.NATIVE
    if module is not None:  # one walk in C: the count and the bounds
        count, odd = module.scan(root, _BOUNDS if plain_bounds else None)
    else:
        count, odd = int(_COUNT_ALL(root)), plain_bounds and _odd_bounds(data)
    if count > limits.max_elements:
        raise SceneParseError(
            f"the tree has more than {limits.max_elements} elements",
            format=fmt,
            position=f"element {limits.max_elements + 1}",
        )
    if limits.max_depth < DEFAULT_MAX_DEPTH:
        too_deep = _depth_xpath(limits.max_depth)(root)
        if too_deep:
            raise SceneParseError(
                f"the tree is nested deeper than {limits.max_depth} levels",
                format=fmt,
                position=element_position(too_deep[0]),
            )
    return root, count, odd


class XmlSource:
    """The lxml tree behind one Scene; see the module docstring."""

    __slots__ = ("_build", "_lock", "_views", "schema")

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._build = element_builder(schema)
        self._views = ViewCache()
        self._lock = threading.RLock()

    def adopt(self, node: Any, el: LazyElement) -> None:
        """Make ``el`` the view of ``node`` (a root a parser built itself)."""
        self._views.put(node, el)

    def view(self, node: Any) -> LazyElement:
        """The element of ``node``, built on first use."""
        el = self._views.get(node)
        if el is None:
            with self._lock:
                el = self._view(node)
        return el

    def _view(self, node: Any) -> LazyElement:
        """:meth:`view`, the lock held."""
        views = self._views
        el = views.get(node)
        if el is None:
            el = self._build(self, node)
            views.put(node, el)
        return el

    def children_of(self, el: LazyElement) -> tuple[UIElement, ...]:
        with self._lock:
            view = self._view
            kids: tuple[UIElement, ...] = tuple([view(child) for child in el._node])
            set_children(el, kids)
        return kids

    def count(self, el: LazyElement) -> int:
        module = native.NATIVE
        if module is not None:
            counted: int = module.scan(el._node, None)[0]
            return counted
        return 1 + int(_COUNT_BELOW(el._node))

    def candidates(self, el: LazyElement, query: Query) -> Iterator[UIElement]:
        yield el
        # lxml's iteration and attribute reads beat libxml2's XPath string tests several times
        # over (measured: 49 µs against 183 µs on a 106-node dump), so the walk is a loop over
        # nodes that builds no element until one passes: in C (.native), else written out in
        # Python for the plan (.walk).
        top = el._node
        module = native.NATIVE
        plan = None if module is None else native_plan(module, self.schema, query)
        if module is not None and plan is not None:
            view, next_match = self.view, module.next_match
            node = next_match(top, top, plan)
            while node is not None:
                yield view(node)
                node = next_match(top, node, plan)
            return
        walk, needles = compiled(self.schema, query)
        yield from walk(top.iterdescendants(), self.view, needles)

    def first_attribute(self, el: LazyElement, name: str) -> str | None:
        return first_below(el._node, name)

    def texts(self, el: LazyElement) -> list[str]:
        schema = self.schema
        display = schema.display
        out: list[str] = []
        for node in el._node.iterdescendants():
            get = node.get
            text = next(filter(None, map(get, display)), None)
            if text and shown(schema, get):
                out.append(text)
        return out
