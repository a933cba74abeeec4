"""facebook-wda's exceptions, mapped into :mod:`core.errors` by one table (the shape every backend
shares is described in :mod:`drivers.error_table`).

facebook-wda raises two families: transport failures, wrapped by its HTTP layer in
``wda.usbmux.exceptions.HTTPError`` (which is *not* a ``WDAError``; the original socket error is its
first argument), and WDA's own answers, read from the reply body into ``WDARequestError`` and its
subclasses. Replies the client cannot read surface as ``WDAEmptyResponseError``, ``WDAError`` (not
JSON) or as plain ``ValueError``/``TypeError``/``KeyError``/``AttributeError`` from the client's
reading code. :data:`ERROR_TABLE` lists, in order, which of these becomes which harness error;
:func:`map_error` applies it.

Session loss (``invalid session id``, ``possibly crashed``) is recognised by :func:`session_gone`
so the driver can open a new session once before reporting ``SessionLost``.

The archived Facebook WebDriverAgent (iOS 13 and older) answers every error with HTTP 200 and a
non-zero JSON-wire ``status`` (FBCommandStatus.h: 1 unhandled endpoint, 6 no such session, 7 no
such element, 13 unknown error …; ``tests/fixtures/real/ios/fbwda-2015-…-status1.json``), which
facebook-wda since 2020 passes as a value. :func:`json_wire_error` turns such a reply into the W3C
error it means, so it goes through the same table.

A failed launch (``POST /wda/apps/launch``) is an app error, never a planner's bad argument:
WebDriverAgent 5.1.4+ answers ``invalid argument`` with FrontBoard's NSError, read by
:func:`drivers.frontboard.launch_refusal`. The launch's own table, :data:`LAUNCH_TABLE`, is the
table with one more row: any other WDA answer to a launch is ``AppLaunchFailed`` with its reason.
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Callable
from dataclasses import dataclass

from wda.exceptions import (
    WDABadGateway,
    WDAEmptyResponseError,
    WDAError,
    WDAInvalidSessionIdError,
    WDAKeyboardNotPresentError,
    WDAPossiblyCrashedError,
    WDARequestError,
    WDAUnknownError,
)
from wda.usbmux.exceptions import HTTPError, MuxError

from ...core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    DeviceError,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
)
from ..error_table import ErrorRule, apply_table
from ..frontboard import LaunchRefusal, launch_refusal

__all__ = [
    "CLIENT_ERRORS",
    "ERROR_TABLE",
    "JSON_WIRE_ERRORS",
    "LAUNCH",
    "LAUNCH_TABLE",
    "WdaCall",
    "json_wire_error",
    "map_error",
    "session_gone",
    "wda_error",
]

# What a facebook-wda call can raise (besides bugs): the driver catches exactly these.
CLIENT_ERRORS: tuple[type[BaseException], ...] = (
    WDAError,
    HTTPError,
    MuxError,
    OSError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    RuntimeError,
)

_MAX_DETAIL = 300
LAUNCH = "POST /wda/apps/launch"

# JSON-wire status codes of the archived Facebook WebDriverAgent (FBCommandStatus.h at e364eea0)
# -> the W3C error name this harness's table reads.
JSON_WIRE_ERRORS: dict[int, str] = {
    1: "unknown command",  # FBCommandStatusUnsupported: "Unhandled endpoint: …"
    6: "invalid session id",
    7: "no such element",
    9: "unknown command",
    10: "stale element reference",
    11: "element not interactable",
    12: "invalid element state",
    13: "unknown error",
    15: "invalid argument",
    21: "timeout",
    26: "unexpected alert open",
    27: "no such alert",
    32: "invalid selector",
    33: "session not created",
    405: "unknown method",
    888: "unknown error",  # application deadlock detected
    889: "unknown error",  # application crash detected
}


def json_wire_error(status: object, value: object) -> WDARequestError | None:
    """The error a JSON-wire reply with a non-zero ``status`` means (None for 0 or no status)."""
    if isinstance(status, bool) or not isinstance(status, int) or status == 0:
        return None
    name = JSON_WIRE_ERRORS.get(status, "unknown error")
    message = value if isinstance(value, str) else str(value)
    payload = {"error": name, "message": message, "status": status}
    if name == "invalid session id":
        return WDAInvalidSessionIdError(status, payload)
    return WDARequestError(status, payload)


_HINT_START = (
    "start WebDriverAgent on the phone (xcodebuild test-without-building, go-ios or tidevice) and check "
    "the URL and port forwarding (e.g. `iproxy 8100 8100`)"
)
_HINT_TIMEOUT = "raise the driver's timeout, or check whether WDA is stuck behind an alert or a busy app"


@dataclass(frozen=True)
class WdaCall:
    """The request that failed: ``op`` (``"POST /wda/tap"``), the WDA ``url``, the timeout in force,
    and the app it concerned (for app errors)."""

    op: str
    url: str
    timeout: float
    app_id: str | None = None


def _cause(exc: BaseException) -> BaseException | None:
    """The socket-level error behind facebook-wda's ``HTTPError(original)``."""
    if exc.args and isinstance(exc.args[0], BaseException):
        return exc.args[0]
    return exc.__cause__ or exc.__context__


