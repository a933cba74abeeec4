"""U2Driver over the adb face: every Driver method, what it costs on the wire, config and discovery."""

from __future__ import annotations

import io
import socket

import adbutils._adb
import pytest
from amc.core.errors import AppLaunchFailed, AppNotInstalled, ConfigError, StepArgumentError
from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.drivers.base import KEYS, Driver
from amc.drivers.connect import connect
from amc.drivers.u2 import U2Config, U2Driver, connect_spec, discover_android
from amc.runtime.executor import Executor
from amc.runtime.observer import Observer
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import Fault, FaultInjector
from PIL import Image

from tests.drivers.u2.conftest import SERIAL, DriverFactory

SETTINGS = "com.android.settings"
DEMO = "com.example.amc.demo"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_constructor_does_no_io_and_is_a_driver(face: AdbFace, make_driver: DriverFactory) -> None:
    driver = make_driver()
    assert isinstance(driver, Driver)
    assert (driver.device_id, driver.platform, driver.backend) == (SERIAL, "android", "u2")
    assert face.requests() == 0


def test_connect_checks_the_jar_and_pings_once(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    assert face.faults.count("adb:shell:md5sum") == 1 and face.faults.count("rpc:ping") == 1
    assert face.requests("rpc:") == 1
    driver.observe()
    driver.current_app()
    assert face.faults.count("adb:host:version") == 1  # asked once per driver, not per command


def test_observe_is_one_rpc_request(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(DEMO)
    driver.connect()
    face.faults.reset_counts()
    scene = driver.observe()
    assert face.requests("rpc:") == 1 and face.faults.count("rpc:dumpWindowHierarchy") == 1
    assert face.requests("adb:shell") == 0
    assert scene.foreground_app == DEMO
    assert (scene.device_id, scene.platform, scene.backend) == (SERIAL, "android", "u2")
    assert scene.window_size == (1080, 2400)
    assert scene.find(Selector(id="username")) is not None
    assert scene.source is not None and scene.source.startswith("<?xml")


def test_connect_learns_the_sdk_level_and_the_home_package_once(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    history = face.phone(SERIAL).shell.history
    assert "getprop ro.build.version.sdk && getprop ro.build.version.release" in history
    assert face.faults.count("adb:shell:cmd") == 1  # the HOME query
    assert (driver.sdk, driver.os_version) == (34, "14")
    driver.connect()
    assert face.faults.count("adb:shell:cmd") == 1 and face.faults.count("adb:shell:getprop") == 1


def test_launch_costs_two_shell_commands_and_no_rpc(
    face: AdbFace, driver: U2Driver, device: SimDevice
) -> None:
    driver.connect()
    face.faults.reset_counts()
    driver.launch_app(SETTINGS)
    assert device.foreground() == SETTINGS
    shells = {r: n for r, n in face.faults.counts.items() if r.startswith("adb:shell")}
    assert shells == {"adb:shell:am": 1, "adb:shell:dumpsys": 1}
    assert face.requests("rpc:") == 0
    assert face.phone(SERIAL).shell.history[-2:] == [
        "am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p "
        "com.android.settings",
        "dumpsys window displays",
    ]


def test_launching_a_missing_app_launches_nothing(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(SETTINGS)
    driver.connect()
    face.faults.reset_counts()
    with pytest.raises(AppNotInstalled) as caught:
        driver.launch_app("com.example.not.installed")
    assert caught.value.app_id == "com.example.not.installed"
    # no activity answered the intent, and `pm path` told why: no package, so no second start;
    # `pm list users` says whether another user (a work profile) may have it
    assert face.faults.count("adb:shell:am") == 1 and face.faults.count("adb:shell:pm") == 2
    assert face.faults.count("adb:shell:dumpsys") == 0
    assert device.foreground() == SETTINGS
    with pytest.raises(AppNotInstalled):
        driver.launch_app("not a package; reboot")
    assert face.faults.count("adb:shell:am") == 1  # the malformed name never reached the phone


def test_an_app_without_launcher_activity_fails_to_launch(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.reset_counts()
    with pytest.raises(AppLaunchFailed, match="no launcher activity"):
        driver.launch_app("com.android.systemui")
    # LAUNCHER, then (installed) LEANBACK_LAUNCHER, then the failure: no focus polling
    assert face.faults.count("adb:shell:am") == 2 and face.faults.count("adb:shell:dumpsys") == 0


@pytest.mark.timeout(10)
def test_an_unanswered_am_start_is_decided_by_the_foreground_not_repeated(
    face: AdbFace, make_driver: DriverFactory
) -> None:
    driver = make_driver(timeout=0.5, launch_timeout=0.3, launch_poll=0.1)
    face.faults.reset_counts()
    face.faults.inject(Fault.HANG, routes={"adb:shell:am"})
    with pytest.raises(AppLaunchFailed, match="did not reach the foreground"):
        driver.launch_app(SETTINGS)
    face.faults.clear()
    assert face.faults.count("adb:shell:am") == 1 and face.faults.count("adb:shell:dumpsys") >= 2


@pytest.mark.timeout(10)
def test_an_app_that_never_takes_focus_fails_within_the_launch_timeout(
    face: AdbFace, make_driver: DriverFactory, device: SimDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = make_driver(launch_timeout=0.3, launch_poll=0.05)
    monkeypatch.setattr(device, "launch", lambda app_id: None)  # the app starts but never shows
    with pytest.raises(AppLaunchFailed, match="did not reach the foreground") as caught:
        driver.launch_app(SETTINGS)
    assert "in front: com.android.launcher3" in str(caught.value)
    assert face.faults.count("adb:shell:dumpsys") >= 2  # polled, boundedly


def test_current_app_terminate_and_home(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    assert driver.current_app() is None  # the launcher is in front
    driver.launch_app(SETTINGS)
    assert driver.current_app() == SETTINGS
    driver.terminate_app(SETTINGS)
    assert device.app_state(SETTINGS) == 1
    assert driver.current_app() is None
    driver.terminate_app(SETTINGS)  # not running: not an error
    driver.terminate_app("com.example.not.installed")
    assert face.faults.count("adb:shell:cmd") == 1  # the HOME package is learnt once, at connect
    assert face.faults.count("adb:shell:am") == 4  # am start -W, then three am force-stop


def test_current_app_treats_the_learnt_home_package_as_home(
    face: AdbFace, make_driver: DriverFactory
) -> None:
    vendor = SimDevice("android", "vendor-1")
    vendor.launcher = "com.vendor.home"  # a launcher core.apps does not know
    face.add_device(vendor)
    driver = make_driver("vendor-1")
    assert b"mCurrentFocus=Window{" in face.phone("vendor-1").shell.run("dumpsys window displays").output
    assert driver.current_app() is None


def test_tap_on_a_selector_from_the_latest_scene_is_one_request(
    face: AdbFace, driver: U2Driver, device: SimDevice
) -> None:
    driver.launch_app(SETTINGS)
    context = Observer(driver)
    context.look()
    face.faults.reset_counts()
    result = Executor(driver).execute(PlannedStep("tap", {"text": "Display"}), context)
    assert result.success, result.error
    assert face.requests("rpc:") == 1 and face.faults.count("rpc:click") == 1
    assert face.requests("adb:shell") == 0
    assert device.current_run().stack == ["main", "display"]  # type: ignore[union-attr]


def test_input_methods_and_their_costs(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    driver.launch_app(DEMO)
    scene = driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    driver.tap(*tap_point(field, scene.window))
    driver.type_text("q")  # the first time: AdbKeyboard becomes the current input method
    face.faults.reset_counts()
    driver.type_text("a")
    assert device.current_run().values["username"] == "qa"  # type: ignore[union-attr]
    assert face.requests("rpc:") == 0 and face.requests("adb:shell") == 1  # one broadcast
    assert face.faults.count("adb:shell:am") == 1
    driver.type_text("")  # nothing to type: nothing sent
    assert face.requests("adb:shell") == 1
    face.faults.reset_counts()
    driver.press("enter")
    assert not device.keyboard_shown()
    driver.long_press(540, 420, 0.5)
    assert device.keyboard_shown()  # a long press on the field focuses it too
    driver.swipe(540, 2000, 540, 1000, 0.2)
    assert face.faults.count("rpc:pressKey") == 1 and face.faults.count("rpc:swipe") == 1
    assert face.faults.count("rpc:click") == 1


def test_every_common_key_works_and_unknown_keys_send_nothing(
    face: AdbFace, driver: U2Driver, device: SimDevice
) -> None:
    driver.launch_app(SETTINGS)
    for key in KEYS:
        driver.press(key)
    assert device.foreground() == "com.android.launcher3"
    face.faults.reset_counts()
    with pytest.raises(StepArgumentError, match="not supported on Android"):
        driver.press("warp")
    assert face.requests() == 0


def test_screenshot_is_the_servers_jpeg(face: AdbFace, driver: U2Driver) -> None:
    data = driver.screenshot()
    assert data.startswith(b"\xff\xd8")
    assert Image.open(io.BytesIO(data)).size == (1080, 2400)
    assert face.faults.count("rpc:takeScreenshot") == 1


def test_screenshot_falls_back_to_screencap(
    face: AdbFace, driver: U2Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(face.phone(SERIAL).u2, "_screenshot", lambda scale=1, quality=80: None)
    face.phone(SERIAL).u2._methods["takeScreenshot"] = lambda *args: None
    data = driver.screenshot()
    assert data.startswith(b"\x89PNG")
    assert face.faults.count("adb:shell:screencap") == 1


def test_closed_driver_refuses_and_close_is_idempotent(driver: U2Driver) -> None:
    driver.observe()
    driver.close()
    driver.close()
    with pytest.raises(Exception, match="closed"):
        driver.observe()


# --- configuration, connect specs and discovery ------------------------------------------------


def test_config_reads_the_adb_environment_and_explicit_options_win() -> None:
    env = {"ANDROID_ADB_SERVER_HOST": "127.0.0.2", "ANDROID_ADB_SERVER_PORT": "5038"}
    assert U2Config.from_options({}, env).address == "127.0.0.2:5038"
    assert U2Config.from_options({"adb_port": 6000}, env).address == "127.0.0.2:6000"
    assert U2Config.from_options({}, {}).address == "127.0.0.1:5037"
    assert U2Config.from_options({"timeout": 3}, {}).timeout == 3
    with pytest.raises(ConfigError, match="port"):
        U2Config.from_options({}, {"ANDROID_ADB_SERVER_PORT": "adb"})
    with pytest.raises(ConfigError, match="timeout"):
        U2Config(timeout=0)
    with pytest.raises(ConfigError, match="serial"):
        U2Driver("")
    with pytest.raises(ConfigError, match="unknown option"):
        U2Config.from_options({"timeuot": 3}, {})
    with pytest.raises(ConfigError, match="adb_port"):
        U2Config(adb_port=0)


def test_connect_spec_and_the_android_scheme(face: AdbFace, device: SimDevice) -> None:
    driver = connect_spec(SERIAL, {"adb_host": face.host, "adb_port": face.port, "timeout": 2})
    try:
        assert face.faults.count("rpc:ping") == 1  # connected before it is returned
        assert driver.config.timeout == 2
    finally:
        driver.close()
    env = {"ANDROID_ADB_SERVER_PORT": str(face.port)}
    via_scheme = connect(f"android:{SERIAL}", environ=env, timeout=2)
    try:
        assert isinstance(via_scheme, U2Driver) and via_scheme.config.adb_port == face.port
    finally:
        via_scheme.close()


def test_sim_adb_spec_starts_a_face_that_close_stops() -> None:
    device = SimDevice("android", "sim-adb-1")
    driver = connect("sim+adb:android", device=device, timeout=2)
    assert isinstance(driver, U2Driver) and driver.device_id == "sim-adb-1"
    driver.launch_app(DEMO)
    assert driver.observe().foreground_app == DEMO
    port = driver.config.adb_port
    driver.close()
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
    with pytest.raises(ConfigError):
        connect("sim+adb:ios")
    with pytest.raises(ConfigError, match="unknown option"):
        connect("sim+adb:android", lag=1)


def test_sim_adb_spec_takes_a_shared_fault_injector_and_latency() -> None:
    faults = FaultInjector()
    driver = connect("sim+adb:android", faults=faults, latency=0.001, timeout=2)
    try:
        driver.observe()
        assert faults.count("rpc:dumpWindowHierarchy") == 1 and faults.latency == 0.001
    finally:
        driver.close()


def test_discovery_lists_devices_with_their_states(face: AdbFace) -> None:
    face.add_device(SimDevice("android", "R5CT20ABCDE"), state="unauthorized")
    found = discover_android({"ANDROID_ADB_SERVER_PORT": str(face.port)})
    assert [(d.spec, d.state, d.usable) for d in found] == [
        (f"android:{SERIAL}", "device", True),
        ("android:R5CT20ABCDE", "unauthorized", False),
    ]
    assert found[0].description == "model:sdk_gphone64_x86_64 product:sdk_gphone64_x86_64 device:emu64x"
    assert {d.backend for d in found} == {"u2"}


@pytest.mark.timeout(10)
def test_discovery_without_an_adb_server_is_empty_and_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[object] = []
    monkeypatch.setattr(adbutils._adb.subprocess, "run", lambda *a, **k: spawned.append(a))
    assert discover_android({"ANDROID_ADB_SERVER_PORT": str(_closed_port())}) == []
    assert spawned == []
