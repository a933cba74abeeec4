"""How uiautomator2 / adbutils failures become harness errors: one table, read top to bottom (the
shape every backend shares is described in :mod:`drivers.error_table`).

:func:`map_error` unwraps uiautomator2's wrappers and walks :data:`ERROR_TABLE`; the first row whose
exception types and test match builds the harness error. Only :data:`CLIENT_ERRORS` are mapped:
anything else (a programming error) propagates unchanged.

============================================  =======================================================
client failure                                harness error
============================================  =======================================================
socket / adb / HTTP timeout                   ``DeviceTimeout`` (transient)
adb server refused or unreachable             ``DriverUnavailable`` ("start it with adb start-server")
adb ``device offline``                        ``DeviceOffline`` (state offline, "reconnect the cable")
adb ``device unauthorized``                   ``DeviceOffline`` (state unauthorized, "unlock, accept")
adb ``device 'X' not found``                  ``DriverUnavailable`` naming X and what adb lists
uiautomator2 server gone / UiAutomation lost  ``SessionLost`` (transient)
a connection reset by adb (adb commands)      ``DeviceError``
malformed HTTP / JSON-RPC answers             ``DeviceError``
an element lookup on the device failed        ``TargetNotFound``
any other adb / uiautomator2 error            ``DeviceError`` (also the fallback)
============================================  =======================================================
"""

from __future__ import annotations

import http.client
import json
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

import uiautomator2.exceptions as u2e
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from ...core.errors import (
    DeviceError,
    DeviceOffline,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    TargetNotFound,
)
from ..error_table import ErrorRule, apply_table

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

HINT_UNAUTHORIZED = "unlock the phone and accept the USB debugging prompt (check 'Always allow')"
HINT_OFFLINE = "reconnect the cable, or run `adb reconnect` (for Wi-Fi: `adb connect HOST:PORT`)"
HINT_NO_SERVER = (
    "start it with `adb start-server`, or point ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT at it"
)
HINT_SERVER_GONE = "the uiautomator2 server on the phone stopped; the next call starts it again"
_NOT_FOUND = re.compile(r"device '([^']*)' not found")


@dataclass(frozen=True)
class U2Call:
    """The call that failed, as the message needs it: the device, its adb server, the operation and
    the timeout.

    ``listing`` returns what the adb server lists, and is called only for a "not found" error.
    """

    serial: str
    address: str
    operation: str
    timeout: float
    listing: Callable[[], str] | None = field(default=None, compare=False)
    channel: str = "adb"  # "adb" for adb commands, "rpc" for requests to the uiautomator2 server


def _message(exc: BaseException) -> str:
    text = str(exc.args[0]) if exc.args else str(exc)
    return text or type(exc).__name__


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
    """True when the uiautomator2 server went away (as opposed to adb or the phone)."""
    return isinstance(
        exc,
        u2e.UiAutomationNotConnectedError
        | u2e.LaunchUiAutomationError
        | u2e.AccessibilityServiceAlreadyRegisteredError
        | u2e.HTTPError
        | ConnectionError,
    ) and not isinstance(exc, u2e.HTTPTimeoutError)


