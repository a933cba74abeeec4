"""What every UI-tree parser shares: limits, the safe XML parser, fast value construction.

Nothing here knows a platform. The XML parser this module builds never reads a DTD, never
expands an entity, never touches the network or a file and never recovers a broken document;
every failure leaves as a :class:`~core.errors.SceneParseError` naming the format and where
reading stopped.

The per-node hot path builds :class:`~core.models.UIElement` and :class:`~core.models.Bounds`
through :func:`new_element` / :func:`new_bounds`, which fill the frozen dataclasses' slots
directly (about three times cheaper than their generated ``__init__``). They fall back to the
normal constructors if either class ever gains validation (``__post_init__``) or new fields.
"""

from __future__ import annotations

import dataclasses
import math
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, cast

from lxml import etree

from ...core.errors import SceneParseError
from ...core.models import Bounds, Platform, UIElement

__all__ = [
    "BOOL",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "EMPTY",
    "Limits",
    "ParsedTree",
    "SourceFormat",
    "StreamingTarget",
    "XmlTarget",
    "ampersand_refs",
    "new_bounds",
    "new_element",
    "parse_xml",
    "rect_bounds",
    "restore_ampersands",
]

SourceFormat = Literal["uiautomator", "appium-uiautomator2", "wda-xml", "appium-xcuitest", "wda-json"]

DEFAULT_MAX_BYTES: Final = 20 * 1024 * 1024
# libxml2 refuses documents deeper than 256 levels unless huge_tree is on (it is not).
DEFAULT_MAX_DEPTH: Final = 256
DEFAULT_MAX_ELEMENTS: Final = 250_000

BOOL: Final[Mapping[str | None, bool]] = {"true": True, "false": False}


@dataclass(frozen=True, slots=True)
class Limits:
    """How much input a parse accepts before it gives up with ``SceneParseError``."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    max_elements: int = DEFAULT_MAX_ELEMENTS

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_depth", "max_elements"):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, got {val!r}")


@dataclass(frozen=True, slots=True)
class ParsedTree:
    """A parser's result, before it becomes a Scene."""

    root: UIElement
    platform: Platform
    format: SourceFormat
    window_size: tuple[int, int]
    foreground_app: str | None
    element_count: int


# --- fast construction of frozen values --------------------------------------------------------

_new = object.__new__


def _slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[object, object], None], ...] | None:
    """The slot descriptors' setters in ``names`` order, or None when the fast path is unsafe."""
    fields = tuple(f.name for f in dataclasses.fields(cls))
    if fields != names or hasattr(cls, "__post_init__") or getattr(cls, "__slots__", None) != names:
        return None
    return tuple(getattr(cls, name).__set__ for name in names)


_ELEMENT_FIELDS: Final = (
    "type",
    "text",
    "label",
    "identifier",
    "value",
    "bounds",
    "enabled",
    "visible",
    "clickable",
    "focusable",
    "focused",
    "selected",
    "checked",
    "scrollable",
    "password",
    "children",
    "attributes",
)
_ELEMENT_SETTERS = _slot_setters(UIElement, _ELEMENT_FIELDS)
_BOUNDS_SETTERS = _slot_setters(Bounds, ("left", "top", "right", "bottom"))


def new_bounds(left: int, top: int, right: int, bottom: int) -> Bounds:
    """``Bounds(left, top, right, bottom)``, built without the dataclass ``__init__``."""
    if _BOUNDS_SETTERS is None:  # pragma: no cover - only if Bounds changes shape
        return Bounds(left, top, right, bottom)
    b = _new(Bounds)
    s_left, s_top, s_right, s_bottom = _BOUNDS_SETTERS
    s_left(b, left)
    s_top(b, top)
    s_right(b, right)
    s_bottom(b, bottom)
    return b


EMPTY: Final = new_bounds(0, 0, 0, 0)


def _whole(number: float) -> int:
    if isinstance(number, int):
        return number
    return round(number) if math.isfinite(number) else 0


