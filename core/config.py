"""Reading settings from the environment: the one spelling of an on/off value."""

from __future__ import annotations

from .errors import ConfigError

__all__ = ["parse_bool"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def parse_bool(name: str, raw: str) -> bool:
    """Read an on/off environment value; anything else is a ``ConfigError`` naming it."""
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(
        f"{name}={raw!r} is not a boolean",
        hint=f"use one of {', '.join(sorted(_TRUE | _FALSE))}",
    )
