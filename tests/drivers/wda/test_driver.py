"""WdaDriver over the WebDriverAgent face: every Driver method, what it sends, and what it costs."""

from __future__ import annotations

import pytest
import wda
from amc.core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    ConfigError,
    DeviceError,
    DeviceOffline,
    StepArgumentError,
    TargetNotFound,
)
from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.drivers.wda import WdaConfig, WdaDriver, connect_spec
from amc.runtime.executor import Executor
from amc.runtime.observer import Observer
from amc.sim.device import SimDevice
from amc.sim.profiles import IosProfile
from amc.sim.wda_face import WdaFace

SETTINGS, DEMO = "com.apple.Preferences", "com.example.amc.demo"


def test_construction_does_no_io_and_connect_opens_one_session(face: WdaFace) -> None:
    drv = WdaDriver.from_url(face.url, timeout=1.0)
    assert face.count() == 0
    assert isinstance(drv, Driver) and drv.platform == "ios" and drv.backend == "wda"
    drv.connect()
    assert (face.count("status"), face.count("locked"), face.count("session.create")) == (1, 1, 1)
    assert drv.session_id == face.session_id is not None
    drv.close()
    assert face.count("session.delete") == 1 and face.session_id is None


def test_a_second_driver_adopts_the_running_session(face: WdaFace, driver: WdaDriver) -> None:
    other = WdaDriver.from_url(face.url, timeout=1.0).connect()
    assert other.session_id == driver.session_id
    assert face.count("session.create") == 0
    other.close()  # not its session: it leaves it alone
    assert face.count("session.delete") == 0 and face.session_id == driver.session_id


def test_observe_is_one_request_when_the_tree_names_its_app(face: WdaFace, driver: WdaDriver) -> None:
    scene = driver.observe()
    assert face.count() == 1 and face.count("source") == 1
    assert scene.foreground_app == "com.apple.springboard"
    assert scene.platform == "ios" and scene.backend == "wda" and scene.device_id == driver.device_id
    assert scene.window_size == (390, 844) and scene.source is not None


def test_observe_asks_for_the_app_when_an_older_wda_does_not_say(face: WdaFace, driver: WdaDriver) -> None:
    face.app_attributes = False
    driver.launch_app(SETTINGS)
    face.faults.reset_counts()
    scene = driver.observe()
    assert scene.foreground_app == SETTINGS
    assert face.count() == 2 and face.count("source", "activeAppInfo") == 2


def test_a_launch_is_two_requests_the_launch_and_the_app_state(face: WdaFace, driver: WdaDriver) -> None:
    driver.launch_app(SETTINGS)
    assert face.device.foreground() == SETTINGS
    assert (face.count("apps.launch"), face.count("apps.state")) == (1, 1)
    assert face.count() == 2  # no lock check on the way: it is asked only when a launch fails
    assert driver.current_app() == SETTINGS


def test_terminate_and_current_app(face: WdaFace, driver: WdaDriver) -> None:
    driver.launch_app(SETTINGS)
    face.faults.reset_counts()
    driver.terminate_app(SETTINGS)
    driver.terminate_app(SETTINGS)  # not running any more: not an error
    assert face.count("apps.terminate") == 2
    assert driver.current_app() is None  # SpringBoard in front means no app
    assert face.count("activeAppInfo") == 1 and face.count("apps.state") == 0
    assert face.device.app_state(SETTINGS) == 1


@pytest.mark.parametrize("wda_generation", ["5", "9", "10"])
def test_a_missing_app_is_app_not_installed_from_its_refusal(wda_generation: str) -> None:
    device = SimDevice("ios", profile=IosProfile(wda=wda_generation))
    with WdaFace(device) as face:
        drv = WdaDriver.from_url(face.url, timeout=1.0).connect()
        face.faults.reset_counts()
        with pytest.raises(AppNotInstalled) as caught:
            drv.launch_app("com.example.missing")
        assert caught.value.app_id == "com.example.missing"
        assert isinstance(caught.value.__cause__, wda.WDARequestError)
        assert "FBSApplicationLibrary) returned nil" in str(caught.value)
        assert face.count() == 1  # the refused launch, nothing else
        drv.close()


