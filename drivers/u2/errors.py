"""How uiautomator2 / adbutils failures become harness errors: one table, read top to bottom (the
shape every backend shares is described in :mod:`drivers.error_table`).

:func:`map_error` unwraps uiautomator2's wrappers and walks :data:`ERROR_TABLE`; the first row whose
exception types and test match builds the harness error. Only :data:`CLIENT_ERRORS` are mapped:
anything else (a programming error) propagates unchanged. Every answer the rows read is in
``tests/fixtures/backend_errors/adb.yaml`` and ``u2.yaml``, with the source it was enumerated from.

==============================================  =====================================================
client failure                                  harness error
==============================================  =====================================================
socket / adb / HTTP timeout                     ``DeviceTimeout`` (transient)
adb server refused or unreachable               ``DriverUnavailable`` ("start it with adb start-server")
adb ``device unauthorized`` / ``authorizing``,  ``DeviceOffline`` with the state and its fix
``still connecting``, ``insufficient
permissions``, ``offline``, ``invalid state``
adb ``device 'X' not found`` (any wording)      ``DriverUnavailable`` naming X and what adb lists
adb ``more than one device …``                  ``ConfigError`` (two devices answer to the serial)
adb ``unknown host service``                    ``DeviceError`` (an adb server older than the client)
an element lookup on the device failed          ``TargetNotFound`` (also ``StaleObjectException``)
``SecurityException … INJECT_EVENTS``           ``DeviceOffline`` ("input refused": the setting to turn on)
the server died at start (its output)           ``DriverUnavailable`` with the cause it printed
an HTTP status from the server                  ``DeviceError`` (it answers, so it is not gone)
uiautomator2 server gone / UiAutomation lost    ``SessionLost`` (transient)
a connection reset by adb (adb commands)        ``DeviceError``
``StackOverflowError``, jsonrpc4j's refusals,   ``DeviceError`` saying what the server said, with a fix
other server exceptions                         (``IllegalArgumentException``: ``StepArgumentError``;
                                                ``NotImplementedException``: ``Unsupported``)
malformed HTTP / JSON-RPC answers               ``DeviceError``
anything else (also the fallback)               ``DeviceError`` saying it was not recognised
==============================================  =====================================================
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

import uiautomator2.exceptions as u2e
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from ...core.errors import (
    ConfigError,
    DeviceError,
    DeviceOffline,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
    Unsupported,
)
from ..error_table import ErrorRule, apply_table, quote, unrecognised
from .adb_errors import HINT_NO_SERVER, Kind, refusal, state_error
from .server_errors import (
    JAVA_CLASSES,
    PROTOCOL_CODES,
    http_status,
    java_class,
    rpc_code,
    rpc_message,
    says_any,
    server_says,
    start_cause,
    trace_head,
    uiautomation_broken,
)

__all__ = ["CLIENT_ERRORS", "ERROR_TABLE", "U2Call", "is_server_gone", "map_error", "unwrap"]

# What a call through adbutils / uiautomator2 can raise (besides bugs): the driver maps exactly these.
CLIENT_ERRORS: tuple[type[BaseException], ...] = (
    AdbError,
    u2e.BaseException,
    TimeoutError,
    ConnectionError,
    http.client.HTTPException,
    json.JSONDecodeError,
    EOFError,
)

HINT_SERVER_GONE = "the uiautomator2 server on the phone stopped; the next call starts it again"
_HINT_UPDATE = (
    "the uiautomator2 server on the phone and this uiautomator2 do not match: update uiautomator2 "
    "(`pip install -U uiautomator2`), which pushes its own server at the next start"
)
_HINT_RESTART = "restart the uiautomator2 server (`python -m uiautomator2 init`) or the phone"
_HINT_HOLDER = (
    "another UiAutomation client holds the phone's accessibility service (Appium's UiAutomator2 server, "
    "a running `uiautomator` command, another uiautomator2): stop it, e.g. `adb shell am force-stop "
    "io.appium.uiautomator2.server`, then connect again"
)
_HINT_INPUT = (
    "the phone refuses injected input: turn on Developer options > 'USB debugging (Security settings)' "
    "(MIUI / HyperOS; on ColorOS 'Disable permission monitoring'), then reconnect"
)


@dataclass(frozen=True)
class U2Call:
    """The call that failed, as the message needs it: the device, its adb server, the operation, the
    timeout, and the JSON-RPC method (``rpc``) when the call was one.

    ``listing`` returns what the adb server lists, and is called only for a "not found" error.
    """

    serial: str
    address: str
    operation: str
    timeout: float
    listing: Callable[[], str] | None = field(default=None, compare=False)
    channel: str = "adb"  # "adb" for adb commands, "rpc" for requests to the uiautomator2 server
    rpc: str | None = None


def _message(exc: BaseException) -> str:
    text = str(exc.args[0]) if exc.args else str(exc)
    return text or type(exc).__name__


def _where(call: U2Call) -> str:
    return f"{call.operation} on {call.serial}"


def unwrap(exc: BaseException) -> BaseException:
    """The adb error under uiautomator2's wrappers (``AdbShellError(e)``, ``HTTPError from e``)."""
    current: BaseException = exc
    for _ in range(5):
        arg = current.args[0] if current.args else None
        cause = current.__cause__
        if isinstance(current, u2e.AdbShellError) and isinstance(arg, BaseException):
            current = arg
        elif (
            isinstance(current, u2e.HTTPError) and isinstance(cause, AdbError) and _message(cause) != "closed"
        ):
            current = cause  # ("closed": nothing listens on the server port, the server is gone, not adb)
        else:
            break
    return current


