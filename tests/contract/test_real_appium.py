"""Real Appium server answers replayed to Appium-Python-Client over W3C: the right typed error.

Each case connects ``sim+appium:PLATFORM?…`` through ``amc.drivers.connect.connect`` with the
Appium face answering one route (an execute by its script) with a real answer from
``tests/fixtures/real/appium``: its ``error`` and ``message`` verbatim, in the W3C envelope Appium
answers with (``stacktrace`` cut, as the published logs cut it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from amc.core.errors import AppLaunchFailed, AppNotInstalled, DeviceError, HarnessError, TargetNotFound
from amc.drivers.appium import AppiumDriver
from amc.drivers.connect import connect
from amc.sim import appium_input
from amc.sim.catalog import AppSpec, Screen
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import IosProfile
from amc.sim.replay import Reply

from tests.contract.real import connected, json_string, real_text, reply, value_reply, w3c

UNKNOWN = "An unknown server-side error occurred while processing the command. Original error: "


@contextmanager
def replayed(
    platform: str, replies: dict[str, Reply], *, wda: str = "10", apps: dict[str, AppSpec] | None = None
) -> Iterator[tuple[AppiumDriver, FaultInjector, SimDevice]]:
    profile = IosProfile(wda=wda) if platform == "ios" else None
    device = SimDevice("android" if platform == "android" else "ios", profile=profile)
    device.apps.update(apps or {})
    query = f"?wda={wda}" if platform == "ios" else ""
    spec = f"sim+appium:{platform}{query}"
    with connected(spec, device, replies, AppiumDriver, timeout=2.0, launch_timeout=0.6) as (driver, faults):
        yield driver, faults, device


def _uia2_message(name: str) -> str:
    """The error text the UiAutomator2 driver gave a client (a Python client's or a log's copy)."""
    text = real_text(f"appium/{name}")
    line = next(line for line in text.splitlines() if "Original error:" in line)
    return (
        line[line.index("Original error:") + len("Original error: ") :].strip()
        if UNKNOWN.strip() in line
        else line
    )


APPIUM_SETTINGS = "io.appium.settings"


def _installed(app_id: str) -> dict[str, AppSpec]:
    return {app_id: AppSpec(app_id, "Appium Settings", "main", {"main": Screen("main", "Settings", ())})}


LAUNCHES: list[tuple[str, str, str, type[HarnessError], dict[str, AppSpec]]] = [
    (
        "UiAutomator2: no launchable activity, package missing",
        "com.example.not.installed",
        UNKNOWN + _uia2_message("uia2-activateApp-missing-launchable-activity-python-client.txt"),
        AppNotInstalled,
        {},
    ),
    (
        "UiAutomator2: no launchable activity, package there",
        "com.android.systemui",
        UNKNOWN + _uia2_message("uia2-activateApp-missing-launchable-activity-python-client.txt"),
        AppLaunchFailed,
        {},
    ),
    (
        "UiAutomator2 3.9.5 on Android 15: Error type 3",
        APPIUM_SETTINGS,
        " ".join(
            real_text("appium/uia2-driver-3.9.5-a15-emulator-am-start-activity-error-type-3.txt").split()
        ),
        AppLaunchFailed,
        _installed(APPIUM_SETTINGS),
    ),
]


@pytest.mark.parametrize(("name", "app", "message", "error", "apps"), LAUNCHES, ids=[c[0] for c in LAUNCHES])
def test_uiautomator2_refusing_an_activation(
    name: str,
    app: str,
    message: str,
    error: type[HarnessError],
    apps: dict[str, AppSpec],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server without ``mobile: startActivity`` is asked to ``activateApp`` (the real answers
    here are UiAutomator2's refusals of that)."""
    monkeypatch.delitem(appium_input.MOBILE_COMMANDS, "mobile: startActivity")
    with replayed(
        "android", {"mobile: activateApp": w3c("unknown error", message, 500, trace="stacktrace")}, apps=apps
    ) as (
        driver,
        faults,
        _,
    ):
        with pytest.raises(error) as caught:
            driver.launch_app(app)
        assert type(caught.value) is error and caught.value.app_id == app
        assert (
            faults.count("mobile: queryAppState") == 1
        )  # UiAutomator2 says the same of both: the state tells


def test_xcuitest_relaying_frontboards_not_found_is_app_not_installed() -> None:
    logged = real_text("appium/xcuitest-create-session-FBSOpenApplicationErrorDomain-not-found.txt")
    message = logged.split("Failed to create WDA session (", 1)[1].rsplit("). Retrying", 1)[0]
    answer = {"mobile: activateApp": w3c("invalid argument", message, 400, trace="stacktrace")}
    with replayed("ios", answer) as (driver, _, _d), pytest.raises(AppNotInstalled, match="returned nil"):
        driver.launch_app("com.uhuo.live")


