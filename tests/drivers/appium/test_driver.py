"""AppiumDriver against the Appium face: what each call costs on the wire and what the user sees."""

from __future__ import annotations

from typing import Any

import pytest
from amc.core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    ConfigError,
    DeviceError,
    StepArgumentError,
    TargetNotFound,
)
from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.runtime.executor import Executor
from amc.runtime.observer import Observer
from amc.sim import appium_input
from amc.sim.appium_face import AppiumFace
from amc.sim.catalog import DEMO_APP
from amc.sim.profiles import IosProfile

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SUBPAGE = {"android": "Connected devices", "ios": "General"}


def test_it_is_a_driver_and_its_constructor_does_no_io(face: AppiumFace) -> None:
    drv = AppiumDriver(face.url, options_for(face.platform), timeout=1.0)
    assert isinstance(drv, Driver)
    assert (drv.platform, drv.backend, drv.session_id) == (face.platform, "appium", None)
    assert face.count() == 0
    drv.close()
    assert face.count() == 0  # no session, nothing to end


def test_session_start_is_one_request_and_settings_are_applied_once(face: AppiumFace) -> None:
    settings = {"snapshotMaxDepth": 12, "pageSourceExcludedAttributes": "visible,accessible"}
    drv = AppiumDriver(face.url, options_for(face.platform), timeout=1.0, settings=settings)
    try:
        drv.observe()
        drv.observe()
        assert face.count("new_session") == 1
        assert face.count("update_settings") == 1
        assert face.state.settings == settings
        assert drv.requests == face.count()
    finally:
        drv.close()
    assert face.count("delete_session") == 1


def test_observe_is_one_page_source_request(face: AppiumFace, driver: AppiumDriver) -> None:
    driver.launch_app(SETTINGS[face.platform])
    face.faults.reset_counts()
    scene = driver.observe()
    assert face.count() == face.count("source") == 1
    assert scene.foreground_app == SETTINGS[face.platform]
    assert (scene.platform, scene.backend, scene.device_id) == (
        face.platform,
        "appium",
        face.device.device_id,
    )
    assert scene.window_size == face.device.window_size
    assert scene.source is not None and scene.source.lstrip().startswith("<?xml")


# Before WebDriverAgent 10.1.0 the XCUITest source names no bundle id (the UiAutomator2 source names
# every node's package).
OLD_WDA = IosProfile(wda="9")


