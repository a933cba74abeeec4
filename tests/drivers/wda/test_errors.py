"""The facebook-wda -> core.errors table, row by row, with the exceptions the client really raises."""

from __future__ import annotations

import http.client
import json

import pytest
from amc.core.errors import (
    AppNotInstalled,
    DeviceError,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
)
from amc.drivers.wda.errors import ERROR_TABLE, WdaCall, map_error, session_gone
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

CALL = WdaCall("POST /wda/apps/launch", "http://127.0.0.1:8100", 2.0, app_id="com.example.app")


def _answer(cls: type[WDARequestError], error: str, message: str) -> WDARequestError:
    return cls(110, {"error": error, "message": message})


CASES: list[tuple[str, BaseException, type[HarnessError]]] = [
    ("refused", HTTPError(ConnectionRefusedError(111, "Connection refused")), DriverUnavailable),
    ("no usbmuxd", HTTPError(FileNotFoundError(2, "No such file or directory")), DriverUnavailable),
    ("usbmux", HTTPError(MuxError("socket connection broken")), DriverUnavailable),
    ("timeout", HTTPError(TimeoutError("timed out")), DeviceTimeout),
    ("dropped", HTTPError(http.client.RemoteDisconnected("closed")), DriverUnavailable),
    ("reset", HTTPError(ConnectionResetError(104, "reset")), DriverUnavailable),
    ("no device for udid", HTTPError(AttributeError("'NoneType' has no attribute")), DriverUnavailable),
    ("502", WDABadGateway(502, "Bad Gateway"), DriverUnavailable),
    ("invalid session", _answer(WDAInvalidSessionIdError, "invalid session id", "gone"), SessionLost),
    (
        "crashed",
        _answer(WDAPossiblyCrashedError, "invalid element state", "'x' is not running, possibly crashed"),
        SessionLost,
    ),
    (
        "frontboard",
        _answer(WDAUnknownError, "unknown error", 'Application "com.example.app" is unknown to FrontBoard.'),
        AppNotInstalled,
    ),
    (
        "missing app, newer WDA",
        _answer(
            WDARequestError,
            "invalid argument",
            "Application info provider (FBSApplicationLibrary) returned nil for com.example.app",
        ),
        AppNotInstalled,
    ),
    (
        "keyboard",
        _answer(WDAKeyboardNotPresentError, "invalid element state", "keyboard must be present to send keys"),
        TargetNotFound,
    ),
    ("bad argument", _answer(WDARequestError, "invalid argument", "'x' must be a number"), StepArgumentError),
    ("unknown command", _answer(WDARequestError, "unknown command", "Unhandled endpoint"), DeviceError),
    ("unknown error", _answer(WDAUnknownError, "unknown error", "boom"), DeviceError),
    ("other answer", _answer(WDARequestError, "no such alert", "no alert"), DeviceError),
    ("empty", WDAEmptyResponseError("GET", "http://127.0.0.1:8100/source", None), DeviceError),
    ("not json", WDAError("GET", "http://127.0.0.1:8100/source", "<html>..."), DeviceError),
    ("json not an object", TypeError("list indices must be integers or slices, not str"), DeviceError),
    ("bad utf-8", UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), DeviceError),
    ("bad json", json.JSONDecodeError("Expecting value", "x", 0), DeviceError),
    ("no value key", AttributeError("Attribute key not found"), DeviceError),
]


@pytest.mark.parametrize(("name", "exc", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_client_error_maps_to_its_harness_error(
    name: str, exc: BaseException, expected: type[HarnessError]
) -> None:
    mapped = map_error(exc, CALL)
    assert type(mapped) is expected
    assert CALL.op in str(mapped) or isinstance(mapped, AppNotInstalled | TargetNotFound)


def test_messages_say_what_to_do() -> None:
    timeout = map_error(HTTPError(TimeoutError()), CALL)
    assert isinstance(timeout, DeviceTimeout) and timeout.timeout == 2.0 and timeout.transient
    assert "within 2 s" in str(timeout) and timeout.hint
    refused = map_error(HTTPError(ConnectionRefusedError()), CALL)
    assert refused.hint and "iproxy" in refused.hint and not refused.transient
    missing = map_error(_answer(WDAUnknownError, "unknown error", "is unknown to FrontBoard"), CALL)
    assert isinstance(missing, AppNotInstalled) and missing.app_id == "com.example.app"
    assert missing.category == "app"


def test_long_server_messages_are_cut() -> None:
    mapped = map_error(_answer(WDARequestError, "unknown error", "x" * 5000), CALL)
    assert len(str(mapped)) < 500


def test_only_session_answers_count_as_a_lost_session() -> None:
    assert session_gone(_answer(WDAInvalidSessionIdError, "invalid session id", ""))
    assert session_gone(_answer(WDAPossiblyCrashedError, "unknown error", "possibly crashed"))
    assert not session_gone(HTTPError(TimeoutError()))
    assert not session_gone(_answer(WDAUnknownError, "unknown error", "boom"))


def test_the_table_rows_have_names_and_a_fallback_exists() -> None:
    assert len({rule.name for rule in ERROR_TABLE}) == len(ERROR_TABLE)
    assert type(map_error(LookupError("odd"), CALL)) is DeviceError