@pytest.mark.timeout(10)
def test_an_older_wda_that_hangs_on_a_missing_app_is_app_not_installed_not_a_timeout() -> None:
    device = SimDevice("ios", profile=IosProfile(wda="4"))
    with WdaFace(device) as face:
        drv = WdaDriver.from_url(face.url, timeout=2.0, launch_timeout=0.5).connect()
        face.faults.reset_counts()
        with pytest.raises(AppNotInstalled, match=r"before 5\.1\.1") as caught:
            drv.launch_app("com.example.missing")
        assert not caught.value.transient  # the task loop does not launch it again
        assert (face.count("apps.launch"), face.count("apps.state")) == (1, 1)
        drv.close()


def test_a_launch_that_never_reaches_the_front_is_app_launch_failed(face: WdaFace) -> None:
    face.device.launch = lambda app_id: None  # type: ignore[method-assign]  # the app dies on start
    drv = WdaDriver(face.url, config=WdaConfig(timeout=1.0, launch_timeout=0.3, launch_poll_interval=0.1))
    drv.connect()
    face.faults.reset_counts()
    with pytest.raises(AppLaunchFailed, match="not in front") as caught:
        drv.launch_app(SETTINGS)
    assert caught.value.app_id == SETTINGS
    assert 2 <= face.count("apps.state") <= 5  # polled, and bounded by launch_timeout / interval
    assert face.count("locked") == 1  # asked once, to tell a locked phone apart
    drv.close()


def test_a_locked_phone_is_device_offline(face: WdaFace, driver: WdaDriver) -> None:
    face.locked = True
    face.device.launch = lambda app_id: None  # type: ignore[method-assign]  # a locked phone shows no app
    driver.config = WdaConfig(timeout=1.0, launch_timeout=0.2, launch_poll_interval=0.05)
    with pytest.raises(DeviceOffline) as caught:
        driver.launch_app(SETTINGS)
    assert caught.value.state == "locked" and "unlock" in str(caught.value)
    assert face.count("unlock") == 0  # never unlocks on its own
    with pytest.raises(DeviceOffline):
        WdaDriver.from_url(face.url, timeout=1.0).connect()


def test_an_app_under_a_system_alert_was_launched_and_is_the_app_in_front(
    face: WdaFace, driver: WdaDriver
) -> None:
    driver.launch_app("com.example.amc.notes")  # it asks for notifications on its first launch
    assert face.count() == 2
    assert face.active_bundle() == "com.apple.springboard"  # what WDA reports while its alert is up
    face.faults.reset_counts()
    assert driver.current_app() == "com.example.amc.notes"
    assert (face.count("activeAppInfo"), face.count("apps.state")) == (1, 1)
    scene = driver.observe()
    assert scene.foreground_app == "com.apple.springboard"
    allow = scene.find(Selector(text="Allow"))
    assert allow is not None
    driver.tap(*tap_point(allow, scene.window))
    assert driver.observe().foreground_app == "com.example.amc.notes"


def test_a_tap_on_a_selector_from_the_latest_scene_is_one_request(face: WdaFace, driver: WdaDriver) -> None:
    driver.launch_app(SETTINGS)
    context = Observer(driver)
    context.look()
    face.faults.reset_counts()
    result = Executor(driver).execute(PlannedStep("tap", {"text": "General"}), context)
    assert result.success, result.error
    assert face.count() == 1 and face.count("tap") == 1
    assert face.device.current_run().stack == ["main", "general"]  # type: ignore[union-attr]


def test_input_methods_are_one_request_each(face: WdaFace, driver: WdaDriver) -> None:
    driver.launch_app(DEMO)
    scene = driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    face.faults.reset_counts()
    driver.tap(*tap_point(field, scene.window))
    driver.type_text("qa")
    driver.press("enter")
    driver.long_press(*tap_point(field, scene.window), duration=0.5)
    driver.swipe(195, 600, 195, 300, 0.2)
    driver.press("volume_up")
    driver.press("home")
    assert face.count() == 7
    for route in ("tap", "touchAndHold", "drag", "pressButton", "homescreen"):
        assert face.count(route) == 1, route
    assert face.count("keys") == 2  # the text, then "\n" for enter
    assert face.device.foreground() == "com.apple.springboard"
    driver.launch_app(DEMO)
    typed = driver.observe().find(Selector(id="username"))
    assert typed is not None and typed.value == "qa"


def test_typing_with_no_keyboard_is_target_not_found(face: WdaFace, driver: WdaDriver) -> None:
    driver.launch_app(DEMO)
    with pytest.raises(TargetNotFound, match="keyboard"):
        driver.type_text("lost")
    driver.type_text("")  # nothing to type: no request
    assert face.count("keys") == 1


