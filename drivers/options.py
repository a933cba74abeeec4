"""Checking the options ``drivers.connect.connect(spec, **options)`` passes to a backend.

Options come from callers, flow runners and CLI flags; each backend reads them through these
helpers so a wrong name or value is a ``ConfigError`` naming it, before any device is asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.durations import check_seconds
from ..core.errors import ConfigError
from .base import MAX_TIMEOUT

__all__ = ["check_names", "seconds", "whole_number"]


def check_names(scheme: str, options: Mapping[str, Any], accepted: Iterable[str]) -> None:
    """Refuse option names the backend does not know, listing the ones it does."""
    known = set(accepted)
    unknown = sorted(str(name) for name in options if name not in known)
    if unknown:
        accepted_text = ", ".join(sorted(known)) or "none"
        raise ConfigError(f"unknown option(s) {', '.join(unknown)} for {scheme}:; accepted: {accepted_text}")


def seconds(options: Mapping[str, Any], name: str, default: float, *, maximum: float = MAX_TIMEOUT) -> float:
    """A duration option in seconds between 0 and ``maximum`` (numbers or numeric strings)."""
    return check_seconds(options.get(name, default), f"option {name}", maximum=maximum, text=True)


def whole_number(options: Mapping[str, Any], name: str, default: int, *, low: int, high: int) -> int:
    """An integer option between ``low`` and ``high`` (ints or digit strings)."""
    raw = options.get(name, default)
    if (
        isinstance(raw, bool)
        or not isinstance(raw, int | str)
        or (isinstance(raw, str) and not raw.isdigit())
    ):
        raise ConfigError(f"option {name}={raw!r} is not a whole number")
    value = int(raw)
    if not low <= value <= high:
        raise ConfigError(f"option {name}={raw!r} must be between {low} and {high}")
    return value
