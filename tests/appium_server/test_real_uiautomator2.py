"""The real Appium UiAutomator2 stack against the simulated phone: what its user sees, and what
crossed the wire (``tests/appium_server/u2_stack.py`` says how it is put together).

A real Appium 3 server and its real ``appium-uiautomator2-driver`` set the phone up the way they
set up a real one: Debian's ``adb`` client installs the Settings helper and the two server APKs
over the simulated phone's adb face, starts the server with ``am instrument -w`` and forwards a
local port to the phone's port 6790, where the simulated UiAutomator2 server answers. The contract
suite runs through the same stack (``tests/contract/rig_appium_u2.py``).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amc.drivers.appium import AppiumDriver
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.appium_u2_server import SERVER_PACKAGE, TEST_PACKAGE
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import ANDROID_APIS, AndroidProfile

from tests.appium_server.u2_stack import U2Stack, shared_stack, stop_shared_stack

pytestmark = pytest.mark.timeout(180)

SERVER_APKS = "appium-uiautomator2-server/apks"
RUNNER = f"{TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner"


@pytest.fixture(scope="session")
def stack() -> Iterator[U2Stack]:
    # the process's one server, shared with the contract suite's rig (stopped once, at the end)
    yield shared_stack()
    stop_shared_stack()


_opened: dict[int, list[str | None]] = {}  # per face: the sessions opened on it


@pytest.fixture
def phone(stack: U2Stack) -> Iterator[tuple[SimDevice, AdbFace]]:
    device = SimDevice("android")
    face = AdbFace([device], faults=FaultInjector()).start()
    try:
        yield device, face
    finally:
        stack.release(face, _opened.pop(id(face), []))
        stack.check_no_stray_adb()


def _session(stack: U2Stack, face: AdbFace, device: SimDevice) -> AppiumDriver:
    driver = connect(stack.spec(face, device.device_id), timeout=10.0, session_timeout=90.0)
    assert isinstance(driver, AppiumDriver)
    _opened.setdefault(id(face), []).append(driver.session_id)
    return driver


def _adb(stack: U2Stack, face: AdbFace, *args: str) -> subprocess.CompletedProcess[str]:
    """Debian's adb client, told the face's port (it would start a server if nothing answered)."""
    argv = [stack.tools.adb, "-P", str(face.port), "-s", "emulator-5554", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


def _apk(stack: U2Stack, name: str) -> Path:
    return stack.tools.driver_dir / "node_modules" / SERVER_APKS / name


@pytest.mark.parametrize("api", sorted(ANDROID_APIS))
def test_the_session_describes_the_simulated_phone_of_each_release(stack: U2Stack, api: int) -> None:
    device = SimDevice("android", profile=AndroidProfile(api))
    face = AdbFace([device], faults=FaultInjector()).start()
    try:
        driver = _session(stack, face, device)
        try:
            caps = driver.client.capabilities
            assert caps["deviceApiLevel"] == api
            assert caps["platformVersion"] == ANDROID_APIS[api]
            assert caps["deviceScreenSize"] == "{}x{}".format(*device.window_size)
            assert caps["deviceModel"] == device.model
            assert "Settings" in driver.observe().texts()
        finally:
            driver.close()
    finally:
        stack.release(face, _opened.pop(id(face), []))
    stack.check_no_stray_adb()


def test_a_fresh_phone_gets_the_helper_and_both_server_apks_installed_and_the_server_started(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace]
) -> None:
    device, face = phone
    driver = _session(stack, face, device)
    try:
        history = face.phone(device.device_id).shell.apks.history
        assert history[0] == "io.appium.settings"  # the helper first, then both server APKs at once
        assert sorted(history[1:]) == [SERVER_PACKAGE, TEST_PACKAGE]
        assert face.faults.count("adb:install") == 3
        listed = _adb(stack, face, "shell", "pm", "list", "instrumentation").stdout
        assert f"instrumentation:{RUNNER} (target={SERVER_PACKAGE})" in listed
        assert SERVER_PACKAGE in _adb(stack, face, "shell", "ps").stdout  # the instrumentation runs
        forwards = _adb(stack, face, "forward", "--list").stdout
        assert forwards.rstrip().endswith("tcp:6790")  # the driver's systemPort -> the server
        assert face.faults.count("new_session") == 1  # the driver's POST /session on the phone
        assert face.faults.count("adb:shell,v2:logcat") == 1  # its logcat capture streams
    finally:
        driver.close()
    assert _adb(stack, face, "forward", "--list").stdout.strip() == ""
    assert SERVER_PACKAGE not in _adb(stack, face, "shell", "ps").stdout  # it stopped after DELETE


def test_a_second_session_on_the_phone_keeps_the_installed_server(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace]
) -> None:
    device, face = phone
    _session(stack, face, device).close()
    installs = face.faults.count("adb:install")
    driver = _session(stack, face, device)
    try:
        # Without aapt2 the driver cannot read an APK's version: an installed server's state is
        # "unknown" and it is kept (appium-uiautomator2-driver's shouldInstallServerPackages).
        # The Settings helper is installed again (installOrUpgrade installs over an unknown state).
        assert face.phone(device.device_id).shell.apks.history[installs:] == ["io.appium.settings"]
        assert face.faults.count("new_session") == 2
        driver.launch_app("com.android.settings")  # the driver's own adb launch, then its check
        assert driver.current_app() == device.foreground() == "com.android.settings"
    finally:
        driver.close()


def test_debian_adb_installs_the_server_apk_and_refuses_what_is_not_one(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace], tmp_path: Path
) -> None:
    _, face = phone
    version = subprocess.run([stack.tools.adb, "version"], capture_output=True, text=True, timeout=30)
    assert "Android Debug Bridge version 1.0.41" in version.stdout
    bogus = tmp_path / "bogus.apk"
    bogus.write_bytes(b"PK\x03\x04 not really a zip")
    refused = _adb(stack, face, "install", str(bogus))
    assert refused.returncode == 1
    assert "Failure [INSTALL_PARSE_FAILED_NOT_APK" in refused.stdout + refused.stderr
    installed = _adb(
        stack, face, "install", "-r", str(_apk(stack, "appium-uiautomator2-server-debug-androidTest.apk"))
    )
    assert (installed.returncode, installed.stdout.strip().splitlines()[-1]) == (0, "Success")
    assert f"package:{TEST_PACKAGE}" in _adb(stack, face, "shell", "pm", "list", "packages").stdout
    missing = _adb(stack, face, "shell", "am", "instrument", "-w", "com.example.none/.Runner")
    assert "INSTRUMENTATION_FAILED: com.example.none/.Runner" in missing.stdout
    removed = _adb(stack, face, "uninstall", TEST_PACKAGE)
    assert (removed.returncode, removed.stdout.strip()) == (0, "Success")
    again = _adb(stack, face, "uninstall", TEST_PACKAGE)
    assert "Failure [DELETE_FAILED_INTERNAL_ERROR]" in again.stdout


def test_debian_adb_logcat_streams_the_phones_log_until_it_is_stopped(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace]
) -> None:
    _, face = phone
    shell = face.phone("emulator-5554").shell
    shell.run("log -t amc before")
    argv = [stack.tools.adb, "-P", str(face.port), "-s", "emulator-5554", "logcat", "-v", "threadtime"]
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    ) as proc:
        deadline = time.monotonic() + 5
        while face.faults.count("adb:shell,v2:logcat") == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        shell.run("log -t amc after")
        time.sleep(0.3)
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert b"before" in out and b"after" in out  # the log so far, then the new line as it came


def test_a_session_left_open_is_ended_before_its_phone_goes_away(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace]
) -> None:
    device, face = phone
    driver = _session(stack, face, device)
    # The test's client went away without DELETE (a crashed test): Appium would end the session
    # later and run adb against a port where nothing listens, and adb would start a server there.
    stack.release(face, _opened.pop(id(face)))
    assert not face.running and face not in stack.lingering  # ended first, then stopped
    assert not face.phone(device.device_id).shell.apks.runners[TEST_PACKAGE].running()
    driver.close()  # the session is gone: the client's DELETE is answered 404, quietly
    stack.check_no_stray_adb()


def test_an_adb_run_that_bypasses_the_phones_face_fails_the_check(stack: U2Stack, tmp_path: Path) -> None:
    guard = U2Stack(stack.tools, tmp_path)
    guard.sentinel.start()
    try:
        guard.check_no_stray_adb()  # nothing ran yet
        # what the Appium process's environment makes of an adb run without -P: the sentinel
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(guard.sentinel.port)}
        env["ADB_SERVER_SOCKET"] = f"tcp:127.0.0.1:{guard.sentinel.port}"
        ran = subprocess.run(
            [stack.tools.adb, "devices"], env=env, capture_output=True, text=True, timeout=30
        )
        assert ran.returncode == 0 and "List of devices attached" in ran.stdout  # no server was started
        with pytest.raises(AssertionError, match="bypassed the adb face"):
            guard.check_no_stray_adb()
    finally:
        guard.sentinel.stop()


def test_what_each_call_sends_to_the_phone_through_the_real_driver(
    stack: U2Stack, phone: tuple[SimDevice, AdbFace]
) -> None:
    device, face = phone
    driver = _session(stack, face, device)
    faults = face.faults
    server_routes = ("source", "actions", "press_keycode", "screenshot", "new_session", "status")

    def sent(call: Any) -> dict[str, int]:
        before = dict(faults.counts)
        call()
        return {r: n - before.get(r, 0) for r, n in faults.counts.items() if n != before.get(r, 0)}

    try:
        # W3C commands are proxied to the server on the phone, one request each
        assert sent(driver.observe) == {"source": 1}
        assert sent(lambda: driver.tap(540, 1200)) == {"actions": 1}
        assert sent(lambda: driver.press("home")) == {"press_keycode": 1}
        assert sent(driver.screenshot) == {"screenshot": 1}
        # mobile: getCurrentPackage and isLocked the driver answers itself over adb, with three
        # `adb shell dumpsys …` runs (window displays; window and power), each a new adb client
        # that asks the server's version and the phone's features before its shell
        asked = sent(driver.current_app)
        assert not set(asked) & set(server_routes)
        assert asked == {
            "adb:host:version": 3,
            "adb:host-serial:features": 3,
            "adb:host:transport": 3,
            "adb:shell,v2:dumpsys": 3,
        }
    finally:
        driver.close()