def test_back_is_not_an_ios_key(face: WdaFace, driver: WdaDriver) -> None:
    with pytest.raises(StepArgumentError) as caught:
        driver.press("back")
    assert "home, enter, volume_up, volume_down" in str(caught.value)
    assert face.count() == 0


def test_screenshot_is_png(face: WdaFace, driver: WdaDriver) -> None:
    assert driver.screenshot() == face.device.screenshot_png()
    assert face.count("screenshot") == 1


def test_an_older_wda_taps_on_the_legacy_route_after_one_unknown_command() -> None:
    device = SimDevice("ios", profile=IosProfile(wda="5"))  # /wda/tap came with WDA 6.0.0
    with WdaFace(device) as face:
        driver = WdaDriver.from_url(face.url, timeout=1.0).connect()
        driver.launch_app(SETTINGS)
        scene = driver.observe()
        general = scene.find(Selector(text="General"))
        assert general is not None
        face.faults.reset_counts()
        driver.tap(*tap_point(general, scene.window))
        assert (face.count("tap"), face.count("tap.element")) == (1, 1)
        assert face.device.current_run().stack == ["main", "general"]  # type: ignore[union-attr]
        driver.tap(5, 60)  # the back button; straight to the legacy route now
        assert (face.count("tap"), face.count("tap.element")) == (1, 2)
        driver.close()


def test_each_driver_keeps_its_own_timeout(face: WdaFace) -> None:
    fast = WdaDriver.from_url(face.url, timeout=0.5)
    slow = WdaDriver.from_url(face.url, timeout=7.0)
    assert (fast.config.timeout, slow.config.timeout) == (0.5, 7.0)
    fast.connect(), slow.connect()
    assert wda.HTTP_TIMEOUT == 180.0  # the client's module-wide default is left alone
    for drv in (fast, slow):
        drv.close()


def test_a_closed_driver_refuses_calls_and_close_is_idempotent(face: WdaFace) -> None:
    drv = WdaDriver.from_url(face.url, timeout=1.0).connect()
    drv.close()
    drv.close()
    with pytest.raises(DeviceError, match="closed"):
        drv.observe()


def test_bad_urls_and_settings_are_config_errors() -> None:
    for url in ("ftp://x", "127.0.0.1:8100", "http://"):
        with pytest.raises(ConfigError):
            WdaDriver(url)
    with pytest.raises(ConfigError):
        WdaConfig(timeout=0)
    with pytest.raises(ConfigError):
        WdaDriver.from_udid("not a udid")


def test_connect_spec_builds_from_a_url_and_refuses_the_rest(face: WdaFace) -> None:
    drv = connect_spec(face.url, {"timeout": 1.5, "device_id": "phone-1"})
    assert drv.device_id == "phone-1" and drv.config.timeout == 1.5 and drv.session_id
    drv.close()
    with pytest.raises(ConfigError, match="bad iOS target"):
        connect_spec("not-a-phone", {})
    with pytest.raises(ConfigError, match="unknown option"):
        connect_spec(face.url, {"latency": 1})
    via_root = connect(f"ios:{face.url}", timeout=1.0)
    assert isinstance(via_root, WdaDriver)
    via_root.close()


def test_sim_wda_spec_serves_a_face_and_close_stops_it() -> None:
    drv = connect("sim+wda:ios", timeout=1.0, device_id="SIM-42")
    assert isinstance(drv, WdaDriver) and drv.device_id == "SIM-42"
    drv.launch_app(SETTINGS)
    assert drv.observe().foreground_app == SETTINGS
    drv.close()
    with pytest.raises(ConfigError):
        connect("sim+wda:android")
    with pytest.raises(ConfigError, match="unknown option"):
        connect("sim+wda:ios", colour="blue")


@pytest.mark.parametrize("app", [None, SETTINGS, DEMO])
def test_the_scene_matches_the_in_process_simulator(
    face: WdaFace, driver: WdaDriver, app: str | None
) -> None:
    from amc.connect.simulated import SimDriver

    if app is not None:
        driver.launch_app(app)
    wire = driver.observe()
    local = SimDriver("ios", device=face.device).observe()
    assert wire.foreground_app == local.foreground_app
    assert [e.type for e in wire] == [e.type for e in local]
    assert [(e.bounds, e.visible, e.enabled) for e in wire] == [
        (e.bounds, e.visible, e.enabled) for e in local
    ]
    if app != SETTINGS:  # Settings has '&' in labels: see test_xml_entities_in_labels_read_back_as_characters
        assert [e.identifier for e in wire] == [e.identifier for e in local]
        assert wire.texts() == local.texts()