def _timeout(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceTimeout(
        f"{call.operation} on {call.serial} got no answer within {call.timeout:g} s",
        timeout=call.timeout,
        hint="the phone or its uiautomator2 server is busy or stuck; raise 'timeout' if it is just slow",
    )


def _no_server(exc: BaseException, call: U2Call) -> HarnessError:
    return DriverUnavailable(
        f"no adb server answers at {call.address} ({_message(exc)})", hint=HINT_NO_SERVER
    )


def _offline(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceOffline(
        f"{call.serial} is offline (adb: {_message(exc)})", state="offline", hint=HINT_OFFLINE
    )


def _unauthorized(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceOffline(
        f"{call.serial} is unauthorized: this computer's adb key has not been accepted on the phone",
        state="unauthorized",
        hint=HINT_UNAUTHORIZED,
    )


def _not_found(exc: BaseException, call: U2Call) -> HarnessError:
    listed = "unknown"
    if call.listing is not None:
        try:
            listed = call.listing() or "no devices"
        except (AdbError, OSError) as err:
            listed = f"the list could not be read ({err})"
    return DriverUnavailable(
        f"adb at {call.address} has no device {call.serial!r}; it lists: {listed}",
        hint="check the serial with `adb devices -l` (or `amc devices`) and the cable",
    )


def _session_lost(exc: BaseException, call: U2Call) -> HarnessError:
    return SessionLost(
        f"{call.operation} on {call.serial}: the uiautomator2 server is gone "
        f"({type(exc).__name__}: {_message(exc)})",
        hint=HINT_SERVER_GONE,
    )


def _dropped(exc: BaseException, call: U2Call) -> HarnessError:
    if call.channel == "rpc":
        return _session_lost(exc, call)
    return DeviceError(
        f"{call.operation} on {call.serial}: the adb server at {call.address} dropped the connection "
        f"({type(exc).__name__}: {_message(exc)})",
        hint="the adb server may have been restarted or killed; check `adb devices`",
    )


def _malformed(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceError(
        f"{call.operation} on {call.serial}: the uiautomator2 server answered something unreadable "
        f"({type(exc).__name__}: {_message(exc)[:200]})",
        hint="another program may be listening on the server port, or the server is broken; restart it",
    )


def _not_found_on_device(exc: BaseException, call: U2Call) -> HarnessError:
    return TargetNotFound(f"{call.operation} on {call.serial}: {_message(exc)[:200]}")


def _device_error(exc: BaseException, call: U2Call) -> HarnessError:
    return DeviceError(
        f"{call.operation} on {call.serial} failed: {type(exc).__name__}: {_message(exc)[:300]}"
    )


def _says(*needles: str) -> Callable[[BaseException], bool]:
    return lambda exc: any(n in _message(exc) for n in needles)


ERROR_TABLE: tuple[ErrorRule[U2Call], ...] = (
    ErrorRule("timeout", (AdbTimeout, socket.timeout, TimeoutError, u2e.HTTPTimeoutError), _timeout),
    ErrorRule("no adb server", (AdbConnectionError, ConnectionRefusedError), _no_server),
    ErrorRule("uiautomator2 cannot connect", (u2e.ConnectError,), _no_server),
    ErrorRule("unauthorized", (AdbError,), _unauthorized, _says("unauthorized")),
    ErrorRule("offline", (AdbError,), _offline, _says("device offline", "offline")),
    ErrorRule(
        "no such serial", (AdbError,), _not_found, lambda exc: _NOT_FOUND.search(_message(exc)) is not None
    ),
    ErrorRule(
        "element not found on the device",
        (u2e.UiObjectNotFoundError, u2e.XPathElementNotFoundError),
        _not_found_on_device,
    ),
    ErrorRule(
        "uiautomator2 server gone",
        (
            u2e.UiAutomationNotConnectedError,
            u2e.LaunchUiAutomationError,
            u2e.AccessibilityServiceAlreadyRegisteredError,
            u2e.HTTPError,
        ),
        _session_lost,
    ),
    ErrorRule("dropped connection", (ConnectionError,), _dropped),
    ErrorRule(
        "unreadable answer",
        (http.client.HTTPException, json.JSONDecodeError, u2e.RPCInvalidError, u2e.RPCUnknownError),
        _malformed,
    ),
    ErrorRule("other adb error", (AdbError, EOFError), _device_error),
    ErrorRule("other uiautomator2 error", (u2e.BaseException,), _device_error),
)


def map_error(exc: BaseException, call: U2Call) -> HarnessError:
    """The harness error for a client failure (one of :data:`CLIENT_ERRORS`; see the module table)."""
    return apply_table(ERROR_TABLE, unwrap(exc), call, _device_error)
