"""Checking the options ``drivers.connect.connect(spec, **options)`` passes to a backend.

Options come from callers, flow runners and CLI flags; each backend reads them through these
helpers so a wrong name or value is a ``ConfigError`` naming it, before any device is asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit

from ..core.durations import check_seconds
from ..core.errors import ConfigError
from .base import MAX_TIMEOUT

__all__ = [
    "check_names",
    "seconds",
    "server_url",
    "whole_number",
]


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


def server_url(url: object, what: str, schemes: tuple[str, ...] = ("http", "https")) -> SplitResult:
    """``url`` split, or a ``ConfigError`` naming ``what`` and the fault: not a URL (an unclosed IPv6
    bracket), another scheme, no host, a port outside 1-65535."""
    hint = "write it like http://127.0.0.1:8100 (IPv6: http://[::1]:8100)"
    if not isinstance(url, str):
        raise ConfigError(f"{what} must be a string, got {url!r}", hint=hint)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535", a port that is not a number
        problem = "its port is not a number from 1 to 65535" if "port" in str(exc).lower() else str(exc)
        raise ConfigError(f"{what} {url!r} is not a usable URL: {problem}", hint=hint) from exc
    accepted = "http(s)://" if schemes == ("http", "https") else " or ".join(f"{s}://" for s in schemes)
    if parts.scheme.lower() not in schemes:
        shown = f"the scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise ConfigError(f"{what} {url!r} has {shown}: it must start with {accepted}", hint=hint)
    if not parts.hostname:
        raise ConfigError(f"{what} {url!r} names no host", hint=hint)
    if port is not None and not 1 <= port <= 65535:
        raise ConfigError(f"{what} {url!r} has port {port}: a port is a number from 1 to 65535", hint=hint)
    return parts
