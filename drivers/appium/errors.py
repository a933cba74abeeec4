"""How ``AppiumDriver`` turns Appium-Python-Client / Selenium / urllib3 exceptions into core.errors
(the shape every backend shares is described in :mod:`drivers.error_table`).

One table, :data:`ERROR_TABLE`, has a row per client exception class (subclasses first), each
naming the harness error raised for it; rows with a test read the server's message first, for the
errors an Appium driver (or a Grid in front of it) reports as ``unknown error`` or ``session not
created`` with words that say more (:data:`SAID`): the UiAutomator2 instrumentation crashed, the
WebDriverAgent behind XCUITest died ("Could not proxy command … socket hang up"), the driver for an
automationName is not installed, the udid is not attached, every Grid node is busy. :func:`map_error`
unwraps urllib3's ``MaxRetryError`` to the reason it carries and builds the harness error with a
message naming what was being done, the server and what it said. Every answer is in
``tests/fixtures/backend_errors/appium.yaml`` and ``grid.yaml`` with the source it was read from.

A W3C ``unknown method`` / ``unknown command`` / ``unsupported operation`` answer becomes a
plain :class:`~core.errors.DeviceError` saying the server's driver does not support the command
(the Appium fake driver, for one, has no ``mobile:`` app commands). A reply whose body is not W3C
JSON (:class:`NonW3CReply`: an HTTP proxy's error page, another server at the port) is read by
:func:`drivers.error_table.proxy_answer`, or is not recognised.
"""

from __future__ import annotations

import re
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
from ..error_table import Build, ErrorRule, apply_table, proxy_answer, quote, unrecognised, wrong_server
from .said import SAID, NonW3CReply, Said, install_hint, raw_reply_error

__all__ = [
    "CLIENT_ERRORS",
    "ERROR_TABLE",
    "AppiumCall",
    "NonW3CReply",
    "StrictErrorHandler",
    "map_error",
    "raw_reply_error",
    "server_refused",
    "unsupported",
]

_REASON_MAX = 600  # characters of a server's reason a message quotes
# What a call through the client can raise besides our own errors.
CLIENT_ERRORS: tuple[type[BaseException], ...] = (se.WebDriverException, u3.HTTPError, OSError)

_NOT_SUPPORTED_HINT = (
    "the Appium driver behind this server does not implement it; use the UiAutomator2 (Android) or "
    "XCUITest (iOS) driver"
)
_UNAVAILABLE_HINT = "is the Appium server (or Grid hub) running at that address? `appium server --port 4723`"


@dataclass(frozen=True)
class AppiumCall:
    """The call that failed: what was being done, against which server, the timeout in force, and
    whether it was starting a session (then rejected arguments are wrong capabilities: a
    ``ConfigError``, not a step's ``StepArgumentError``)."""

    action: str
    server: str
    timeout: float | None = None
    creating_session: bool = False


# A stack frame in a message (Java's "\tat pkg.Cls.method(File.java:12)", the short
# " pkg.Cls.method:123" frames Android's shell prints after an exception): where a reason ends.
_FRAME = re.compile(r"^\s+(?:at\s|[\w$.]+\.[\w$<>]+:\d+)")


def _detail(exc: BaseException) -> str:
    """What the server or the transport said, whole up to its stack trace (the reason may go on
    past its first line: "Command output: Exception occurred while executing 'list':" is followed
    by the exception that says why), on one line, bounded; without Selenium's doc link."""
    text = _said(exc)
    text = (text or "").split("; For documentation on this error")[0]
    kept: list[str] = []
    for line in text.strip().splitlines():
        if kept and _FRAME.match(line):
            break
        kept.append(line.strip())
    return quote(" ".join(kept), _REASON_MAX) if kept else type(exc).__name__


def _becomes(error: type[HarnessError], what: str, hint: str | None = None) -> Build[AppiumCall]:
    """A builder: ``error`` with "ACTION: WHAT (SERVER): what was said" and ``hint``."""

    def build(exc: BaseException, call: AppiumCall) -> HarnessError:
        kind = ConfigError if call.creating_session and error is StepArgumentError else error
        if kind is DeviceTimeout:  # the limit the answer missed, named
            limit = f"within {call.timeout:g} s" if call.timeout is not None else "in time"
            message = f"{call.action}: {what} {limit} ({call.server}): {_detail(exc)}"
            return DeviceTimeout(message, timeout=call.timeout, hint=hint)
        message = f"{call.action}: {what} ({call.server}): {_detail(exc)}"
        return kind(message, hint=hint)

    return build


