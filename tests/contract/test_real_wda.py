"""Real WebDriverAgent answers replayed to facebook-wda over HTTP: the right answer or the right
typed error, for every generation the outputs come from.

Each case connects ``sim+wda:ios?…`` through ``amc.drivers.connect.connect`` with the face answering
some routes with real replies from ``tests/fixtures/real/ios`` (``replies``, by route name) and the
rest as the simulated iPhone of that profile. Where a published copy is cut (a stack trace, the
end of a source), :mod:`tests.contract.real` says how the test completes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from amc.core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    DeviceError,
    HarnessError,
    SceneParseError,
    SessionLost,
)
from amc.core.selectors import Selector, tap_point
from amc.drivers.wda import WdaDriver
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import IosProfile
from amc.sim.replay import Reply

from tests.contract.real import (
    closed,
    connected,
    json_after,
    json_string,
    python_value,
    real_text,
    reply,
    ruby_value,
    value_reply,
    w3c,
)

SETTINGS = "com.apple.Preferences"


@contextmanager
def replayed(
    replies: dict[str, Reply], *, wda: str = "10", ios: str = "18", launch_timeout: float = 1.0
) -> Iterator[tuple[WdaDriver, FaultInjector, SimDevice]]:
    device = SimDevice("ios", profile=IosProfile(ios, wda))
    spec = f"sim+wda:ios?ios={ios}&wda={wda}"
    with connected(spec, device, replies, WdaDriver, timeout=2.0, launch_timeout=launch_timeout) as (
        driver,
        faults,
    ):
        yield driver, faults, device


def _message(name: str) -> str:
    """The ``message`` of a WDA error a curl or log printed (its stack trace cut)."""
    return json_string(f"ios/{name}", "message")


def _answer(name: str, status: int) -> Reply:
    """A logged W3C error answer, its ``error`` and ``message`` verbatim (the log cut the trace)."""
    return w3c(json_string(f"ios/{name}", "error"), _message(name), status)


# --- /status of every generation collected ----------------------------------------------------

STATUS: list[tuple[str, Any, str]] = [
    (
        "appium WDA 2.x, iOS 12.4 simulator",
        json.loads(real_text("ios/wda-status-2020-08-ios12.4-simulator.json")),
        "12.4",
    ),
    (
        "appium WDA 2.x, iOS 14.2 device",
        json.loads(real_text("ios/wda-status-2020-12-ios14.2-realdevice.json")),
        "14.2",
    ),
    (
        "appium WDA 3.x, iOS 14.1, a session running",
        json_after("ios/wda-status-2021-05-ios14.1-upgradedAt-sessionId-set.txt"),
        "14.1",
    ),
    ("appium WDA 3.1x, iOS 15.2", json_after("ios/wda-status-2022-01-ios15.2-upgradedAt.txt"), "15.2"),
    (
        "appium WDA 4.1, iPadOS 15.2.1",
        json_after("ios/wda-status-2022-03-ipados15.2.1-name-iPadOS.txt"),
        "15.2.1",
    ),
    (
        "appium WDA 5.1.6+, iOS 15.4.1 device",
        json.loads(real_text("ios/wda-status-2023-05-ios15.4.1-sessionId-null.json")),
        "15.4.1",
    ),
]


@pytest.mark.parametrize(("name", "status", "version"), STATUS, ids=[s[0] for s in STATUS])
def test_a_real_status_connects_and_names_the_ios_version(name: str, status: Any, version: str) -> None:
    with replayed({"status": reply(status)}) as (driver, _, device):
        assert driver.os_version == version
        assert driver.wda_version is None  # build.version came with WDA 8.3.0
        driver.launch_app(SETTINGS)  # a session it adopted from /status is renewed once, then used
        assert device.foreground() == SETTINGS and driver.current_app() == SETTINGS


def test_the_archived_status_without_ready_connects() -> None:
    """An Appium-log copy of an iOS 13.3 simulator's /status, cut after ``ready``: closed here."""
    lines = real_text("ios/wda-status-2020-11-ios13.3-simulator-appium-log.txt")
    text = "\n".join(line.split("[WD Proxy]", 1)[1] for line in lines.splitlines() if "[WD Proxy]" in line)
    body = json.loads(text[text.index("{") :].rstrip().rstrip(",") + '}, "sessionId": null}')
    with replayed({"status": reply(body)}) as (driver, _, _d):
        assert driver.os_version == "13.3"


