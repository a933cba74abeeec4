"""How uiautomator2 / adbutils failures become harness errors: one table, read top to bottom.

:func:`map_error` walks :data:`RULES`; the first rule whose exception types and test match
builds the harness error (the caller chains the original with ``raise … from exc``). Exceptions
no rule knows (programming errors) map to ``None`` and must propagate unchanged.

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
any other adb / uiautomator2 error            ``DeviceError``
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

__all__ = ["RULES", "ErrorContext", "Rule", "is_server_gone", "map_error", "unwrap"]

HINT_UNAUTHORIZED = "unlock the phone and accept the USB debugging prompt (check 'Always allow')"
HINT_OFFLINE = "reconnect the cable, or run `adb reconnect` (for Wi-Fi: `adb connect HOST:PORT`)"
HINT_NO_SERVER = (
    "start it with `adb start-server`, or point ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT at it"
)
HINT_SERVER_GONE = "the uiautomator2 server on the phone stopped; the next call starts it again"
_NOT_FOUND = re.compile(r"device '([^']*)' not found")


@dataclass(frozen=True)
class ErrorContext:
    """What the message needs: which device, where its adb server is, which call, what timeout.

    ``listing`` returns what the adb server lists, and is called only for a "not found" error.
    """

    serial: str
    address: str
    operation: str
    timeout: float
    listing: Callable[[], str] | None = field(default=None, compare=False)
    channel: str = "adb"  # "adb" for adb commands, "rpc" for requests to the uiautomator2 server


BuildError = Callable[[BaseException, ErrorContext], HarnessError]


@dataclass(frozen=True)
class Rule:
    """One row of the table: exception types, an optional test on the exception, the builder."""

    types: tuple[type[BaseException], ...]
    build: BuildError
    test: Callable[[BaseException], bool] | None = None

    def matches(self, exc: BaseException) -> bool:
        return isinstance(exc, self.types) and (self.test is None or self.test(exc))


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


def _timeout(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DeviceTimeout(
        f"{ctx.operation} on {ctx.serial} got no answer within {ctx.timeout:g} s",
        timeout=ctx.timeout,
        hint="the phone or its uiautomator2 server is busy or stuck; raise 'timeout' if it is just slow",
    )


def _no_server(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DriverUnavailable(f"no adb server answers at {ctx.address} ({_message(exc)})", hint=HINT_NO_SERVER)


def _offline(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DeviceOffline(
        f"{ctx.serial} is offline (adb: {_message(exc)})", state="offline", hint=HINT_OFFLINE
    )


def _unauthorized(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DeviceOffline(
        f"{ctx.serial} is unauthorized: this computer's adb key has not been accepted on the phone",
        state="unauthorized",
        hint=HINT_UNAUTHORIZED,
    )


def _not_found(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    listed = "unknown"
    if ctx.listing is not None:
        try:
            listed = ctx.listing() or "no devices"
        except (AdbError, OSError) as err:
            listed = f"the list could not be read ({err})"
    return DriverUnavailable(
        f"adb at {ctx.address} has no device {ctx.serial!r}; it lists: {listed}",
        hint="check the serial with `adb devices -l` (or `amc devices`) and the cable",
    )


def _session_lost(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return SessionLost(
        f"{ctx.operation} on {ctx.serial}: the uiautomator2 server is gone "
        f"({type(exc).__name__}: {_message(exc)})",
        hint=HINT_SERVER_GONE,
    )


def _dropped(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    if ctx.channel == "rpc":
        return _session_lost(exc, ctx)
    return DeviceError(
        f"{ctx.operation} on {ctx.serial}: the adb server at {ctx.address} dropped the connection "
        f"({type(exc).__name__}: {_message(exc)})",
        hint="the adb server may have been restarted or killed; check `adb devices`",
    )


def _malformed(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DeviceError(
        f"{ctx.operation} on {ctx.serial}: the uiautomator2 server answered something unreadable "
        f"({type(exc).__name__}: {_message(exc)[:200]})",
        hint="another program may be listening on the server port, or the server is broken; restart it",
    )


def _not_found_on_device(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return TargetNotFound(f"{ctx.operation} on {ctx.serial}: {_message(exc)[:200]}")


def _device_error(exc: BaseException, ctx: ErrorContext) -> HarnessError:
    return DeviceError(f"{ctx.operation} on {ctx.serial} failed: {type(exc).__name__}: {_message(exc)[:300]}")


def _says(*needles: str) -> Callable[[BaseException], bool]:
    return lambda exc: any(n in _message(exc) for n in needles)


RULES: tuple[Rule, ...] = (
    Rule((AdbTimeout, socket.timeout, TimeoutError, u2e.HTTPTimeoutError), _timeout),
    Rule((AdbConnectionError, ConnectionRefusedError), _no_server),
    Rule((u2e.ConnectError,), _no_server),
    Rule((AdbError,), _unauthorized, _says("unauthorized")),
    Rule((AdbError,), _offline, _says("device offline", "offline")),
    Rule((AdbError,), _not_found, lambda exc: _NOT_FOUND.search(_message(exc)) is not None),
    Rule((u2e.UiObjectNotFoundError, u2e.XPathElementNotFoundError), _not_found_on_device),
    Rule(
        (
            u2e.UiAutomationNotConnectedError,
            u2e.LaunchUiAutomationError,
            u2e.AccessibilityServiceAlreadyRegisteredError,
            u2e.HTTPError,
        ),
        _session_lost,
    ),
    Rule((ConnectionError,), _dropped),
    Rule(
        (http.client.HTTPException, json.JSONDecodeError, u2e.RPCInvalidError, u2e.RPCUnknownError),
        _malformed,
    ),
    Rule((AdbError, EOFError), _device_error),
    Rule((u2e.BaseException,), _device_error),
)


def map_error(exc: BaseException, ctx: ErrorContext) -> HarnessError | None:
    """The harness error for a client failure (see the module table), or None for anything else."""
    if isinstance(exc, HarnessError):
        return exc
    inner = unwrap(exc)
    for rule in RULES:
        if rule.matches(inner):
            return rule.build(inner, ctx)
    return None