def _transport(*kinds: type[BaseException]) -> Callable[[BaseException], bool]:
    """The exception, or the socket error inside facebook-wda's ``HTTPError``, is one of ``kinds``."""

    def test(exc: BaseException) -> bool:
        if isinstance(exc, kinds):
            return True
        if isinstance(exc, HTTPError):
            cause = _cause(exc)
            return cause is not None and isinstance(cause, kinds)
        return False

    return test


def wda_error(exc: BaseException) -> tuple[str, str]:
    """WDA's ``(error, message)`` from a ``WDARequestError`` (empty strings otherwise)."""
    value = getattr(exc, "value", None)
    if isinstance(value, dict):
        return str(value.get("error") or ""), str(value.get("message") or "")
    return "", str(value or "")


def _detail(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


def _answer(kind: str, *needles: str) -> Callable[[BaseException], bool]:
    """WDA answered error ``kind`` (any, when empty) with a message holding one of ``needles``."""

    def test(exc: BaseException) -> bool:
        error, message = wda_error(exc)
        return (not kind or error == kind) and (not needles or any(n in message for n in needles))

    return test


def session_gone(exc: BaseException) -> bool:
    """True when WDA says the session is gone (a new session may fix it; the command did not run)."""
    return isinstance(exc, WDAInvalidSessionIdError | WDAPossiblyCrashedError)


def _timeout(exc: BaseException, call: WdaCall) -> HarnessError:
    return DeviceTimeout(
        f"WebDriverAgent at {call.url} did not answer {call.op} within {call.timeout:g} s",
        timeout=call.timeout,
        hint=_HINT_TIMEOUT,
    )


def _refused(exc: BaseException, call: WdaCall) -> HarnessError:
    cause = _cause(exc) if isinstance(exc, HTTPError) else exc
    return DriverUnavailable(
        f"nothing answers at {call.url} ({call.op}: {type(cause).__name__}: {_detail(str(cause))})",
        hint=_HINT_START,
    )


def _dropped(exc: BaseException, call: WdaCall) -> HarnessError:
    return DriverUnavailable(
        f"WebDriverAgent at {call.url} closed the connection without answering {call.op} "
        "(it may have crashed)",
        hint=_HINT_START,
    )


def _session_lost(exc: BaseException, call: WdaCall) -> HarnessError:
    _, message = wda_error(exc)
    return SessionLost(
        f"WebDriverAgent at {call.url} lost its session during {call.op} and a new one did not help "
        f"({_detail(message)})",
        hint="restart WebDriverAgent; if the app under test crashed, check the device's crash logs",
    )


def _refusal(exc: BaseException) -> LaunchRefusal | None:
    if not isinstance(exc, WDARequestError):
        return None
    error, message = wda_error(exc)
    return launch_refusal(message) if error != "unknown command" else None


def _missing_app(exc: BaseException) -> bool:
    refusal = _refusal(exc)
    return refusal is not None and refusal.kind == "not_installed"


def _not_installed(exc: BaseException, call: WdaCall) -> HarnessError:
    app = call.app_id or "the app"
    refusal = _refusal(exc)
    return AppNotInstalled(
        f"{app} is not installed on the device behind {call.url}"
        + (f" (WebDriverAgent: {refusal.reason})" if refusal is not None else ""),
        app_id=call.app_id,
        hint=refusal.hint if refusal is not None else "install the app, or check the bundle id",
    )


def _launch_refused(exc: BaseException, call: WdaCall) -> HarnessError:
    refusal = _refusal(exc)
    error, message = wda_error(exc)
    why = refusal.reason if refusal is not None else f"{error or 'an error'}: {_detail(message)}"
    return AppLaunchFailed(
        f"iOS did not launch {call.app_id or 'the app'} ({why})",
        app_id=call.app_id,
        hint=refusal.hint if refusal is not None else "check the app starts by hand on the phone",
    )


def _no_keyboard(exc: BaseException, call: WdaCall) -> HarnessError:
    return TargetNotFound(
        f"no on-screen keyboard to type into ({call.op})",
        hint="tap a text field first so the keyboard shows",
    )


def _bad_argument(exc: BaseException, call: WdaCall) -> HarnessError:
    return StepArgumentError(
        f"WebDriverAgent refused the arguments of {call.op}: {_detail(wda_error(exc)[1])}"
    )


def _unknown_command(exc: BaseException, call: WdaCall) -> HarnessError:
    return DeviceError(
        f"this WebDriverAgent does not support {call.op}",
        hint="update WebDriverAgent (appium/WebDriverAgent) on the phone",
    )


def _answered_error(exc: BaseException, call: WdaCall) -> HarnessError:
    error, message = wda_error(exc)
    return DeviceError(f"WebDriverAgent answered {call.op} with {error or 'an error'}: {_detail(message)}")


def _bad_gateway(exc: BaseException, call: WdaCall) -> HarnessError:
    return DriverUnavailable(
        f"the proxy in front of WebDriverAgent at {call.url} answered 502 Bad Gateway to {call.op}",
        hint=_HINT_START,
    )


def _empty(exc: BaseException, call: WdaCall) -> HarnessError:
    return DeviceError(f"WebDriverAgent at {call.url} sent an empty reply to {call.op}")


def _garbled(exc: BaseException, call: WdaCall) -> HarnessError:
    detail = _detail(" ".join(str(a) for a in exc.args[2:]) if isinstance(exc, WDAError) else str(exc))
    return DeviceError(
        f"WebDriverAgent at {call.url} sent a reply to {call.op} that is not WDA's JSON "
        f"({type(exc).__name__}: {detail})"
    )


def _transport_other(exc: BaseException, call: WdaCall) -> HarnessError:
    cause = _cause(exc) or exc
    return DriverUnavailable(
        f"could not reach WebDriverAgent at {call.url} for {call.op} "
        f"({type(cause).__name__}: {_detail(str(cause))})",
        hint=_HINT_START,
    )


_DROPPED = (
    http.client.RemoteDisconnected,
    http.client.IncompleteRead,
    http.client.BadStatusLine,
    ConnectionResetError,
    BrokenPipeError,
    ConnectionAbortedError,
)
_REFUSED = (ConnectionRefusedError, FileNotFoundError, socket.gaierror, MuxError, OSError)

_SOCKET = (HTTPError, OSError)  # a socket error, bare or inside facebook-wda's HTTPError
_UNREADABLE = (WDAError, ValueError, TypeError, KeyError, AttributeError, RuntimeError)

ERROR_TABLE: tuple[ErrorRule[WdaCall], ...] = (
    ErrorRule("timeout", _SOCKET, _timeout, _transport(TimeoutError, socket.timeout)),
    ErrorRule("dropped connection", _SOCKET, _dropped, _transport(*_DROPPED)),
    ErrorRule("refused / no route / no usbmuxd", (*_SOCKET, MuxError), _refused, _transport(*_REFUSED)),
    ErrorRule("other transport failure", (HTTPError,), _transport_other),
    ErrorRule("bad gateway", (WDABadGateway,), _bad_gateway),
    ErrorRule("session gone", (WDAInvalidSessionIdError, WDAPossiblyCrashedError), _session_lost),
    ErrorRule(
        "app not installed (FrontBoard's NotFound, WDA 5.1.1+ texts)",
        (WDARequestError,),
        _not_installed,
        _missing_app,
    ),
    ErrorRule("keyboard not present", (WDAKeyboardNotPresentError,), _no_keyboard),
    ErrorRule("invalid argument", (WDARequestError,), _bad_argument, _answer("invalid argument")),
    ErrorRule("unknown command", (WDARequestError,), _unknown_command, _answer("unknown command")),
    ErrorRule("unknown error", (WDAUnknownError,), _answered_error),
    ErrorRule("other WDA error answer", (WDARequestError,), _answered_error),
    ErrorRule("empty reply", (WDAEmptyResponseError,), _empty),
    ErrorRule("unreadable reply", _UNREADABLE, _garbled),
)


_AFTER_NOT_INSTALLED = next(i for i, r in enumerate(ERROR_TABLE) if r.build is _not_installed) + 1
# A launch's table: every other answer WDA gives a launch is the app's failure (with FrontBoard's
# reason when it says one), never a bad argument of the planner's; an old WDA without the route
# (``unknown command``) stays a device error.
LAUNCH_TABLE: tuple[ErrorRule[WdaCall], ...] = (
    *ERROR_TABLE[:_AFTER_NOT_INSTALLED],
    ErrorRule(
        "launch refused",
        (WDARequestError,),
        _launch_refused,
        lambda e: wda_error(e)[0] != "unknown command" and not isinstance(e, WDAKeyboardNotPresentError),
    ),
    *ERROR_TABLE[_AFTER_NOT_INSTALLED:],
)


def _other(exc: BaseException, call: WdaCall) -> HarnessError:
    return DeviceError(f"WebDriverAgent call {call.op} failed: {type(exc).__name__}: {_detail(str(exc))}")


def map_error(exc: BaseException, call: WdaCall) -> HarnessError:
    """The harness error for ``exc`` by the first matching row of :data:`ERROR_TABLE`."""
    return apply_table(LAUNCH_TABLE if call.op == LAUNCH else ERROR_TABLE, exc, call, _other)