# --- launches refused, by generation --------------------------------------------------------------

LAUNCH_REFUSALS: list[tuple[str, Reply, type[HarnessError], str]] = [
    (
        "WDA 5.1.4: FrontBoard's NotFound",
        w3c("invalid argument", _message("wda-5.1.4-apps-launch-not-installed-invalid-argument.txt"), 400),
        AppNotInstalled,
        "FBSApplicationLibrary) returned nil",
    ),
    (
        "WDA 5.1.1: not installed (pre-check)",
        w3c(
            "invalid argument",
            _message("wda-5.1.1-activate-not-installed-invalid-argument-assertInstalled.txt"),
            400,
        ),
        AppNotInstalled,
        "cannot be activated",
    ),
    (
        "WDA 5.1.1: a system app it wrongly calls missing",
        w3c(
            "invalid argument",
            _message("wda-5.1.1-launch-system-app-false-not-installed-com.apple.Preferences.txt"),
            400,
        ),
        AppNotInstalled,
        "PR #705",
    ),
    (
        "XCUITest relaying FrontBoard's NotFound",
        w3c(
            "invalid argument",
            real_text("appium/xcuitest-create-session-FBSOpenApplicationErrorDomain-not-found.txt")
            .split("(", 1)[1]
            .rsplit(")", 1)[0],
            400,
        ),
        AppNotInstalled,
        "returned nil",
    ),
]


def _security_refusal() -> str:
    """FrontBoard's Security refusal (the iOS 13 device log's reason, verbatim) in the NSError
    layout WebDriverAgent 5.1.4 answers with (its message is XCTest's NSError description)."""
    log = real_text(
        "ios/ios-device-log-launch-invalid-code-signature-FBSOpenApplicationServiceErrorDomain.txt"
    )
    reason = log[log.index("Unable to launch") :].split('"', 1)[0]
    return (
        'Error Domain=FBSOpenApplicationServiceErrorDomain Code=1 "The request to open '
        '"org.kp.tpmg.preventivecare.beta" failed." UserInfo={BSErrorCodeDescription=RequestDenied, '
        f'NSUnderlyingError=0x2828fd410 {{Error Domain=FBSOpenApplicationErrorDomain Code=3 "{reason}" '
        "UserInfo={BSErrorCodeDescription=Security}}}"
    )


def _guided_access() -> str:
    """Guided Access's refusal (tidevice's copy of the NSError, its texts verbatim)."""
    return (
        'Error Domain=FBSOpenApplicationServiceErrorDomain Code=1 "The request to open "com.example.app" '
        'failed." UserInfo={BSErrorCodeDescription=RequestDenied, '
        "NSLocalizedFailureReason=The request was denied by service delegate (SBMainWorkspace) "
        "for reason: Unspecified., NSUnderlyingError=0x1 {Error "
        'Domain=FBSOpenApplicationErrorDomain Code=1 "Guided Access active"}}'
    )


LAUNCH_REFUSALS += [
    (
        "untrusted profile / code signature",
        w3c("invalid argument", _security_refusal(), 400),
        AppLaunchFailed,
        "explicitly trusted",
    ),
    ("Guided Access", w3c("invalid argument", _guided_access(), 400), AppLaunchFailed, "Guided Access"),
]


@pytest.mark.parametrize(
    ("name", "answer", "error", "detail"), LAUNCH_REFUSALS, ids=[c[0] for c in LAUNCH_REFUSALS]
)
def test_a_refused_launch_is_an_app_error_never_a_planner_argument_error(
    name: str, answer: Reply, error: type[HarnessError], detail: str
) -> None:
    with replayed({"apps.launch": answer}, wda="5") as (driver, faults, device):
        with pytest.raises(error) as caught:
            driver.launch_app("com.example.app")
        assert type(caught.value) is error and caught.value.app_id == "com.example.app"
        assert detail in f"{caught.value} {caught.value.hint}"
        assert device.foreground() == "com.apple.springboard"  # nothing launched
        if error is AppLaunchFailed:
            assert faults.count("locked") == 1  # a locked phone would be DeviceOffline


