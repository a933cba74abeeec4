"""The kinds of value an action's argument can be: each checks a value once, and says its JSON schema.

An action declares its arguments with these (:class:`~amc.actions.base.Param`); the same check runs
for a flow step, an agent's tool call and an MCP call, before anything reaches the device, and the
same schema is what an agent is shown. A wrong value raises ``StepArgumentError`` naming the
argument (``argument=``), so a flow file can point at it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.durations import check_seconds
from ..core.errors import ConfigError, StepArgumentError
from ..core.selectors import Selector

__all__ = [
    "MAX_COORDINATE",
    "MAX_TEXT",
    "Anything",
    "Choice",
    "Flag",
    "Kind",
    "Number",
    "Seconds",
    "SelectorKind",
    "Text",
    "Values",
]

MAX_COORDINATE = 100_000  # no screen is wider: a bound before the screen's own is known
MAX_TEXT = 100_000  # characters one argument may hold


def _wrong(name: str, message: str, hint: str | None = None) -> StepArgumentError:
    return StepArgumentError(f"argument {name!r} {message}", hint=hint, argument=name)


class Kind(Protocol):
    """What an argument's value must be."""

    def check(self, value: Any, name: str) -> Any:
        """``value`` as the action uses it; ``StepArgumentError`` naming ``name`` when it is wrong."""
        ...

    def schema(self) -> dict[str, Any]:
        """Its JSON schema (the description is the parameter's)."""
        ...


@dataclass(frozen=True)
class Number:
    """A finite number in ``[low, high]`` (``(low, high]`` with ``open_low``); ``integer``: whole."""

    low: float = 0
    high: float = MAX_COORDINATE
    open_low: bool = False
    integer: bool = False

    def check(self, value: Any, name: str) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong(name, f"must be a number, got {value!r:.80}")
        if isinstance(value, float) and not math.isfinite(value):  # an int is finite, however long
            raise _wrong(name, f"must be a finite number, got {value!r}")
        if self.integer and value != int(value):
            raise _wrong(name, f"must be a whole number, got {value!r}")
        low_ok = value > self.low if self.open_low else value >= self.low
        if not low_ok or value > self.high:
            span = "above" if self.open_low else "from"
            raise _wrong(name, f"must be {span} {self.low:g} to {self.high:g}, got {value!r:.80}")
        return int(value) if self.integer else value

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "integer" if self.integer else "number", "maximum": self.high}
        schema["exclusiveMinimum" if self.open_low else "minimum"] = self.low
        return schema


@dataclass(frozen=True)
class Seconds:
    """A number of seconds by the one seconds rule (:func:`amc.core.durations.check_seconds`)."""

    maximum: float
    above_zero: bool = False

    def check(self, value: Any, name: str) -> Any:
        try:
            return check_seconds(
                value, f"argument {name!r}", maximum=self.maximum, above_zero=self.above_zero
            )
        except ConfigError as exc:
            raise StepArgumentError(exc.message, argument=name) from None

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "number", "maximum": self.maximum}
        schema["exclusiveMinimum" if self.above_zero else "minimum"] = 0
        return schema


@dataclass(frozen=True)
class Text:
    """A string (empty only with ``allow_empty``) of at most ``max_length`` characters, matching
    ``pattern`` when one is given (``what`` says what it must look like)."""

    allow_empty: bool = False
    max_length: int = MAX_TEXT
    pattern: re.Pattern[str] | None = None
    what: str = ""

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, str):
            raise _wrong(name, f"must be a string, got {type(value).__name__}")
        if not self.allow_empty and not value.strip():
            raise _wrong(name, "must not be empty")
        if len(value) > self.max_length:
            raise _wrong(name, f"must be at most {self.max_length} characters, got {len(value)}")
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise _wrong(name, f"must be {self.what}, got {value[:80]!r}")
        return value

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
        if not self.allow_empty:
            schema["minLength"] = 1
        return schema


@dataclass(frozen=True)
class Choice:
    """One of ``values``, written in any case (flows from Maestro write ``UP``)."""

    values: tuple[str, ...]

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, str):
            raise _wrong(name, f"must be a string, one of {', '.join(self.values)}, got {value!r:.80}")
        folded = value.lower()
        if folded not in self.values:
            close = [v for v in self.values if folded[:2] == v[:2]]
            raise _wrong(
                name,
                f"must be one of {', '.join(self.values)}, got {value!r:.80}",
                hint=f"did you mean {close[0]!r}?" if close else None,
            )
        return folded

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.values)}


@dataclass(frozen=True)
class Flag:
    """true or false."""

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, bool):
            raise _wrong(name, f"must be true or false, got {value!r:.80}")
        return value

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True)
class SelectorKind:
    """An element: a string (its exact text) or a mapping of selector fields, checked by
    :class:`~amc.core.selectors.Selector`; kept as the selector's mapping."""

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, str | Mapping):
            raise _wrong(
                name, f"must be a selector (a text, or a mapping of fields), got {type(value).__name__}"
            )
        try:
            return Selector.from_mapping(value).to_dict()
        except ConfigError as exc:
            raise StepArgumentError(f"bad selector: {exc.message}", hint=exc.hint, argument=name) from None

    def schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "string"}, {"type": "object", "minProperties": 1}]}


@dataclass(frozen=True)
class Values:
    """A non-empty mapping of variable names (non-empty strings) to values."""

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, Mapping) or not value:
            raise _wrong(name, "must be a non-empty mapping of variable names to values")
        for key in value:
            if not isinstance(key, str) or not key.strip():
                raise _wrong(name, f"has a variable name {key!r} that is not a non-empty string")
        return dict(value)

    def schema(self) -> dict[str, Any]:
        return {"type": "object", "minProperties": 1}


@dataclass(frozen=True)
class Anything:
    """Any value, kept as it is (what a model sent, recorded as it came)."""

    def check(self, value: Any, name: str) -> Any:
        return value

    def schema(self) -> dict[str, Any]:
        return {}
