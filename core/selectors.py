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
- ``xpath``: an XPath 1.0 expression over a normalised view of the Scene (see :func:`core.xpath.xpath_view`):
  one XML element per UIElement, named after its native type, with the attributes ``type text label
  id value bounds enabled visible`` (and ``clickable focusable focused selected checked scrollable
  password`` where known) followed by the element's raw attributes (``resource-id``,
  ``content-desc``, ``package``, ``name``, ``x`` …). The other fields then filter what it selected.
  The view is built on first use and cached for the last few Scenes.
- ``text_matches`` / ``id_matches``: a regular expression the whole text (text, hint or
  accessibility text) / the whole id (or its part after the last ``/``) must match, ignoring case;
  a pattern that does not compile is taken literally (Maestro's ``text`` and ``id``).
- ``checked``, ``focused``, ``selected`` (and ``enabled``): the element's flag; ``width`` /
  ``height``: its size, within ``tolerance`` units.
- ``traits`` (Maestro's, a list of ``text``, ``square``, ``long_text``): the element has a text,
  is square within 3 %, has a text of more than 200 characters (:data:`TRAITS`).
- ``below``, ``above``, ``left_of``, ``right_of``, ``child_of``, ``contains_child`` (a selector
  each) and ``contains_descendants`` (a list of selectors): where it is relative to other elements.
  A selector with one of these, or with ``pick: maestro``, chooses among several matches as
  Maestro does (:mod:`core.relative`: nearest first, deepest match, clickable first, ``index`` in
  screen order, negative from the end).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, TargetNotFound
from .lazy import Query, Test, candidates, first
from .relative import full_match, line_on_screen, maestro_find, text_values

if TYPE_CHECKING:
    from .models import Bounds, Scene, UIElement

__all__ = ["PICKS", "RELATIVE_FIELDS", "TRAITS", "Selector", "short_type", "tap_point"]

_IOS_TYPE_PREFIX = "XCUIElementType"
_MAX_REGEX_LENGTH = 1000
_MAX_XPATH_LENGTH = 2000
_STRING_FIELDS = ("text", "text_contains", "text_regex", "id", "label", "type", "xpath")
_PATTERN_FIELDS = ("text_matches", "id_matches")
_FLAG_FIELDS = ("enabled", "visible", "checked", "focused", "selected")
_SIZE_FIELDS = ("width", "height", "tolerance")
RELATIVE_FIELDS = ("below", "above", "left_of", "right_of", "child_of", "contains_child")
PICKS = ("first", "maestro")
_MAX_NESTING = 8  # relative selectors inside relative selectors, at most this deep


def _has_text(el: UIElement) -> bool:
    return bool(text_values(el))


def _is_square(el: UIElement) -> bool:
    width, height = el.bounds.width, el.bounds.height
    return height > 0 and abs(1.0 - width / height) < 0.03  # 0 high: Kotlin's Infinity or NaN, false


def _has_long_text(el: UIElement) -> bool:
    return len(next(iter(text_values(el)), "")) > 200


# Maestro's element traits (maestro-orchestra-models ElementTrait.kt; maestro-client Filters.kt
# hasText / isSquare / hasLongText at dcd2f206): the text attribute set, |1 - width / height| < 0.03,
# the text attribute longer than 200 characters.
TRAITS: dict[str, Callable[[UIElement], bool]] = {
    "text": _has_text,
    "square": _is_square,
    "long_text": _has_long_text,
}


def short_type(native: str) -> str:
    """A native type's short form: ``Button`` for ``android.widget.Button`` and ``XCUIElementTypeButton``."""
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
    text_matches: str | None = None
    id_matches: str | None = None
    checked: bool | None = None
    focused: bool | None = None
    selected: bool | None = None
    width: int | None = None
    height: int | None = None
    tolerance: int | None = None
    below: Selector | None = None
    above: Selector | None = None
    left_of: Selector | None = None
    right_of: Selector | None = None
    child_of: Selector | None = None
    contains_child: Selector | None = None
    contains_descendants: tuple[Selector, ...] | None = None
    traits: tuple[str, ...] | None = None
    pick: str | None = None

    def __post_init__(self) -> None:
        for name in (*_STRING_FIELDS, *_PATTERN_FIELDS):
            val = getattr(self, name)
            if val is not None and not isinstance(val, str):
                raise ConfigError(f"selector field {name!r} must be a string, got {type(val).__name__}")
            if val == "" and name not in _PATTERN_FIELDS:  # Maestro's empty pattern: an empty text
                raise ConfigError(f"selector field {name!r} is empty; leave it out instead")
        if self.pick is not None and self.pick not in PICKS:
            raise ConfigError(f"selector field 'pick' must be one of {', '.join(PICKS)}, got {self.pick!r}")
        if self.index is not None and (
            isinstance(self.index, bool)
            or not isinstance(self.index, int)
            or (self.index < 0 and not self.maestro)
        ):
            raise ConfigError(f"selector field 'index' must be a non-negative integer, got {self.index!r}")
        for name in _FLAG_FIELDS:
            val = getattr(self, name)
            if val is not None and not isinstance(val, bool):
                raise ConfigError(f"selector field {name!r} must be true or false, got {val!r}")
        for name in _SIZE_FIELDS:
            val = getattr(self, name)
            if val is not None and (
                isinstance(val, bool) or not isinstance(val, int) or not 0 <= val <= 100_000
            ):
                raise ConfigError(
                    f"selector field {name!r} must be a whole number from 0 to 100000, got {val!r}"
                )
        for name in RELATIVE_FIELDS:
            val = getattr(self, name)
            if val is not None and not isinstance(val, Selector):
                raise ConfigError(f"selector field {name!r} must be a selector, got {type(val).__name__}")
        if self.contains_descendants is not None and (
            not isinstance(self.contains_descendants, tuple)
            or not self.contains_descendants
            or not all(isinstance(v, Selector) for v in self.contains_descendants)
        ):
            raise ConfigError("selector field 'contains_descendants' must be a non-empty list of selectors")
        if self.traits is not None and (
            not isinstance(self.traits, tuple)
            or not self.traits
            or not all(isinstance(t, str) and t in TRAITS for t in self.traits)
        ):
            raise ConfigError(
                f"selector field 'traits' must be a non-empty list of {', '.join(TRAITS)}, "
                f"got {self.traits!r}"
            )
        if self._depth() > _MAX_NESTING:
            raise ConfigError(f"selectors nest more than {_MAX_NESTING} levels deep")
        for name in _PATTERN_FIELDS:
            val = getattr(self, name)
            if val is not None and len(val) > _MAX_REGEX_LENGTH:
                raise ConfigError(f"selector {name} is longer than {_MAX_REGEX_LENGTH} characters")
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
            from .xpath import check_xpath  # lxml is loaded only for xpath selectors

            check_xpath(self.xpath)
        if (
            not any(getattr(self, n) is not None for n in (*_STRING_FIELDS, *_PATTERN_FIELDS))
            and not self.maestro
        ):
            raise ConfigError(
                "a selector needs at least one of text, text_contains, text_regex, id, label, type or xpath"
            )
        # A Maestro selector with no field at all (`assertVisible: {label: …}`) matches any element, as
        # Maestro's empty filter list does.

    def _depth(self) -> int:
        inner = [getattr(self, n) for n in RELATIVE_FIELDS if getattr(self, n) is not None]
        inner += list(self.contains_descendants or ())
        return 1 + max((s._depth() for s in inner), default=0)

    @property
    def own_fields(self) -> bool:
        """Whether the selector says something of the element itself (not only where it is)."""
        own = (
            *_STRING_FIELDS,
            *_PATTERN_FIELDS,
            "enabled",
            "checked",
            "focused",
            "selected",
            "width",
            "height",
            "traits",
        )
        return any(getattr(self, n) is not None for n in own)

    @property
    def relational(self) -> bool:
        """Whether the selector places its element relative to others."""
        return self.contains_descendants is not None or any(
            getattr(self, n) is not None for n in RELATIVE_FIELDS
        )

    @property
    def maestro(self) -> bool:
        """Whether the element is chosen by Maestro's rules (:mod:`core.relative`)."""
        return self.pick == "maestro" or self.relational

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
        values = dict(data)
        for name in RELATIVE_FIELDS:
            if isinstance(values.get(name), Mapping | str):
                values[name] = cls.from_mapping(values[name])
        if isinstance(values.get("traits"), list):
            values["traits"] = tuple(values["traits"])
        many = values.get("contains_descendants")
        if isinstance(many, list | tuple):
            values["contains_descendants"] = tuple(
                cls.from_mapping(v) if isinstance(v, Mapping | str) else v for v in many
            )
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            val = getattr(self, f.name)
            if val is None:
                continue
            if isinstance(val, Selector):
                val = val.to_dict()
            elif isinstance(val, tuple):
                val = [v.to_dict() if isinstance(v, Selector) else v for v in val]
            out[f.name] = val
        return out

    def describe(self) -> str:
        """A short human form for messages and logs (long values are cut, never quoted whole)."""

        def short(value: object) -> str:
            if isinstance(value, Selector):
                return f"({value.describe()})"
            if isinstance(value, tuple):
                return "[" + "; ".join(short(v) for v in value) + "]"
            text = repr(value)
            return text if len(text) <= 80 else f"{text[:70]}… ({len(text)} chars)"

        return ", ".join(
            f"{f.name}={short(getattr(self, f.name))}"
            for f in fields(self)
            if getattr(self, f.name) is not None
            and (f.name != "visible" or getattr(self, f.name) is not True)
            and f.name != "pick"
        )

    def matches(self, el: UIElement) -> bool:
        """Whether ``el`` satisfies every field but ``xpath`` (which needs the whole Scene)."""
        if self.visible is not None and el.visible != self.visible:
            return False
        if self.enabled is not None and el.enabled != self.enabled:
            return False
        if self.type is not None and self.type != el.type and self.type != short_type(el.type):
            return False
        if self.id is not None and not _id_matches(self.id, el.identifier):
            return False
        if self.label is not None and el.label != self.label:
            return False
        for name in ("checked", "focused", "selected"):
            wanted = getattr(self, name)
            if wanted is not None and bool(getattr(el, name)) != wanted:
                return False
        if self.traits is not None and not all(TRAITS[t](el) for t in self.traits):
            return False
        tolerance = self.tolerance or 0
        if self.width is not None and abs(el.bounds.width - self.width) > tolerance:
            return False
        if self.height is not None and abs(el.bounds.height - self.height) > tolerance:
            return False
        if self.id_matches is not None:
            ident = el.identifier or ""
            if not ident or not (
                full_match(self.id_matches, ident, literal=False)
                or full_match(self.id_matches, ident.rsplit("/", 1)[-1], literal=False)
            ):
                return False
        if self.text_matches is not None and not any(
            full_match(self.text_matches, value) for value in (text_values(el) or ("",))
        ):
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

    def query(self) -> Query:
        """What an element must contain to be worth testing with :meth:`matches` (a necessary
        condition; see :mod:`core.lazy`): a parser's document answers it natively. Worked out
        once per selector (a flow's step resolves the same selector on every look)."""
        cached: Query | None = self.__dict__.get("_query")
        if cached is None:
            cached = self._query()
            object.__setattr__(self, "_query", cached)  # not a field: equality and hash ignore it
        return cached

    def _query(self) -> Query:
        groups: list[tuple[Test, ...]] = []
        if self.text is not None:
            groups.append((("text", "=", self.text), ("label", "=", self.text), ("value", "=", self.text)))
        if self.text_contains is not None:
            wanted = self.text_contains
            groups.append((("text", "~", wanted), ("label", "~", wanted), ("value", "~", wanted)))
        if self.text_regex is not None:
            groups.append((("text", "~", ""), ("label", "~", ""), ("value", "~", "")))
        if self.id is not None:
            exact: Test = ("identifier", "=", self.id)
            groups.append(
                (exact, ("identifier", "~", ":id/" + self.id)) if ":id/" not in self.id else (exact,)
            )
        if self.label is not None:
            groups.append((("label", "=", self.label),))
        if self.type is not None:
            groups.append((("type", "~", self.type),))
        return tuple(groups)

    def find_all(self, scene: Scene) -> list[UIElement]:
        """Every matching element in document order (just the ``index``-th one when it is set);
        by Maestro's rules, the one to act on first (:mod:`core.relative`)."""
        if self.maestro:
            return maestro_find(self, scene)
        if self.xpath is not None:
            from .xpath import xpath_view

            found = [el for el in xpath_view(scene).select(self.xpath) if self.matches(el)]
        else:
            found = [el for el in candidates(scene.root, self.query()) if self.matches(el)]
        if self.index is not None:
            return found[self.index : self.index + 1]
        return found

    def resolve(self, scene: Scene) -> UIElement:
        """The one element to act on, or ``TargetNotFound`` naming the selector."""
        found = self.first(scene)
        if found is None:
            raise TargetNotFound(
                f"no element matches {self.describe()} on the current screen "
                f"(app {scene.foreground_app or 'unknown'}, {len(scene)} elements)",
                hint="check the selector against `amc inspect`; the screen may not have loaded yet",
            )
        return found

    def first(self, scene: Scene) -> UIElement | None:
        """``find_all(scene)[0]``, or None, without building elements past it."""
        if self.xpath is not None or self.maestro:
            found = self.find_all(scene)
            return found[0] if found else None
        return first(scene.root, self.query(), self.matches, self.index or 0)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def tap_point(el: UIElement, window: Bounds, *, lines: bool = False) -> tuple[int, int]:
    """Where to tap ``el``: the centre of its visible part inside the window.

    Zero-size elements and elements entirely off screen raise ``TargetNotFound``; with ``lines``
    (Maestro's rule, for a Maestro selector), an element of zero width or height lying on the
    screen is tapped at the centre of its part inside the window (:func:`line_on_screen`).
    """
    if lines and line_on_screen(el.bounds, window):
        b = el.bounds
        if window.is_empty():
            return b.center
        left, right = max(b.left, window.left), min(b.right, window.right)
        top, bottom = max(b.top, window.top), min(b.bottom, window.bottom)
        return ((left + right) // 2, (top + bottom) // 2)
    if el.bounds.is_empty():
        raise TargetNotFound(
            f"{short_type(el.type)} {el.display_text or el.identifier or ''!r} has zero size"
        )
    visible = el.bounds if window.is_empty() else el.bounds.intersection(window)
    if visible is None:
        raise TargetNotFound(
            f"{short_type(el.type)} {el.display_text or el.identifier or ''!r} is off screen "
            f"at {el.bounds.to_dict()}",
            hint="scroll it into view first",
        )
    return visible.center
