"""Seconds, checked once: every timeout, wait, latency and gesture duration the harness is given.

:func:`check_seconds` is the one rule: a real number (``True`` is not one), finite, at least 0 (or
above 0) and at most a maximum the caller names; anything else raises the caller's error class with
a message naming what was wrong. The bounds live with their owners (the drivers' shared ones in
``drivers/base.py``); the one two layers share is here: :data:`MAX_LEASE_WAIT`, how long a wait for a
device (``DevicePool`` or the pytest plugin's lease) may be, as :class:`~core.errors.LeaseTimeout` is.
"""

from __future__ import annotations

from .errors import ConfigError

__all__ = ["MAX_LEASE_WAIT", "check_seconds"]

MAX_LEASE_WAIT = 24 * 3600.0


def check_seconds(
    value: object,
    what: str,
    *,
    maximum: float,
    above_zero: bool = False,
    text: bool = False,
    error: type[Exception] = ConfigError,
) -> float:
    """``value`` as a float number of seconds in ``[0, maximum]`` (``(0, maximum]`` with ``above_zero``).

    ``text`` also accepts a numeric string (a CLI argument, a query parameter). Otherwise
    ``error(message)`` is raised, the message naming ``what`` and the accepted range; NaN and
    infinities are never accepted.
    """
    number = value
    if text and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise error(f"{what} is not a number of seconds (got {value!r})") from None
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise error(f"{what} is not a number of seconds (got {value!r})")
    in_range = (number > 0 if above_zero else number >= 0) and number <= maximum  # NaN fails both
    if not in_range:
        span = f"above 0 and at most {maximum:g}" if above_zero else f"between 0 and {maximum:g}"
        raise error(f"{what} must be {span} seconds (got {value!r})")
    return float(number)