@pytest.mark.timeout(20)
def test_wda_before_5_1_1_never_answering_a_missing_app_is_app_not_installed() -> None:
    """appium/appium#18206: WDA hangs forever on activating an invalid bundle (WDA before 5.1.1)."""
    with replayed({}, wda="4", launch_timeout=0.5) as (driver, faults, _):
        with pytest.raises(AppNotInstalled, match=r"before 5\.1\.1") as caught:
            driver.launch_app("com.example.not.installed")
        assert not caught.value.transient
        assert (faults.count("apps.launch"), faults.count("apps.state")) == (1, 1)


# --- the archived Facebook WebDriverAgent: HTTP 200, JSON-wire status -------------------------------


def test_an_archived_unhandled_endpoint_makes_the_tap_fall_back_and_happen() -> None:
    """The 2015 archive answers a route it lacks with ``status: 1`` at HTTP 200: facebook-wda passes it
    as a value; the driver reads it as ``unknown command`` and taps on ``/wda/tap/:uuid``."""
    unhandled = reply(real_text("ios/fbwda-2015-ios8.4-unhandled-endpoint-status1.json"))
    with replayed({"tap": unhandled}, wda="5") as (driver, faults, device):
        driver.launch_app(SETTINGS)
        scene = driver.observe()
        general = scene.find(Selector(text="General"))
        assert general is not None
        driver.tap(*tap_point(general, scene.window))
        assert device.current_run().stack == ["main", "general"]  # type: ignore[union-attr]
        assert (faults.count("tap"), faults.count("tap.element")) == (1, 1)


def test_archived_status_0_replies_are_answers() -> None:
    click = json_after("ios/fbwda-2018-click-status0-via-appium-proxy.txt")
    deleted = json.loads(real_text("ios/fbwda-2015-ios8.4-delete-session-status0.json"))
    with replayed(
        {"tap.element": reply(click), "tap": reply(click), "session.delete": reply(deleted)}, wda="5"
    ) as (
        driver,
        faults,
        _,
    ):
        driver.tap(10, 10)
    assert faults.count("session.delete") == 1


def test_an_archived_error_status_at_http_200_is_an_error() -> None:
    """``'bundleId' desired capability not provided`` with ``status: 13`` at HTTP 200 (appium#14123)."""
    answer = reply(json_after("ios/fbwda-jsonwp-status13-bundleId-not-provided-http200.txt"))
    with (
        pytest.raises(DeviceError, match="bundleId' desired capability not provided"),
        replayed({"session.create": answer}),
    ):
        pass


def test_an_appium_1x_json_wire_status_7_is_not_a_source() -> None:
    """Appium 1.x's JSON-wire ``status: 7`` (2015): an error, not a page to parse."""
    line = real_text("appium/appium-uiautomation-ios-2015-jsonwp-status7-no-such-element.txt")
    body = json.loads(line[line.index("{") :] + "}")
    with (
        replayed({"source": reply(body)}) as (driver, _, _d),
        pytest.raises(DeviceError, match="no such element"),
    ):
        driver.observe()


# --- sources, app info and errors ---------------------------------------------------------------------


def test_wda_16_sources_name_their_app_with_bundle_id_in_one_request() -> None:
    xml = closed(real_text("ios/wda-16.2.0-ios26.6-iphone17pro-source-xml-root-processId-bundleId.txt"))
    with replayed({"source": value_reply(xml)}) as (driver, faults, _):
        scene = driver.observe()
        assert scene.foreground_app == "com.apple.SleepLockScreen" and faults.count() == 1
        assert scene.window_size == (402, 874)