def _row(
    cls: type[BaseException], error: type[HarnessError], what: str, hint: str | None = None
) -> ErrorRule[AppiumCall]:
    return ErrorRule(cls.__name__, (cls,), _becomes(error, what, hint))


def _said_row(said: Said) -> ErrorRule[AppiumCall]:
    def build(exc: BaseException, call: AppiumCall) -> HarnessError:
        hint = said.hint or install_hint(_detail(exc))
        return _becomes(said.error, said.what, hint)(exc, call)

    return ErrorRule(
        f"the server said: {said.name}", (se.WebDriverException,), build, lambda e: said.matches(_said(e))
    )


def _said(exc: BaseException) -> str:
    """The server's message: Selenium's ``msg`` when it is text (a server may send any JSON there)."""
    message = exc.msg if isinstance(exc, se.WebDriverException) else None
    return message if isinstance(message, str) and message else str(exc)


def _not_w3c(exc: BaseException, call: AppiumCall) -> HarnessError:
    status = exc.status if isinstance(exc, NonW3CReply) else 0
    body = exc.body if isinstance(exc, NonW3CReply) else str(exc)
    found = proxy_answer(
        status, body, server=f"the server at {call.server}", what=call.action, timeout=call.timeout
    )
    if found is not None:
        return found
    found = wrong_server(
        status, body, server=f"the server at {call.server}", what=call.action, expected="Appium or a Grid"
    )
    if found is not None:
        return found
    what = "a body that is not UTF-8" if status == 0 else f"HTTP {status}, a body that is not JSON"
    return unrecognised(
        f"the server at {call.server}",
        f"{call.action} ({what})",
        body,
        hint="is an Appium server (or Grid hub) what answers at that URL?",
    )


# base-driver's UnknownCommandError message (errors.ts), what an unknown route is answered with.
_UNKNOWN_ROUTE = "The requested resource could not be found, or a request was received using an HTTP method"
_BASE_PATH_HINT = (
    "the server has no /session at this URL's base path: Appium 2 and 3 serve at / "
    "(appium:http://HOST:4723), Appium 1, a Grid 3 hub and servers started with --base-path /wd/hub "
    "at /wd/hub (appium:http://HOST:4723/wd/hub)"
)


def _no_session_route(exc: BaseException, call: AppiumCall) -> HarnessError:
    """``unknown command`` for ``POST /session``: the URL's base path is not the server's."""
    if not call.creating_session:
        return _becomes(
            DeviceError, "the server's driver does not support this command", _NOT_SUPPORTED_HINT
        )(exc, call)
    return ConfigError(
        f"{call.action}: the server knows no such route ({call.server}): {_detail(exc)}", hint=_BASE_PATH_HINT
    )