def is_server_gone(exc: BaseException) -> bool:
    """True when the uiautomator2 server went away or lost its UiAutomation (as opposed to adb, the
    phone, or a server that answers with an error)."""
    if http_status(exc) is not None:
        return False
    if uiautomation_broken(exc):
        return True
    return isinstance(
        exc,
        u2e.UiAutomationNotConnectedError
        | u2e.LaunchUiAutomationError
        | u2e.AccessibilityServiceAlreadyRegisteredError
        | u2e.HTTPError
        | ConnectionError,
    ) and not isinstance(exc, u2e.HTTPTimeoutError)


# --- adb ------------------------------------------------------------------------------------


def _timeout(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceTimeout(
        f"{_where(call)} got no answer within {call.timeout:g} s",
        timeout=call.timeout,
        hint="the phone or its uiautomator2 server is busy or stuck; raise 'timeout' if it is just slow",
    )


def _no_server(exc: BaseException, call: U2Call) -> HarnessError:
    return DriverUnavailable(
        f"no adb server answers at {call.address} ({_message(exc)})", hint=HINT_NO_SERVER
    )


_STATES: dict[Kind, str] = {
    "unauthorized": "unauthorized",
    "authorizing": "authorizing",
    "connecting": "connecting",
    "no permissions": "no permissions",
    "offline": "offline",
    "invalid state": "unknown",
}


def _adb_state(exc: BaseException, call: U2Call) -> HarnessError:
    found = refusal(_message(exc))
    state = _STATES[found.kind] if found is not None else "unknown"
    return state_error(call.serial, state, said=_message(exc))


def _not_found(exc: BaseException, call: U2Call) -> HarnessError:
    listed = "unknown"
    if call.listing is not None:
        try:
            listed = call.listing() or "no devices"
        except (AdbError, OSError) as err:
            listed = f"the list could not be read ({err})"
    return DriverUnavailable(
        f"adb at {call.address} has no device {call.serial!r} ({quote(_message(exc), 120)}); "
        f"it lists: {listed}",
        hint="check the serial with `adb devices -l` (or `amc devices`) and the cable",
    )


def _ambiguous(exc: BaseException, call: U2Call) -> HarnessError:
    return ConfigError(
        f"adb at {call.address} has more than one device answering to {call.serial!r} "
        f"({quote(_message(exc), 120)})",
        hint="two devices report the same serial (cheap clones often do): unplug one, or name a device "
        "whose serial only it has (`adb devices -l`)",
    )


def _old_server(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceError(
        f"the adb server at {call.address} does not know what {_where(call)} asked "
        f"({quote(_message(exc), 160)}): it is older than this client",
        hint="update the Android SDK platform-tools (adb 1.0.41 or later), then `adb kill-server`",
    )


def _refused(*kinds: Kind) -> Callable[[BaseException], bool]:
    def test(exc: BaseException) -> bool:
        found = refusal(_message(exc))
        return found is not None and found.kind in kinds

    return test


def _dropped(exc: BaseException, call: U2Call) -> HarnessError:
    if call.channel == "rpc":
        return _session_lost(exc, call)
    return DeviceError(
        f"{_where(call)}: the adb server at {call.address} dropped the connection "
        f"({type(exc).__name__}: {_message(exc)})",
        hint="the adb server may have been restarted or killed; check `adb devices`",
    )


def _other_adb(exc: BaseException, call: U2Call) -> HarnessError:
    said = _message(exc)
    # adbutils reads the 4-byte status of adb's protocol ("OKAY"/"FAIL"); an HTTP server at the
    # port answers "HTTP/1.1 400 …" (adbutils' AdbError "Unknown data: b'HTTP'"): not adb at all.
    if "b'HTTP'" in said or "b'HTTP/'" in said:
        return ConfigError(
            f"{_where(call)}: an HTTP server answers at {call.address}, not the adb server "
            f"({quote(said, 120)})",
            hint="the address is another server's (WebDriverAgent listens on 8100, Appium on 4723, the adb "
            "server on 5037): check ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT or adb_port",
        )
    return unrecognised(f"the adb server at {call.address}", call.operation, said)


# --- the uiautomator2 server ------------------------------------------------------------------


def _not_on_screen(exc: BaseException, call: U2Call) -> HarnessError:
    if java_class(exc) == "StaleObjectException":
        why = trace_head(exc) or rpc_message(exc) or _message(exc)
        said = f"the element is no longer on the screen ({why})"
    elif isinstance(exc, u2e.UiObjectNotFoundError) and len(exc.args) > 1:
        said = f"the uiautomator2 server found no such element ({exc.args[1]})"
    else:
        said = trace_head(exc) or _message(exc)
    return TargetNotFound(f"{_where(call)}: {quote(said, 200)}")


def _input_refused(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceOffline(
        f"{_where(call)}: the phone refused the injected input ({quote(trace_head(exc), 200)})",
        state="input refused",
        hint=_HINT_INPUT,
    )


def _start_failed(exc: BaseException, call: U2Call) -> HarnessError:
    cause = start_cause(exc)
    if isinstance(exc, u2e.AccessibilityServiceAlreadyRegisteredError) or "connecting UiAutomation" in cause:
        hint = _HINT_HOLDER
    elif "UnsatisfiedLinkError" in cause:
        hint = (
            "the phone's ROM lacks what the server calls into (a custom ROM's changed framework): try "
            "its stock ROM or another phone, and report the cause to uiautomator2"
        )
    else:
        hint = "the uiautomator2 server exited without saying why: read `adb logcat` around its start"
    why = f"it died: {quote(cause, 300)}" if cause else "it quit without a word"
    return DriverUnavailable(f"{_where(call)}: the uiautomator2 server did not start ({why})", hint=hint)


def _http_answer(exc: BaseException, call: U2Call) -> HarnessError:
    status, reason = http_status(exc) or (0, "")
    if status == 404:
        hint = "another program answers on port 9008 of the phone, not the uiautomator2 server: stop it"
    else:
        hint = _HINT_RESTART
    return DeviceError(
        f"{_where(call)}: the uiautomator2 server answered HTTP {status} {reason}".rstrip(), hint=hint
    )


def _session_lost(exc: BaseException, call: U2Call) -> HarnessError:
    said = trace_head(exc) if uiautomation_broken(exc) else _message(exc)
    return SessionLost(
        f"{_where(call)}: the uiautomator2 server is gone ({type(exc).__name__}: {quote(said, 300)})",
        hint=HINT_SERVER_GONE,
    )


def _too_deep(exc: BaseException, call: U2Call) -> HarnessError:
    said = trace_head(exc) or "StackOverflowError"
    return DeviceError(
        f"{_where(call)}: the uiautomator2 server ran out of stack reading the screen ({quote(said, 200)})",
        hint="the screen's view hierarchy is too deep for the server: lower the dump's max_depth, or "
        "leave that screen",
    )


def _protocol(exc: BaseException, call: U2Call) -> HarnessError:
    code = rpc_code(exc) or 0
    method = call.rpc or call.operation
    return DeviceError(
        f"{_where(call)}: the uiautomator2 server {PROTOCOL_CODES[code]} {method} "
        f"(JSON-RPC {code}: {quote(rpc_message(exc), 80)})",
        hint=_HINT_UPDATE,
    )


def _server_failed(exc: BaseException, call: U2Call) -> HarnessError:
    """An exception the server's method threw (-32001), or jsonrpc4j's internal error."""
    head = trace_head(exc) or _message(exc)
    kind = JAVA_CLASSES.get(java_class(exc))
    if kind == "argument":
        return StepArgumentError(
            f"{_where(call)}: the uiautomator2 server refused the arguments: {quote(head, 200)}"
        )
    if kind == "unsupported":
        return Unsupported(
            f"{_where(call)}: the uiautomator2 server does not implement it ({quote(head, 200)})",
            hint="update uiautomator2, or do it another way",
        )
    return DeviceError(
        f"{_where(call)}: the uiautomator2 server failed: {quote(head, 300)}", hint=_HINT_RESTART
    )


def _malformed(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceError(
        f"{_where(call)}: the uiautomator2 server answered something the harness has not recognised "
        f"({type(exc).__name__}: {quote(_message(exc), 300)!r})",
        hint="another program may be listening on the server port, or the server is broken; restart it",
    )


def _other_u2(exc: BaseException, call: U2Call) -> HarnessError:
    return unrecognised("uiautomator2", call.operation, f"{type(exc).__name__}: {server_says(exc) or exc}")


def _fallback(exc: BaseException, call: U2Call) -> HarnessError:
    return unrecognised(f"{call.serial}", call.operation, f"{type(exc).__name__}: {exc}")


def _code(*codes: int) -> Callable[[BaseException], bool]:
    return lambda exc: rpc_code(exc) in codes


ERROR_TABLE: tuple[ErrorRule[U2Call], ...] = (
    ErrorRule("timeout", (AdbTimeout, socket.timeout, TimeoutError, u2e.HTTPTimeoutError), _timeout),
    ErrorRule("no adb server", (AdbConnectionError, ConnectionRefusedError), _no_server),
    ErrorRule("uiautomator2 cannot connect", (u2e.ConnectError,), _no_server),
    ErrorRule(
        "adb: the phone's state",
        (AdbError,),
        _adb_state,
        _refused("unauthorized", "authorizing", "connecting", "no permissions", "offline", "invalid state"),
    ),
    ErrorRule("adb: no such serial", (AdbError,), _not_found, _refused("not found")),
    ErrorRule("adb: more than one device", (AdbError,), _ambiguous, _refused("more than one")),
    ErrorRule("adb: an older server", (AdbError,), _old_server, _refused("unknown service")),
    ErrorRule(
        "element not found on the device",
        (u2e.UiObjectNotFoundError, u2e.XPathElementNotFoundError),
        _not_on_screen,
    ),
    ErrorRule(
        "element gone from the screen",
        (u2e.RPCUnknownError,),
        _not_on_screen,
        lambda exc: java_class(exc) == "StaleObjectException",
    ),
    ErrorRule("injected input refused", (u2e.RPCUnknownError,), _input_refused, says_any("INJECT_EVENTS")),
    ErrorRule(
        "the server died at start",
        (u2e.LaunchUiAutomationError, u2e.AccessibilityServiceAlreadyRegisteredError),
        _start_failed,
    ),
    ErrorRule(
        "an HTTP status from the server", (u2e.HTTPError,), _http_answer, lambda e: http_status(e) is not None
    ),
    ErrorRule("UiAutomation broken", (u2e.RPCUnknownError,), _session_lost, uiautomation_broken),
    ErrorRule("uiautomator2 server gone", (u2e.UiAutomationNotConnectedError, u2e.HTTPError), _session_lost),
    ErrorRule("dropped connection", (ConnectionError,), _dropped),
    ErrorRule("stack overflow on the server", (u2e.RPCStackOverflowError,), _too_deep),
    ErrorRule("jsonrpc4j refused the request", (u2e.RPCUnknownError,), _protocol, _code(*PROTOCOL_CODES)),
    ErrorRule("the server's method failed", (u2e.RPCUnknownError,), _server_failed, _code(-32001, -32603)),
    ErrorRule(
        "unreadable answer",
        (http.client.HTTPException, json.JSONDecodeError, u2e.RPCInvalidError, u2e.RPCUnknownError),
        _malformed,
    ),
    ErrorRule("other adb error", (AdbError, EOFError), _other_adb),
    ErrorRule("other uiautomator2 error", (u2e.BaseException,), _other_u2),
)


def map_error(exc: BaseException, call: U2Call) -> HarnessError:
    """The harness error for a client failure (one of :data:`CLIENT_ERRORS`; see the module table)."""
    return apply_table(ERROR_TABLE, unwrap(exc), call, _fallback)