def test_an_archived_source_without_bundle_id_asks_the_active_app_once() -> None:
    """The 2017 archive's XML (no ``visible``, no ``bundleId``), as facebook-wda's copy showed it."""
    quoted = real_text("ios/fbwda-2017-source-xml-root-no-visible-attr.txt").strip().rstrip(",") + '"'
    xml = closed(json.JSONDecoder(strict=False).decode(quoted))  # a JSON string cut after 11 lines
    with replayed({"source": value_reply(xml)}, wda="9") as (driver, faults, _):
        scene = driver.observe()
        assert scene.root.label == "网易新闻" and faults.count("activeAppInfo") == 1
        driver.observe()
        assert faults.count("activeAppInfo") == 1  # its name is remembered


def test_an_empty_application_tree_is_what_wda_said() -> None:
    """WDA 2.x on iOS 13.4.1 answered a Contacts source with the application element alone."""
    value = json_string("ios/wda-2020-source-xml-ios13.4.1-sim-contacts-empty-root.txt", "value")
    with replayed({"source": value_reply(value)}, wda="9") as (driver, _, _d):
        scene = driver.observe()
        assert len(scene) == 1 and scene.root.label == "Contacts"


def test_a_cut_source_is_a_scene_parse_error() -> None:
    xml = real_text("ios/wda-16.2.0-ios26.6-iphone17pro-source-xml-root-processId-bundleId.txt")
    with replayed({"source": value_reply(xml)}) as (driver, _, _d), pytest.raises(SceneParseError):
        driver.observe()


@pytest.mark.parametrize(
    ("name", "value", "bundle"),
    [
        (
            "WDA 6.1.1 (facebook-wda's repr)",
            python_value(real_text("ios/wda-6.1.1-activeAppInfo-value-repr.txt")),
            "com.test.cert.TestCert",
        ),
        (
            "WDA 1.3 (a Ruby client's hash)",
            ruby_value(real_text("ios/wda-2019-mobile-activeAppInfo-ruby.txt")),
            "com.apple.mobilesafari",
        ),
    ],
)
def test_real_active_app_info_values(name: str, value: Any, bundle: str) -> None:
    with replayed({"activeAppInfo": value_reply(value)}) as (driver, _, _d):
        assert driver.current_app() == bundle


def test_a_session_wda_forgot_is_renewed_once() -> None:
    gone = _answer("wda-2022-ios16.1-sim-invalid-session-id-404.txt", 404)
    with replayed({}) as (driver, faults, _):
        face = driver._on_close.__self__  # type: ignore[union-attr]  # the WDA face connect() started
        face.replies["apps.launch"] = gone
        with pytest.raises(SessionLost, match="Session does not exist"):
            driver.launch_app(SETTINGS)
        assert faults.count("apps.launch") == 2 and faults.count("session.create") == 1


def test_the_app_under_test_having_crashed_is_a_lost_session() -> None:
    crashed = _answer("wda-2019-create-session-app-not-running-invalid-element-state.txt", 400)
    with replayed({"source": crashed}) as (driver, faults, _):
        with pytest.raises(SessionLost, match="possibly crashed"):
            driver.observe()
        assert faults.count("source") == 1  # /source is read without a session: nothing to renew


def test_a_stale_application_element_is_a_device_error_naming_it() -> None:
    stale = _answer("wda-2022-ios15-sim-stale-element-kAXErrorServerNotFound.txt", 404)
    with (
        replayed({"source": stale}) as (driver, _, _d),
        pytest.raises(DeviceError, match="kAXErrorServerNotFound"),
    ):
        driver.observe()


def test_a_400_with_an_empty_body_is_a_device_error() -> None:
    """WDA 6.1.1 answers some requests ``400 Bad Request`` with ``Content-Length: 0`` (curl -v)."""
    transcript = real_text("ios/wda-6.1.1-getPasteboard-400-empty-body-curl.txt")
    assert "< HTTP/1.1 400 Bad Request" in transcript and "< Content-Length: 0" in transcript
    empty = {"apps.state": Reply(b"", status=400)}
    with replayed(empty) as (driver, _, _d), pytest.raises(DeviceError, match="empty reply"):
        driver.launch_app(SETTINGS)