# One row per client exception class, subclasses before their bases; the rows reading what the
# server said come before the classes they are raised as.
ERROR_TABLE: tuple[ErrorRule[AppiumCall], ...] = (
    # a reply that is not W3C JSON: a proxy's error page, another server at the port
    ErrorRule("a reply that is not W3C JSON", (NonW3CReply,), _not_w3c),
    # what the server said, in words that say more than its W3C error name
    *(_said_row(said) for said in SAID),
    # W3C errors the server answered (selenium / appium exception classes)
    _row(
        se.InvalidSessionIdException,
        SessionLost,
        "the Appium session is gone",
        "the server ended it (newCommandTimeout, a crashed driver or a restart); the next call starts a "
        "new session",
    ),
    _row(se.NoSuchElementException, TargetNotFound, "no element matches"),
    _row(se.NoSuchShadowRootException, TargetNotFound, "the element has no shadow root"),
    _row(se.NoSuchFrameException, TargetNotFound, "no such frame"),
    _row(se.NoSuchWindowException, TargetNotFound, "no such window"),
    _row(se.NoAlertPresentException, TargetNotFound, "no alert is open"),
    _row(se.StaleElementReferenceException, TargetNotFound, "the element is no longer on the screen"),
    _row(se.ElementClickInterceptedException, TargetNotFound, "another element covers the target"),
    _row(se.ElementNotInteractableException, TargetNotFound, "the element cannot be acted on"),
    _row(se.InvalidElementStateException, TargetNotFound, "the element cannot be acted on"),
    # unknown command: the driver lacks it, or (starting a session) the URL's base path is wrong
    ErrorRule(se.UnknownMethodException.__name__, (se.UnknownMethodException,), _no_session_route),
    _row(se.TimeoutException, DeviceTimeout, "the server timed out"),
    _row(
        se.SessionNotCreatedException,
        DriverUnavailable,
        "the server could not create a session",
        "check the capabilities (platform, automationName, udid) against the devices the server or "
        "grid offers",
    ),
    _row(se.InvalidArgumentException, StepArgumentError, "the server rejected the arguments"),
    _row(se.InvalidSelectorException, StepArgumentError, "the server rejected the locator"),
    _row(se.InvalidCoordinatesException, StepArgumentError, "the server rejected the coordinates"),
    _row(se.MoveTargetOutOfBoundsException, StepArgumentError, "the gesture goes off the screen"),
    _row(
        se.UnexpectedAlertPresentException,
        DeviceError,
        "an alert is blocking the screen",
        "an alert covers the app: accept or dismiss it (a flow step, or by hand), then go on",
    ),
    _row(
        se.ScreenshotException,
        DeviceError,
        "the server could not capture the screen",
        "the screen may show protected content (FLAG_SECURE, DRM video), or the phone is locked",
    ),
    ErrorRule(
        "unknown command, as a plain error",
        (se.WebDriverException,),
        _no_session_route,
        lambda e: _UNKNOWN_ROUTE in _said(e),
    ),
    _row(se.WebDriverException, DeviceError, "the server reported an error"),
    # transport (urllib3, with its own retries turned off; the OS)
    _row(u3.NewConnectionError, DriverUnavailable, "nothing answers", _UNAVAILABLE_HINT),
    _row(u3.ConnectTimeoutError, DriverUnavailable, "connecting timed out", _UNAVAILABLE_HINT),
    _row(u3.ReadTimeoutError, DeviceTimeout, "no whole answer"),
    _row(
        u3.ProtocolError,
        DriverUnavailable,
        "the server closed the connection without answering",
        _UNAVAILABLE_HINT,
    ),
    _row(u3.HTTPError, DriverUnavailable, "the HTTP connection failed", _UNAVAILABLE_HINT),
    _row(TimeoutError, DeviceTimeout, "no whole answer"),
    _row(OSError, DriverUnavailable, "the connection failed", _UNAVAILABLE_HINT),
)

_NOT_SUPPORTED = (se.UnknownMethodException,)
_NOT_THE_COMMAND = (
    se.UnknownMethodException,
    se.InvalidSessionIdException,
    se.TimeoutException,
    se.SessionNotCreatedException,
)


def map_error(exc: BaseException, call: AppiumCall) -> HarnessError:
    """The harness error for a client exception raised during ``call``: urllib3's ``MaxRetryError``
    is unwrapped to the reason it carries; exceptions the table does not know become a ``DeviceError``."""
    cause = exc.reason if isinstance(exc, u3.MaxRetryError) and exc.reason is not None else exc
    return apply_table(ERROR_TABLE, cause, call, _becomes(DeviceError, "the client failed"))


def server_refused(exc: BaseException | None) -> bool:
    """True when the server answered the command itself with an error (not a transport failure,
    a lost session, a timeout or an unsupported command): e.g. launching an app it cannot find."""
    return isinstance(exc, se.WebDriverException) and not isinstance(exc, _NOT_THE_COMMAND)


def unsupported(exc: BaseException | None) -> bool:
    """True when the server's driver does not implement the command (W3C unknown method/command)."""
    return isinstance(exc, _NOT_SUPPORTED)


class StrictErrorHandler(MobileErrorHandler):
    """Appium's W3C error handler, plus: a reply whose body is not JSON is an error
    (:func:`~drivers.appium.said.raw_reply_error`: the stock handler lets ``{"status": 500, "value":
    "<html>…"}`` pass as a value, and takes a success whose body is not JSON, which selenium hands
    over as ``{"status": 0, "value": "<raw text>"}``, for a done command), and so is an HTTP error
    status whose JSON body is not a W3C error."""

    def check_response(self, response: dict[str, Any]) -> None:
        raw = raw_reply_error(response)
        if raw is not None:
            raise raw
        super().check_response(response)
        status = response.get("status")
        if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
            value = str(response.get("value", ""))
            raise se.WebDriverException(f"HTTP {status} without a W3C error body: {value[:200]!r}")
