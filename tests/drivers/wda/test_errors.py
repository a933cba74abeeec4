"""The facebook-wda -> core.errors table, row by row, with the exceptions the client really raises."""

from __future__ import annotations

import http.client
import json

import pytest
from amc.core.errors import (
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
from amc.drivers.wda.errors import ERROR_TABLE, WdaCall, json_wire_error, map_error, session_gone
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

CALL = WdaCall("POST /wda/tap", "http://127.0.0.1:8100", 2.0)
LAUNCH = WdaCall("POST /wda/apps/launch", "http://127.0.0.1:8100", 2.0, app_id="com.example.app")


def _answer(cls: type[WDARequestError], error: str, message: str) -> WDARequestError:
    return cls(110, {"error": error, "message": message})


CASES: list[tuple[str, BaseException, type[HarnessError]]] = [  # any request but a launch
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
        "keyboard",
        _answer(WDAKeyboardNotPresentError, "invalid element state", "keyboard must be present to send keys"),
        TargetNotFound,
    ),
    ("bad argument", _answer(WDARequestError, "invalid argument", "'x' must be a number"), StepArgumentError),
    ("unknown command", _answer(WDARequestError, "unknown command", "Unhandled endpoint"), DeviceError),
    ("unknown error", _answer(WDAUnknownError, "unknown error", "boom"), DeviceError),
    ("no alert", _answer(WDARequestError, "no such alert", "no alert"), TargetNotFound),
    ("a name no row knows", _answer(WDARequestError, "no such cookie", "no cookie"), DeviceError),
    ("empty", WDAEmptyResponseError("GET", "http://127.0.0.1:8100/source", None), DeviceError),
    ("not json", WDAError("GET", "http://127.0.0.1:8100/source", "<html>..."), DeviceError),
    ("json not an object", TypeError("list indices must be integers or slices, not str"), DeviceError),
    ("bad utf-8", UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), DeviceError),
    ("bad json", json.JSONDecodeError("Expecting value", "x", 0), DeviceError),
    ("no value key", AttributeError("Attribute key not found"), DeviceError),
]


# Answers to POST /wda/apps/launch: an app error every time, never the planner's bad argument.
LAUNCH_CASES: list[tuple[str, BaseException, type[HarnessError]]] = [
    (
        "frontboard",
        _answer(WDAUnknownError, "unknown error", 'Application "com.example.app" is unknown to FrontBoard.'),
        AppNotInstalled,
    ),
    (
        "missing app, WDA 5.1.4+",
        _answer(
            WDARequestError,
            "invalid argument",
            "Application info provider (FBSApplicationLibrary) returned nil for com.example.app",
        ),
        AppNotInstalled,
    ),
    (
        "missing app, WDA 5.1.1",
        _answer(
            WDARequestError,
            "invalid argument",
            "The application 'com.example.app' cannot be activated because it is not installed on the device "
            "under test",
        ),
        AppNotInstalled,
    ),
    (
        "untrusted profile",
        _answer(
            WDARequestError,
            "invalid argument",
            'Error Domain=FBSOpenApplicationServiceErrorDomain Code=1 "The request to open "com.example.app" '
            'failed." UserInfo={NSUnderlyingError={Error Domain=FBSOpenApplicationErrorDomain Code=3 '
            '"Unable to launch com.example.app because it has an invalid code signature, inadequate '
            'entitlements or its profile has not been explicitly trusted by the user." '
            "UserInfo={BSErrorCodeDescription=Security}}}",
        ),
        AppLaunchFailed,
    ),
    (
        "any other refusal",
        _answer(WDARequestError, "invalid argument", "'bundleId' is required"),
        AppLaunchFailed,
    ),
    ("unknown error", _answer(WDAUnknownError, "unknown error", "boom"), AppLaunchFailed),
    (
        "no launch route (an old WDA)",
        _answer(WDARequestError, "unknown command", "Unhandled endpoint"),
        DeviceError,
    ),
]


@pytest.mark.parametrize(("name", "exc", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_client_error_maps_to_its_harness_error(
    name: str, exc: BaseException, expected: type[HarnessError]
) -> None:
    mapped = map_error(exc, CALL)
    assert type(mapped) is expected
    assert CALL.op in str(mapped) or isinstance(mapped, AppNotInstalled | TargetNotFound)


@pytest.mark.parametrize(("name", "exc", "expected"), LAUNCH_CASES, ids=[c[0] for c in LAUNCH_CASES])
def test_a_refused_launch_is_an_app_error_with_its_reason(
    name: str, exc: BaseException, expected: type[HarnessError]
) -> None:
    mapped = map_error(exc, LAUNCH)
    assert type(mapped) is expected
    if isinstance(mapped, AppLaunchFailed | AppNotInstalled):
        assert mapped.app_id == "com.example.app" and mapped.hint
    if name == "untrusted profile":
        assert "explicitly trusted" in str(mapped) and "VPN & Device Management" in str(mapped.hint)


def test_json_wire_statuses_of_the_archived_wda_become_w3c_errors() -> None:
    assert json_wire_error(0, "") is None and json_wire_error(None, "x") is None
    unhandled = json_wire_error(1, "Unhandled endpoint: /wda/tap")
    assert unhandled is not None and unhandled.value["error"] == "unknown command"
    assert type(map_error(unhandled, CALL)) is DeviceError
    gone = json_wire_error(6, "Session does not exist")
    assert isinstance(gone, WDAInvalidSessionIdError) and session_gone(gone)
    missing = json_wire_error(7, "unable to find an element")
    assert missing is not None and missing.value["error"] == "no such element"


def test_messages_say_what_to_do() -> None:
    timeout = map_error(HTTPError(TimeoutError()), CALL)
    assert isinstance(timeout, DeviceTimeout) and timeout.timeout == 2.0 and timeout.transient
    assert "within 2 s" in str(timeout) and timeout.hint
    refused = map_error(HTTPError(ConnectionRefusedError()), CALL)
    assert refused.hint and "iproxy" in refused.hint and not refused.transient
    missing = map_error(_answer(WDAUnknownError, "unknown error", "is unknown to FrontBoard"), LAUNCH)
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