@pytest.mark.parametrize("platform", ["ios"])
@pytest.mark.parametrize("profile", [OLD_WDA])
def test_ios_learns_an_apps_bundle_id_once_from_active_app_info(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    driver.launch_app(SETTINGS["ios"])
    driver.press("home")  # SpringBoard's name has not been seen yet
    face.faults.reset_counts()
    assert driver.observe().foreground_app == "com.apple.springboard"
    assert (face.count("source"), face.count("mobile: activeAppInfo")) == (1, 1)
    face.faults.reset_counts()
    assert driver.observe().foreground_app == "com.apple.springboard"
    assert face.count() == 1


@pytest.mark.parametrize("platform", ["ios"])
@pytest.mark.parametrize("profile", [OLD_WDA])
def test_ios_foreground_when_active_app_info_has_no_name(
    face: AppiumFace, driver: AppiumDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real WebDriverAgents often answer activeAppInfo with an empty ``name`` (the app's identifier)."""
    platforms, info = appium_input.MOBILE_COMMANDS["mobile: activeAppInfo"]

    def nameless(phone: appium_input.Phone, args: Any) -> Any:
        return {**info(phone, args), "name": ""}

    monkeypatch.setitem(appium_input.MOBILE_COMMANDS, "mobile: activeAppInfo", (platforms, nameless))
    driver.launch_app(SETTINGS["ios"])
    face.faults.reset_counts()
    assert driver.observe().foreground_app == SETTINGS["ios"]
    assert (face.count("source"), face.count("mobile: activeAppInfo")) == (1, 1)
    driver.launch_app(DEMO_APP)
    face.faults.reset_counts()
    assert driver.observe().foreground_app == DEMO_APP
    driver.launch_app(SETTINGS["ios"])
    face.faults.reset_counts()
    assert driver.observe().foreground_app == SETTINGS["ios"]
    assert face.count() == 1  # learned from the first Scene


def test_a_selector_tap_from_the_latest_scene_is_one_actions_request(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    driver.launch_app(SETTINGS[face.platform])
    context = Observer(driver)
    context.look()
    face.faults.reset_counts()
    result = Executor(driver).execute(PlannedStep("tap", {"text": SUBPAGE[face.platform]}), context)
    assert result.success, result.error
    assert face.count() == face.count("actions") == 1
    assert [g.kind for g in face.gestures] == ["tap"]
    assert len(face.device.current_run().stack) == 2  # type: ignore[union-attr]


def _both(route: str) -> dict[str, dict[str, int]]:
    return {"android": {route: 1}, "ios": {route: 1}}


# call -> the requests it makes, per platform (route name -> count)
BUDGETS: dict[str, tuple[Any, dict[str, dict[str, int]]]] = {
    "launch_app": (
        lambda d, p: d.launch_app(SETTINGS[p]),
        {
            # and mobile: isLocked and the source: getCurrentPackage names the app behind a lock
            # screen and behind its own crash or ANR dialog too
            "android": {
                "mobile: startActivity": 1,
                "mobile: getCurrentPackage": 1,
                "mobile: isLocked": 1,
                "source": 1,
            },
            "ios": {"mobile: activateApp": 1, "mobile: queryAppState": 1},
        },
    ),
    "terminate_app": (lambda d, p: d.terminate_app(SETTINGS[p]), _both("mobile: terminateApp")),
    "current_app": (
        lambda d, p: d.current_app(),
        {
            "android": {"mobile: isLocked": 1, "mobile: getCurrentPackage": 1},
            "ios": {"mobile: activeAppInfo": 1},
        },
    ),
    "tap": (lambda d, p: d.tap(100, 600), _both("actions")),
    "long_press": (lambda d, p: d.long_press(100, 600, 0.8), _both("actions")),
    "swipe": (lambda d, p: d.swipe(100, 600, 100, 300), _both("actions")),
    "press_home": (
        lambda d, p: d.press("home"),
        {"android": {"mobile: pressKey": 1}, "ios": {"mobile: pressButton": 1}},
    ),
    "screenshot": (lambda d, p: d.screenshot(), _both("screenshot")),
    "type_text": (lambda d, p: d.type_text("hello"), _both("actions")),
}


@pytest.mark.parametrize("name", sorted(BUDGETS))
def test_request_budget_per_call(face: AppiumFace, driver: AppiumDriver, name: str) -> None:
    call, budgets = BUDGETS[name]
    expected = budgets[face.platform]
    call(driver, face.platform)
    assert {route: face.count(route) for route in expected} == expected
    assert face.count() == sum(expected.values())


def test_current_app_and_the_home_screen(face: AppiumFace, driver: AppiumDriver) -> None:
    assert driver.current_app() is None  # launcher / SpringBoard
    driver.launch_app(DEMO_APP)
    assert driver.current_app() == DEMO_APP
    driver.press("home")
    assert driver.current_app() is None
    if face.platform == "android":  # three current_app calls and the launch's check
        assert face.count("mobile: getCurrentPackage") == 4
    else:  # the launch checks the app's state; on SpringBoard, the launched app's state tells home
        assert (face.count("mobile: activeAppInfo"), face.count("mobile: queryAppState")) == (3, 2)


def test_typing_is_one_key_actions_request_into_the_focused_field(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    driver.launch_app(DEMO_APP)
    scene = driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    driver.tap(*tap_point(field, scene.window))
    face.faults.reset_counts()
    driver.type_text("qa")
    assert face.count() == face.count("actions") == 1
    run = face.device.current_run()
    assert run is not None and run.values["username"] == "qa"
    face.faults.reset_counts()
    driver.press("enter")  # Android: keycode 66; iOS: the W3C Enter key
    assert face.count() == 1 and run.focused is None
    driver.type_text("more")  # nothing has the focus: the keys go nowhere, as on a phone
    assert run.values["username"] == "qa"


def test_keys_are_checked_before_anything_is_sent(face: AppiumFace, driver: AppiumDriver) -> None:
    with pytest.raises(StepArgumentError, match="not supported"):
        driver.press("jump")
    if face.platform == "ios":
        with pytest.raises(StepArgumentError, match="back"):
            driver.press("back")  # iPhones have no back key
    else:
        driver.launch_app(SETTINGS["android"])
        face.faults.reset_counts()
        driver.press("back")
        assert face.count("mobile: pressKey") == 1 and face.device.foreground() == face.device.launcher
        face.faults.reset_counts()
    with pytest.raises(StepArgumentError):
        driver.launch_app("not an app id")
    assert face.count() == 0


def test_a_missing_app_is_app_not_installed(face: AppiumFace, driver: AppiumDriver) -> None:
    with pytest.raises(AppNotInstalled) as caught:
        driver.launch_app("com.example.not.installed")
    assert caught.value.app_id == "com.example.not.installed"
    # XCUITest relays WebDriverAgent's FrontBoard error, which says it
    if face.platform == "android":  # am resolved nothing; the state (0) says the app is missing
        assert face.count("mobile: startActivity") == 1 and face.count("mobile: queryAppState") == 1
        assert face.count("mobile: activateApp") == 0
    else:
        assert face.count("mobile: activateApp") == 1 and face.count("mobile: queryAppState") == 0
    driver.terminate_app("com.example.not.installed")  # stopping what is not there is fine


def test_an_app_that_never_comes_to_the_front_is_app_launch_failed(
    face: AppiumFace, driver: AppiumDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(face.device, "launch", lambda app_id: None)  # activateApp "works", nothing happens
    driver.launch_timeout = 0.3
    with pytest.raises(AppLaunchFailed, match=r"not in front after 0\.3 s"):
        driver.launch_app(SETTINGS[face.platform])
    if face.platform == "android":
        assert face.count("mobile: queryAppState") == 1  # installed, so not AppNotInstalled
    else:
        assert face.count("mobile: queryAppState") >= 3  # polled until launch_timeout, then asked once


def test_a_server_without_the_mobile_command_is_a_clear_device_error(
    face: AppiumFace, driver: AppiumDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(appium_input.MOBILE_COMMANDS, "mobile: activateApp")
    monkeypatch.delitem(appium_input.MOBILE_COMMANDS, "mobile: startActivity", raising=False)
    with pytest.raises(DeviceError, match="does not support") as caught:
        driver.launch_app(SETTINGS[face.platform])
    assert type(caught.value) is DeviceError and not caught.value.transient
    assert "mobile: activateApp" in str(caught.value) and caught.value.hint


def test_swipes_scroll_and_elements_can_be_found_on_the_server(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    driver.launch_app(SETTINGS[face.platform])
    width, height = driver.window_size()
    assert (width, height) == face.device.window_size
    driver.swipe(width // 2, height * 3 // 4, width // 2, height // 4, 0.3)
    assert face.gestures[-1].kind == "swipe"
    run = face.device.current_run()
    assert run is not None and sum(run.scroll.values()) > 0
    driver.launch_app(DEMO_APP)
    button = driver.find("id", "sign_in")
    assert driver.element_bounds(button).width > 0
    field = driver.find("id", "username")
    driver.type_into(field, "qa")
    assert "qa" in driver.element_text(field)
    driver.click(button)  # wrong password: the demo shows an alert
    assert face.device.current_run().alert is not None  # type: ignore[union-attr]
    with pytest.raises(TargetNotFound):
        driver.find("id", "no_such_thing")
    with pytest.raises(StepArgumentError):
        driver.find("css selector", "x")


def test_sim_appium_spec_starts_a_face_that_close_stops() -> None:
    for platform in ("android", "ios"):
        drv = connect(f"sim+appium:{platform}", timeout=2.0)
        assert isinstance(drv, AppiumDriver) and drv.session_id is not None
        drv.launch_app(DEMO_APP)
        assert drv.observe().foreground_app == DEMO_APP
        url = drv.server_url
        drv.close()
        probe = AppiumDriver(url, options_for(drv.platform), timeout=1.0)
        with pytest.raises(DeviceError):
            probe.connect()
    with pytest.raises(ConfigError, match="sim\\+appium"):
        connect("sim+appium:windows")
    with pytest.raises(ConfigError, match="colour"):
        connect("sim+appium:android", colour="red")
