"""facebook-wda's exceptions, mapped into :mod:`core.errors` by one table (the shape every backend
shares is described in :mod:`drivers.error_table`).

facebook-wda raises two families: transport failures, wrapped by its HTTP layer in
``wda.usbmux.exceptions.HTTPError`` (which is *not* a ``WDAError``; the original socket error is its
first argument), and WDA's own answers, read from the reply body into ``WDARequestError`` and its
subclasses. Replies the client cannot read surface as ``WDAEmptyResponseError``, ``WDABadGateway``
(HTTP 502), :class:`~drivers.wda.answers.NotWdaReply` (any other body that is not JSON: the harness's
reading keeps its status and text) or as plain ``ValueError``/``TypeError``/``KeyError``/
``AttributeError`` from the client's reading code. :data:`ERROR_TABLE` lists, in order, which of
these becomes which harness error; :func:`map_error` applies it. What WDA answers, and where each
answer comes from in its source, is ``tests/fixtures/backend_errors/wda.yaml``.

WDA's W3C error names are read by kind (:data:`W3C_KINDS`): an element that is not there or cannot
be acted on is ``TargetNotFound``, a refused argument ``StepArgumentError``, WDA's own timeout
``DeviceTimeout``, a route this WDA lacks a ``DeviceError`` saying to update it; a name no row knows
is a ``DeviceError`` that says it was not recognised. The archived Facebook WebDriverAgent's
JSON-wire replies are turned into the same names first (:func:`drivers.wda.answers.json_wire_error`).

A lost session (``invalid session id``, ``possibly crashed``) is read by
:func:`~drivers.wda.answers.lost_session`, so the driver can decide whether to open a new session
and send the command again (:meth:`drivers.wda.driver.WdaDriver._call`).

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
    Unsupported,
)
from ..error_table import Build, ErrorRule, apply_table, proxy_answer, quote, unrecognised, wrong_server
from ..frontboard import LaunchRefusal, launch_refusal
from .answers import JSON_WIRE_ERRORS, NotWdaReply, answered, json_wire_error, lost_session, wda_error

__all__ = [
    "CLIENT_ERRORS",
    "ERROR_TABLE",
    "JSON_WIRE_ERRORS",
    "LAUNCH",
    "LAUNCH_TABLE",
    "W3C_KINDS",
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

_HINT_START = (
    "start WebDriverAgent on the phone (xcodebuild test-without-building, go-ios or tidevice) and check "
    "the URL and port forwarding (e.g. `iproxy 8100 8100`)"
)
_HINT_TIMEOUT = "raise the driver's timeout, or check whether WDA is stuck behind an alert or a busy app"
_HINT_UPDATE = "update WebDriverAgent (appium/WebDriverAgent) on the phone"
_HINT_ALERT = "an alert covers the app: accept or dismiss it (a flow step, or by hand), then go on"


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


def _detail(text: str) -> str:
    return quote(text, _MAX_DETAIL)


def session_gone(exc: BaseException) -> bool:
    """True when WDA refused a command under a session it lost (see :func:`answers.lost_session`)."""
    return lost_session(exc) is not None


# --- transport ------------------------------------------------------------------------------


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
        "(it may have crashed, or iproxy could not reach the phone)",
        hint=_HINT_START,
    )


def _transport_other(exc: BaseException, call: WdaCall) -> HarnessError:
    cause = _cause(exc) or exc
    return DriverUnavailable(
        f"could not reach WebDriverAgent at {call.url} for {call.op} "
        f"({type(cause).__name__}: {_detail(str(cause))})",
        hint=_HINT_START,
    )


def _proxy_page(exc: BaseException, call: WdaCall) -> HarnessError:
    status, text = _page(exc)
    found = proxy_answer(
        status, text, server=f"WebDriverAgent at {call.url}", what=call.op, timeout=call.timeout
    ) or wrong_server(
        status, text, server=f"the server at {call.url}", what=call.op, expected="WebDriverAgent"
    )
    return found if found is not None else _not_wda(exc, call)


def _page(exc: BaseException) -> tuple[int, str]:
    if isinstance(exc, NotWdaReply):
        return exc.status, exc.text
    if isinstance(exc, WDABadGateway):
        return 502, str(exc.args[1]) if len(exc.args) > 1 else ""
    return 0, ""


def _not_wda(exc: BaseException, call: WdaCall) -> HarnessError:
    status, text = _page(exc)
    what = f"{call.op} (HTTP {status})" if status else call.op
    return unrecognised(
        f"WebDriverAgent at {call.url}",
        what,
        text,
        hint="is WebDriverAgent what listens at that URL? check the port (and `iproxy`)",
    )


# --- WDA's answers ---------------------------------------------------------------------------


def _lost(exc: BaseException, call: WdaCall) -> HarnessError:
    lost = lost_session(exc)
    what = lost.what if lost is not None else "WebDriverAgent lost its session"
    crashed = lost is not None and not lost.screen_kept
    return SessionLost(
        f"{what}; during {call.op} a new session did not help ({_detail(wda_error(exc)[1])})",
        hint="the app crashed: check its crash log (Xcode's Devices window, or Settings > Privacy > "
        "Analytics Data) and launch it again"
        if crashed
        else "restart WebDriverAgent; if the app under test crashed, check the device's crash logs",
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
    _, message = wda_error(exc)
    said = f"; WebDriverAgent: “{quote(message, 400)}”" if message else ""
    return TargetNotFound(
        f"no on-screen keyboard to type into ({call.op}{said})",
        hint="tap a text field first so the keyboard shows",
    )


def _said(error: type[HarnessError], what: str, hint: str | None = None) -> Build[WdaCall]:
    """A builder: ``error`` with "WebDriverAgent WHAT (its error: its message)", ``{op}`` in WHAT
    standing for the request."""

    def build(exc: BaseException, call: WdaCall) -> HarnessError:
        kind, message = wda_error(exc)
        text = f"WebDriverAgent {what.format(op=call.op)} ({kind or 'error'}: {_detail(message)})"
        if error is DeviceTimeout:
            return DeviceTimeout(text, timeout=call.timeout, hint=hint or _HINT_TIMEOUT)
        return error(text, hint=hint)

    return build


# WDA's W3C error names (FBCommandStatus.m, and the JSON-wire statuses read into them), by what they
# mean to a step: the harness error and the words for it.
W3C_KINDS: dict[str, tuple[str, ...]] = {
    "target": (
        "no such element",
        "stale element reference",
        "element not visible",
        "element not interactable",
        "element not selectable",
        "no such alert",
        "no such frame",
        "no such window",
    ),
    "argument": (
        "invalid argument",
        "invalid selector",
        "invalid coordinates",
        "move target out of bounds",
    ),
    "timeout": ("timeout", "script timeout"),
    "route": ("unknown command", "unknown method"),
    "unsupported": ("unsupported operation",),
    "no session": ("session not created",),
    "alert": ("unexpected alert open",),
    "screen": ("unable to capture screen",),
    "failed": ("unknown error", "invalid element state", "javascript error"),
}
_KIND_ROWS: dict[str, Build[WdaCall]] = {
    "target": lambda exc, call: _target(exc, call),
    "argument": _said(StepArgumentError, "refused the arguments of {op}"),
    "timeout": _said(DeviceTimeout, "timed out on {op}", "the app or WDA is busy: " + _HINT_TIMEOUT),
    "route": _said(DeviceError, "here does not support {op}", _HINT_UPDATE),
    "unsupported": _said(Unsupported, "cannot do {op} on this phone"),
    "no session": _said(
        DriverUnavailable, "could not create a session ({op})", "restart WebDriverAgent on the phone"
    ),
    "alert": _said(DeviceError, "found an alert in the way of {op}", _HINT_ALERT),
    "screen": _said(
        DeviceError,
        "could not capture the screen ({op})",
        "the screen may show protected content (a secure screen or DRM video), or the phone is locked",
    ),
    "failed": _said(DeviceError, "failed {op}"),
}


def _named(kind: str) -> Callable[[BaseException], bool]:
    return answered(*W3C_KINDS[kind])


def _target(exc: BaseException, call: WdaCall) -> HarnessError:
    """An element that is not there is the step's target only for a request that acts; for a read
    (``GET /source``: WDA 'stale element reference' to the application element when the
    accessibility server is gone) it is WDA failing."""
    if call.op.startswith("GET "):
        return _KIND_ROWS["failed"](exc, call)
    return _said(TargetNotFound, "found nothing to act on for {op}")(exc, call)


def _unknown_name(exc: BaseException, call: WdaCall) -> HarnessError:
    error, message = wda_error(exc)
    return unrecognised(f"WebDriverAgent at {call.url}", call.op, f"{error}: {message}")


def _empty(exc: BaseException, call: WdaCall) -> HarnessError:
    return DeviceError(f"WebDriverAgent at {call.url} sent an empty reply to {call.op}")


def _garbled(exc: BaseException, call: WdaCall) -> HarnessError:
    detail = " ".join(str(a) for a in exc.args[2:]) if isinstance(exc, WDAError) else str(exc)
    return unrecognised(
        f"WebDriverAgent at {call.url}", f"{call.op} (not WDA's JSON)", f"{type(exc).__name__}: {detail}"
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
    ErrorRule("a proxy's error page", (WDABadGateway, NotWdaReply), _proxy_page),
    ErrorRule("session gone", (WDAInvalidSessionIdError, WDAPossiblyCrashedError), _lost),
    ErrorRule(
        "app not installed (FrontBoard's NotFound, WDA 5.1.1+ texts)",
        (WDARequestError,),
        _not_installed,
        _missing_app,
    ),
    ErrorRule("keyboard not present", (WDAKeyboardNotPresentError,), _no_keyboard),
    ErrorRule(
        "keyboard not present (archived WDA)",
        (WDARequestError,),
        _no_keyboard,
        answered(says=("Keyboard is not present",)),
    ),
    ErrorRule(
        "keyboard still moving (archived WDA)",
        (WDARequestError,),
        _said(DeviceTimeout, "timed out waiting for the keyboard ({op})"),
        answered(says=("keybord to stop animating", "keyboard to stop animating")),
    ),
    ErrorRule(
        "the app under test hangs",
        (WDARequestError,),
        _said(
            DeviceError,
            "found the app under test frozen ({op})",
            "restart the app (terminate_app, launch_app)",
        ),
        answered(says=("deadlock",)),
    ),
    ErrorRule(
        "an alert in the way (archived WDA)",
        (WDARequestError,),
        _KIND_ROWS["alert"],
        answered(says=("Alert is obstructing view",)),
    ),
    *(
        ErrorRule(f"WDA answered: {kind}", (WDARequestError,), build, _named(kind))
        for kind, build in _KIND_ROWS.items()
    ),
    ErrorRule("a W3C error no row knows", (WDARequestError,), _unknown_name),
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
    return unrecognised(f"WebDriverAgent at {call.url}", call.op, f"{type(exc).__name__}: {exc}")


def map_error(exc: BaseException, call: WdaCall) -> HarnessError:
    """The harness error for ``exc`` by the first matching row of :data:`ERROR_TABLE`."""
    return apply_table(LAUNCH_TABLE if call.op == LAUNCH else ERROR_TABLE, exc, call, _other)
