"""What every UI-tree parser shares: limits, the parse result, fast value construction.

Nothing here knows a platform. Elements are built on demand (:mod:`core.lazy`) through
:func:`new_view`, and bounds through :func:`new_bounds`, which fill the frozen dataclasses' slots
directly (about three times cheaper than their generated ``__init__``). If either class ever gains
validation (``__post_init__``) or new fields, :func:`new_bounds` falls back to the constructor and
:func:`new_view` refuses (``TypeError``), so that the tests notice.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from ...core.lazy import LazyElement, TreeSource
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
    "new_bounds",
    "new_view",
    "rect_bounds",
    "view_slots",
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
    """A parser's result, before it becomes a Scene (``element_count`` counts every element read,
    an Appium wrapper included)."""

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


_VIEW_SOURCE: Final[Any] = vars(LazyElement)["_source"]
_VIEW_NODE: Final[Any] = vars(LazyElement)["_node"]


def view_slots() -> tuple[Any, ...]:
    """The slot descriptors :func:`new_view` fills, in the order of its arguments (every field of
    :class:`UIElement` but ``children``), then the view's source and node: what an element
    builder in C sets (``_native.build``)."""
    if _ELEMENT_SETTERS is None:  # pragma: no cover - only if UIElement changes shape
        raise TypeError("UIElement changed shape: update common._ELEMENT_FIELDS")
    fields = tuple(vars(UIElement)[name] for name in _ELEMENT_FIELDS if name != "children")
    return (*fields, _VIEW_SOURCE, _VIEW_NODE)


def new_view(
    source: TreeSource,
    node: object,
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
    attributes: Mapping[str, str],
) -> LazyElement:
    """A :class:`LazyElement` of ``node`` whose children ``source`` builds when first read."""
    if _ELEMENT_SETTERS is None:  # pragma: no cover - only if UIElement changes shape
        raise TypeError("UIElement changed shape: update common._ELEMENT_FIELDS")
    el = _new(LazyElement)
    (s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, _, s16) = _ELEMENT_SETTERS
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
    s16(el, attributes)
    _VIEW_SOURCE.__set__(el, source)
    _VIEW_NODE.__set__(el, node)
    return el