def test_xcuitest_timing_out_on_a_proxied_activation_is_decided_by_the_apps_state() -> None:
    """Appium 1.18.3: ``Could not proxy command … timeout of 240000ms exceeded`` (WDA never
    answered): not a timeout to repeat; the app's state (1: not running) says it is missing."""
    said = real_text("appium/xcuitest-1.18.3-ios14-activateApp-proxy-timeout-240000ms.txt")
    message = said[said.index("An unknown server-side error") :].strip()
    with replayed(
        "ios", {"mobile: activateApp": w3c("unknown error", message, 500, trace="stacktrace")}, wda="4"
    ) as (
        driver,
        faults,
        _,
    ):
        with pytest.raises(AppNotInstalled) as caught:
            driver.launch_app("com.example.not.installed")
        assert not caught.value.transient and faults.count("mobile: queryAppState") == 1


@pytest.mark.timeout(20)
def test_xcuitest_in_front_of_a_wda_that_never_answers_is_app_not_installed() -> None:
    """appium/appium#18206: activating an invalid bundle hangs forever (WDA before 5.1.4)."""
    assert "hang forever" in real_text("appium/xcuitest-appium2beta53-activate-invalid-app-hangs-report.txt")
    with replayed("ios", {}, wda="4") as (driver, faults, _):
        with pytest.raises(AppNotInstalled, match="never answers"):
            driver.launch_app("com.example.not.installed")
        assert faults.count("mobile: activateApp") == 1


@pytest.mark.parametrize(
    "fixture",
    [
        "uia2-server-2023-no-such-element-404-stacktrace.txt",
        "uia2-server-stale-element-reference-404-stacktrace.txt",
    ],
)
def test_uiautomator2_server_element_errors_are_target_not_found(fixture: str) -> None:
    error = json_string(f"appium/{fixture}", "error")
    answer = w3c(error, json_string(f"appium/{fixture}", "message"), 404, trace="stacktrace")
    with replayed("android", {"find_element": answer}) as (driver, _, _d), pytest.raises(TargetNotFound):
        driver.find("id", "slider")


def test_appium_1x_json_wire_status_7_is_target_not_found() -> None:
    """Appium 1.x answered with JSON-wire bodies (``{"status": 7, "value": {"message": …}}``)."""
    line = real_text("appium/appium-uiautomation-ios-2015-jsonwp-status7-no-such-element.txt")
    body = json.loads(line[line.index("{") :] + "}")
    answer = {"find_element": reply(body, status=500)}
    with replayed("ios", answer) as (driver, _, _d), pytest.raises(TargetNotFound):
        driver.find("accessibility id", "General")


def test_a_session_refused_because_wda_did_not_start_names_the_reason() -> None:
    said = real_text("appium/xcuitest-device-locked-preinstalled-wda-timeout.txt")
    message = said[said.index("An unknown server-side error") :].strip()
    faults = FaultInjector()
    with pytest.raises(DeviceError, match="might be locked"):
        connect(
            "sim+appium:ios",
            faults=faults,
            replies={"new_session": w3c("unknown error", message, 500, trace="stacktrace")},
            timeout=2.0,
        )
    assert faults.count("new_session") == 1


def _am(name: str) -> Reply:
    """A real ``am start`` output as UiAutomator2's ``mobile: startActivity`` answers it (its value)."""
    return value_reply(real_text(f"android/{name}"))


@pytest.mark.parametrize(
    "answer",
    ["am-start-W-S-status-ok-ThisTime-blog.txt", "react-native-cold-start-am-start-W-status-timeout.txt"],
)
def test_uiautomator2_start_activity_reports_are_launches(answer: str) -> None:
    with replayed("android", {"mobile: startActivity": _am(answer)}) as (driver, faults, device):
        device.launch("com.android.settings")  # what the replayed start did on the phone
        driver.launch_app("com.android.settings")
        assert faults.count("mobile: startActivity") == 1 and faults.count("mobile: getCurrentPackage") == 1
        assert faults.count("mobile: activateApp") == 0


def test_uiautomator2_start_activity_resolving_nothing_for_a_missing_app_is_app_not_installed() -> None:
    missing = "org.mozilla.fenix.performancetest"
    answer = {"mobile: startActivity": _am("pixel2-am-start-package-unable-to-resolve-intent-fenix.txt")}
    with replayed("android", answer) as (driver, faults, _):
        with pytest.raises(AppNotInstalled) as caught:
            driver.launch_app(missing)
        assert caught.value.app_id == missing
        assert faults.count("mobile: startActivity") == 1 and faults.count("mobile: queryAppState") == 1