def rect_bounds(x: float, y: float, width: float, height: float) -> Bounds:
    """Like :meth:`Bounds.from_rect` (origin and size, rounded); NaN and infinities count as 0."""
    left, top = _whole(x), _whole(y)
    return new_bounds(left, top, left + _whole(width), top + _whole(height))


def new_element(
    type_: str,
    text: str | None,
    label: str | None,
    identifier: str | None,
    value: str | None,
    bounds: Bounds,
    enabled: bool,
    visible: bool,
    clickable: bool | None,
    focusable: bool | None,
    focused: bool | None,
    selected: bool | None,
    checked: bool | None,
    scrollable: bool | None,
    password: bool | None,
    children: tuple[UIElement, ...],
    attributes: Mapping[str, str],
) -> UIElement:
    """A :class:`UIElement` equal to the one its constructor would build from the same values."""
    if _ELEMENT_SETTERS is None:  # pragma: no cover - only if UIElement changes shape
        return UIElement(
            type_,
            text,
            label,
            identifier,
            value,
            bounds,
            enabled,
            visible,
            clickable,
            focusable,
            focused,
            selected,
            checked,
            scrollable,
            password,
            children,
            attributes,
        )
    el = _new(UIElement)
    (s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16) = _ELEMENT_SETTERS
    s0(el, type_)
    s1(el, text)
    s2(el, label)
    s3(el, identifier)
    s4(el, value)
    s5(el, bounds)
    s6(el, enabled)
    s7(el, visible)
    s8(el, clickable)
    s9(el, focusable)
    s10(el, focused)
    s11(el, selected)
    s12(el, checked)
    s13(el, scrollable)
    s14(el, password)
    s15(el, children)
    s16(el, attributes)
    return el


# --- the safe XML parser -------------------------------------------------------------------------


_AMPERSAND_REFS = re.compile(rb"&(?:amp|#0*38|#x0*26);")
_FLAG = BOOL.get


def ampersand_refs(data: bytes) -> int:
    """How many references to ``&`` (``&amp;``, ``&#38;``, ``&#x26;``) the document holds."""
    return len(_AMPERSAND_REFS.findall(data)) if b"&" in data else 0


def restore_ampersands(attrib: dict[str, str]) -> int:
    """Undo libxml2's re-escaping of ``&`` in attribute values, in place; returns how many.

    With ``resolve_entities=False`` a parser target receives every ``&`` of a decoded value as
    the five characters ``&#38;`` (``&amp;`` -> ``&#38;``, ``&amp;#38;`` -> ``&#38;#38;``), so
    replacing them back is exact. Each one stands for one reference counted by
    :func:`ampersand_refs`, so a target can stop looking once it has seen them all.
    """
    if "&" not in "".join(attrib.values()):
        return 0
    restored = 0
    for key, value in attrib.items():
        if "&" in value:
            restored += value.count("&#38;")
            attrib[key] = value.replace("&#38;", "&")
    return restored


class XmlTarget(Protocol):
    """An lxml parser target that builds a :class:`ParsedTree` while the document streams by.

    One instance serves many parses on one thread: :meth:`reset` starts a parse, :meth:`release`
    drops everything the last one built.
    """

    def reset(self, fmt: SourceFormat, limits: Limits, ampersands: int) -> None: ...

    def release(self) -> None: ...

    def start(self, tag: str, attrib: dict[str, str]) -> None: ...

    def end(self, tag: str) -> None: ...

    def close(self) -> ParsedTree | None:
        """The tree, or None when the root never closed; must not raise (see :func:`parse_xml`)."""
        ...


