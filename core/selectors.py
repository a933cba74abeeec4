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
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, TargetNotFound
from .lazy import Query, Test, candidates, first

if TYPE_CHECKING:
    from .models import Bounds, Scene, UIElement

__all__ = ["Selector", "short_type", "tap_point"]

_IOS_TYPE_PREFIX = "XCUIElementType"
_MAX_REGEX_LENGTH = 1000
_MAX_XPATH_LENGTH = 2000
_STRING_FIELDS = ("text", "text_contains", "text_regex", "id", "label", "type", "xpath")


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

    def __post_init__(self) -> None:
        for name in _STRING_FIELDS:
            val = getattr(self, name)
            if val is not None and not isinstance(val, str):
                raise ConfigError(f"selector field {name!r} must be a string, got {type(val).__name__}")
            if val == "":
                raise ConfigError(f"selector field {name!r} is empty; leave it out instead")
        if self.index is not None and (
            isinstance(self.index, bool) or not isinstance(self.index, int) or self.index < 0
        ):
            raise ConfigError(f"selector field 'index' must be a non-negative integer, got {self.index!r}")
        for name in ("enabled", "visible"):
            val = getattr(self, name)
            if val is not None and not isinstance(val, bool):
                raise ConfigError(f"selector field {name!r} must be true or false, got {val!r}")
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
        if not any(getattr(self, n) is not None for n in _STRING_FIELDS):
            raise ConfigError(
                "a selector needs at least one of text, text_contains, text_regex, id, label, type or xpath"
            )

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
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def describe(self) -> str:
        """A short human form for messages and logs (long values are cut, never quoted whole)."""

        def short(value: object) -> str:
            text = repr(value)
            return text if len(text) <= 80 else f"{text[:70]}… ({len(text)} chars)"

        return ", ".join(
            f"{k}={short(v)}" for k, v in self.to_dict().items() if k != "visible" or v is not True
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
        """Every matching element in document order (just the ``index``-th one when it is set)."""
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
        if self.xpath is not None:
            found = self.find_all(scene)
            return found[0] if found else None
        return first(scene.root, self.query(), self.matches, self.index or 0)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def tap_point(el: UIElement, window: Bounds) -> tuple[int, int]:
    """Where to tap ``el``: the centre of its visible part inside the window.

    Zero-size elements and elements entirely off screen raise ``TargetNotFound``.
    """
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
