"""How every backend turns its client library's exceptions into :mod:`core.errors`: one ordered table.

Each backend's ``errors`` module (``drivers/wda/errors.py``, ``drivers/u2/errors.py``,
``drivers/appium/errors.py``) has the same four parts:

- ``CLIENT_ERRORS``: what a call through its client can raise. The adapter catches exactly these,
  so anything else (a bug, ``KeyboardInterrupt``) propagates unchanged.
- a frozen dataclass naming the call that failed (``WdaCall``, ``U2Call``, ``AppiumCall``): what
  the messages need (the request, the device or server, the timeout in force).
- ``ERROR_TABLE``: :class:`ErrorRule` rows, read top to bottom; the first row whose ``types`` (and
  ``test``, when the type alone does not decide) match builds the harness error. More specific rows
  come first; a row that an earlier row hides is a mistake (``tests/drivers/test_error_tables.py``).
- ``map_error(exc, call) -> HarnessError``: unwraps the client's own wrappers (urllib3's
  ``MaxRetryError``, uiautomator2's ``AdbShellError``), applies the table with :func:`apply_table`
  and falls back to a plain ``DeviceError``. The caller chains the original:
  ``raise map_error(exc, call) from exc``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..core.errors import HarnessError

__all__ = ["Build", "ErrorRule", "apply_table"]

C = TypeVar("C")

# Builds the harness error for one client exception raised during the call described by C.
Build = Callable[[BaseException, C], HarnessError]


@dataclass(frozen=True)
class ErrorRule(Generic[C]):
    """One row of a backend's table: which client exceptions it covers and the error they become."""

    name: str
    types: tuple[type[BaseException], ...]
    build: Build[C]
    test: Callable[[BaseException], bool] | None = None

    def matches(self, exc: BaseException) -> bool:
        return isinstance(exc, self.types) and (self.test is None or self.test(exc))


def apply_table(
    table: Sequence[ErrorRule[C]], exc: BaseException, call: C, fallback: Build[C]
) -> HarnessError:
    """The error the first matching row of ``table`` builds for ``exc``; ``fallback`` when none does."""
    for rule in table:
        if rule.matches(exc):
            return rule.build(exc, call)
    return fallback(exc, call)