class StreamingTarget:
    """What every :class:`XmlTarget` shares: the element and depth caps checked as each element
    opens, and the "&" references still to restore. A subclass builds its platform's tree in
    ``end()`` and ``close()``; a frame on ``_stack`` is ``[tag, attrib, ordinal, child, child, …]``."""

    __slots__ = ("_amp", "_count", "_fmt", "_max_depth", "_max_elements", "_result", "_stack")

    def __init__(self, fmt: SourceFormat) -> None:
        self._fmt: SourceFormat = fmt
        self._max_depth = self._max_elements = 0
        self._stack: list[list[Any]] = []
        self._count = 0
        self._amp = 0  # "&" references still to restore (see restore_ampersands)
        self._result: ParsedTree | None = None

    def reset(self, fmt: SourceFormat, limits: Limits, ampersands: int) -> None:
        self._fmt = fmt
        self._max_depth = limits.max_depth
        self._max_elements = limits.max_elements
        self._amp = ampersands
        self.release()

    def release(self) -> None:
        self._stack = []
        self._count = 0
        self._result = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        count = self._count = self._count + 1
        stack = self._stack
        if count > self._max_elements:
            raise SceneParseError(
                f"the tree has more than {self._max_elements} elements",
                format=self._fmt,
                position=f"element {count}",
            )
        if len(stack) >= self._max_depth:
            raise SceneParseError(
                f"the tree is nested deeper than {self._max_depth} levels",
                format=self._fmt,
                position=f"element {count}",
            )
        if self._amp:
            self._amp -= restore_ampersands(attrib)
        stack.append([tag, attrib, count])


_SAFE_PARSER_OPTIONS: Final[dict[str, Any]] = {
    "encoding": "utf-8",  # the caller hands over UTF-8 whatever the XML declaration says
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "recover": False,
    "remove_comments": True,
    "remove_pis": True,
    "collect_ids": False,
}

_LIBXML_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")


class _RefuseExternal(etree.Resolver):
    """Fails the parse instead of letting libxml2 open a file or URL.

    libxml2 (2.14) opens the external subset and external parameter entities of a DOCTYPE even
    with ``load_dtd=False`` and ``resolve_entities=False``. :func:`parse_xml`'s callers refuse
    DOCTYPEs before parsing; this is the second line of defence.
    """

    def resolve(self, system_url: str, public_id: str, context: object) -> Any:  # type: ignore[override]  # lxml-stubs omit context
        raise SceneParseError(f"the document asks for an external resource ({system_url[:80]!r}); refused")


_REFUSE_EXTERNAL: Final = _RefuseExternal()


_parsers = threading.local()  # lxml parsers are not thread-safe: one per thread and target kind


def _parser_for(kind: type[XmlTarget]) -> tuple[etree.XMLParser, XmlTarget]:
    """This thread's parser bound to a ``kind`` target (a fresh target parser costs ~50 µs)."""
    cache: dict[type[XmlTarget], tuple[etree.XMLParser, XmlTarget]] | None = getattr(_parsers, "cache", None)
    if cache is None:
        cache = _parsers.cache = {}
    entry = cache.get(kind)
    if entry is None:
        target = kind()
        # The stubs want data()/comment() too; defining them would make lxml call them for every
        # whitespace run of a pretty-printed dump, so the target stays minimal.
        parser = etree.XMLParser(target=cast(Any, target), **_SAFE_PARSER_OPTIONS)
        parser.resolvers.add(_REFUSE_EXTERNAL)
        entry = cache[kind] = (parser, target)
    return entry


def parse_xml(data: bytes, kind: type[XmlTarget], fmt: SourceFormat, limits: Limits) -> ParsedTree:
    """Stream UTF-8 ``data`` through a ``kind`` target; any failure is a ``SceneParseError``.

    The caller has already refused DOCTYPE declarations; the parser is configured so that even
    a declaration slipping through would neither load nor expand anything.
    """
    parser, target = _parser_for(kind)
    target.reset(fmt, limits, ampersand_refs(data))
    try:
        tree = cast("ParsedTree | None", etree.fromstring(data, parser))
    except etree.XMLSyntaxError as exc:
        line, column = exc.position
        message = _LIBXML_SUFFIX.sub("", exc.msg or str(exc)).strip()
        raise SceneParseError(
            f"malformed XML: {message}", format=fmt, position=f"line {line}:{column}"
        ) from exc
    finally:
        target.release()
    if tree is None:  # pragma: no cover - libxml2 reports an unclosed document itself
        raise SceneParseError("the document ended before its root element closed", format=fmt)
    return tree
