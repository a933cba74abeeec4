"""How ``AppiumDriver`` turns Appium-Python-Client / Selenium / urllib3 exceptions into core.errors.

One table, :data:`ERROR_TABLE`, maps each client exception class to the harness error raised
for it; :func:`map_error` looks an exception up by walking its class's MRO (so the most
specific entry wins), unwraps urllib3's ``MaxRetryError`` to the reason it carries, and builds
the harness error with a message naming what was being done, the server and what it said. The
caller chains the original (``raise map_error(exc, …) from exc``).

A W3C ``unknown method`` / ``unknown command`` / ``unsupported operation`` answer becomes a
plain :class:`~core.errors.DeviceError` saying the server's driver does not support the command
(the Appium fake driver, for one, has no ``mobile:`` app commands).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import urllib3.exceptions as u3
from appium.webdriver.errorhandler import MobileErrorHandler
from selenium.common import exceptions as se

from ...core.errors import (
    ConfigError,
    DeviceError,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
)

__all__ = [
    "CLIENT_ERRORS",
    "ERROR_TABLE",
    "ErrorRule",
    "StrictErrorHandler",
    "map_error",
    "server_refused",
    "unsupported",
]

# What a call through the client can raise besides our own errors.
CLIENT_ERRORS: tuple[type[BaseException], ...] = (se.WebDriverException, u3.HTTPError, OSError)

_NOT_SUPPORTED_HINT = (
    "the Appium driver behind this server does not implement it; use the UiAutomator2 (Android) or "
    "XCUITest (iOS) driver"
)
_UNAVAILABLE_HINT = "is the Appium server (or Grid hub) running at that address? `appium server --port 4723`"


@dataclass(frozen=True)
class ErrorRule:
    """The harness error raised for one client exception class, and what it means in words."""

    error: type[HarnessError]
    what: str
    hint: str | None = None


ERROR_TABLE: Mapping[type[BaseException], ErrorRule] = {
    # W3C errors the server answered (selenium / appium exception classes)
    se.InvalidSessionIdException: ErrorRule(
        SessionLost,
        "the Appium session is gone",
        "the server ended it (newCommandTimeout, a crashed driver or a restart); the next call starts a "
        "new session",
    ),
    se.NoSuchElementException: ErrorRule(TargetNotFound, "no element matches"),
    se.StaleElementReferenceException: ErrorRule(TargetNotFound, "the element is no longer on the screen"),
    se.ElementNotInteractableException: ErrorRule(TargetNotFound, "the element cannot be acted on"),
    se.InvalidElementStateException: ErrorRule(TargetNotFound, "the element cannot be acted on"),
    se.UnknownMethodException: ErrorRule(
        DeviceError, "the server's driver does not support this command", _NOT_SUPPORTED_HINT
    ),
    se.TimeoutException: ErrorRule(DeviceTimeout, "the server timed out"),
    se.SessionNotCreatedException: ErrorRule(
        DriverUnavailable,
        "the server could not create a session",
        "check the capabilities (platform, automationName, udid) against the devices the server or "
        "grid offers",
    ),
    se.InvalidArgumentException: ErrorRule(StepArgumentError, "the server rejected the arguments"),
    se.InvalidSelectorException: ErrorRule(StepArgumentError, "the server rejected the locator"),
    se.UnexpectedAlertPresentException: ErrorRule(DeviceError, "an alert is blocking the screen"),
    se.ScreenshotException: ErrorRule(DeviceError, "the server could not capture the screen"),
    se.WebDriverException: ErrorRule(DeviceError, "the server reported an error"),
    # transport (urllib3, with its own retries turned off; the OS)
    u3.NewConnectionError: ErrorRule(DriverUnavailable, "nothing answers", _UNAVAILABLE_HINT),
    u3.ConnectTimeoutError: ErrorRule(DriverUnavailable, "connecting timed out", _UNAVAILABLE_HINT),
    u3.ReadTimeoutError: ErrorRule(DeviceTimeout, "no answer in time"),
    u3.ProtocolError: ErrorRule(
        DriverUnavailable, "the server closed the connection without answering", _UNAVAILABLE_HINT
    ),
    u3.HTTPError: ErrorRule(DriverUnavailable, "the HTTP connection failed", _UNAVAILABLE_HINT),
    TimeoutError: ErrorRule(DeviceTimeout, "no answer in time"),
    OSError: ErrorRule(DriverUnavailable, "the connection failed", _UNAVAILABLE_HINT),
}

_NOT_SUPPORTED = (se.UnknownMethodException,)
_NOT_THE_COMMAND = (
    se.UnknownMethodException,
    se.InvalidSessionIdException,
    se.TimeoutException,
    se.SessionNotCreatedException,
)


def _rule(exc: BaseException) -> ErrorRule | None:
    for cls in type(exc).__mro__:
        rule = ERROR_TABLE.get(cls)
        if rule is not None:
            return rule
    return None


def _detail(exc: BaseException) -> str:
    """The first line of what the server or the transport said, without Selenium's doc link."""
    text = exc.msg if isinstance(exc, se.WebDriverException) and exc.msg else str(exc)
    lines = (text or "").strip().splitlines()
    first = lines[0].split("; For documentation on this error")[0] if lines else type(exc).__name__
    return first if len(first) <= 300 else first[:297] + "..."


def map_error(
    exc: BaseException,
    *,
    action: str,
    server: str,
    timeout: float | None = None,
    creating_session: bool = False,
) -> HarnessError:
    """The harness error for a client exception raised while doing ``action`` against ``server``.

    ``creating_session`` turns rejected arguments into a ``ConfigError`` (the capabilities are
    wrong, not a step). Exceptions the table does not know become a plain ``DeviceError``.
    """
    cause = exc.reason if isinstance(exc, u3.MaxRetryError) and exc.reason is not None else exc
    rule = _rule(cause) or ErrorRule(DeviceError, "the client failed")
    error = rule.error
    if creating_session and error is StepArgumentError:
        error = ConfigError
    message = f"{action}: {rule.what} ({server}): {_detail(cause)}"
    if error is DeviceTimeout:
        return DeviceTimeout(message, timeout=timeout, hint=rule.hint)
    return error(message, hint=rule.hint)


def server_refused(exc: BaseException | None) -> bool:
    """True when the server answered the command itself with an error (not a transport failure,
    a lost session, a timeout or an unsupported command): e.g. launching an app it cannot find."""
    return isinstance(exc, se.WebDriverException) and not isinstance(exc, _NOT_THE_COMMAND)


def unsupported(exc: BaseException | None) -> bool:
    """True when the server's driver does not implement the command (W3C unknown method/command)."""
    return isinstance(exc, _NOT_SUPPORTED)


class StrictErrorHandler(MobileErrorHandler):
    """Appium's W3C error handler, plus: an HTTP error status whose body is not W3C JSON is an
    error too (the stock handler lets ``{"status": 500, "value": "<html>…"}`` pass as a value), and
    so is a success whose body is not JSON at all: selenium hands such a body over as
    ``{"status": 0, "value": "<raw text>"}``, while a real W3C reply is ``{"value": …}`` with no
    ``status``, so a garbled reply is never taken for a done command."""

    def check_response(self, response: dict[str, Any]) -> None:
        if response.get("status") == 0 and isinstance(response.get("value"), str):
            raw = str(response["value"])
            raise se.WebDriverException(f"the server's reply is not JSON: {raw[:200]!r}")
        super().check_response(response)
        status = response.get("status")
        if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
            value = str(response.get("value", ""))
            raise se.WebDriverException(f"HTTP {status} without a W3C error body: {value[:200]!r}")
