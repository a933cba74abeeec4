"""Injected faults end a step with the typed error, within the timeout; a task ends ``device_error``.

Every hang test uses a 1 s call timeout and a pytest-timeout backstop: the test finishing is the
proof that the call returned. Click counts on the face prove what was (not) repeated.
"""

from __future__ import annotations

import socket

import adbutils._adb
import pytest
from amc.core.errors import (
    DeviceError,
    DeviceOffline,
    DeviceTimeout,
    DriverUnavailable,
    SceneParseError,
    SessionLost,
)
from amc.core.models import PlannedStep
from amc.drivers.u2 import U2Config, U2Driver
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskResult, TaskRunner, TaskStatus
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import Fault

from tests.drivers.u2.conftest import SERIAL, DriverFactory

SETTINGS = "com.android.settings"
NETWORK_ROW = (540, 294)  # the first row of Settings: opens "Network & internet"
TAP_TASK = [PlannedStep("launch_app", {"app_id": SETTINGS}), PlannedStep("tap", {"x": 540, "y": 294})]


def run(driver: U2Driver, steps: list[PlannedStep]) -> TaskResult:
    return TaskRunner(driver, ScriptedPlanner(steps)).run("open network settings")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the adb server and the phone's adb state -------------------------------------------------


def test_no_adb_server_is_driver_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[object] = []
    monkeypatch.setattr(adbutils._adb.subprocess, "run", lambda *a, **k: spawned.append(a))
    port = _closed_port()
    driver = U2Driver(SERIAL, U2Config(adb_port=port, timeout=1.0))
    with pytest.raises(DriverUnavailable, match=f"no adb server answers at 127.0.0.1:{port}") as caught:
        driver.observe()
    assert caught.value.hint is not None and "adb start-server" in caught.value.hint
    assert caught.value.__cause__ is not None  # the client's error is chained
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DriverUnavailable")
    assert spawned == []  # adbutils' `adb start-server` was never run


def test_adb_server_gone_mid_session(face: AdbFace, driver: U2Driver) -> None:
    driver.launch_app(SETTINGS)
    face.stop()
    with pytest.raises(DriverUnavailable):
        driver.tap(*NETWORK_ROW)
    with pytest.raises(DriverUnavailable):
        driver.current_app()


def test_adb_server_dying_mid_command(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.inject(Fault.DIE, routes={"adb:shell:dumpsys"})
    with pytest.raises(DeviceError) as caught:
        driver.current_app()
    assert caught.value.category == "device"
    with pytest.raises(DriverUnavailable):  # and nothing answers afterwards
        driver.current_app()


@pytest.mark.parametrize(
    ("state", "fix"),
    [("unauthorized", "accept the 'Allow USB debugging?' prompt"), ("offline", "adb reconnect")],
)
def test_offline_and_unauthorized_name_the_state_and_the_fix(
    face: AdbFace, driver: U2Driver, state: str, fix: str
) -> None:
    face.set_state(SERIAL, state)  # type: ignore[arg-type]
    with pytest.raises(DeviceOffline) as caught:
        driver.observe()
    assert caught.value.state == state and state in str(caught.value)
    assert caught.value.hint is not None and fix in caught.value.hint
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DeviceOffline")


def test_a_phone_going_offline_mid_session(face: AdbFace, driver: U2Driver) -> None:
    driver.launch_app(SETTINGS)
    face.set_state(SERIAL, "offline")
    with pytest.raises(DeviceOffline, match="offline"):
        driver.tap(*NETWORK_ROW)  # the RPC stream cannot be opened: adb's refusal, not the server's
    assert face.faults.count("rpc:click") == 0


def test_unknown_serial_names_it_and_what_adb_lists(face: AdbFace, make_driver: DriverFactory) -> None:
    face.add_device(SimDevice("android", "R5CT20ABCDE"), state="unauthorized")
    with pytest.raises(DriverUnavailable) as caught:
        make_driver("R9NOPE").observe()
    message = str(caught.value)
    assert "'R9NOPE'" in message
    assert f"{SERIAL} (device)" in message and "R5CT20ABCDE (unauthorized)" in message


# --- the uiautomator2 server ------------------------------------------------------------------


def test_a_lost_session_is_recovered_once(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(SETTINGS)
    driver.connect()
    face.faults.inject(Fault.LOSE_SESSION, routes={"rpc:dumpWindowHierarchy"}, times=1)
    scene = driver.observe()
    assert scene.foreground_app == SETTINGS
    assert face.faults.count("rpc:dumpWindowHierarchy") == 2
    assert face.faults.count("rpc:ping") == 2  # the restart found the server answering again


def test_a_session_that_stays_lost_is_session_lost(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.inject(Fault.LOSE_SESSION, routes={"rpc:dumpWindowHierarchy"})
    with pytest.raises(SessionLost, match="still failing after restarting"):
        driver.observe()
    assert face.faults.count("rpc:dumpWindowHierarchy") == 2
    face.faults.reset_counts()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "SessionLost")
    assert face.faults.count("rpc:dumpWindowHierarchy") == 4  # the loop repeats a transient observe once


def test_a_tap_refused_by_a_lost_session_is_repeated(
    face: AdbFace, driver: U2Driver, device: SimDevice
) -> None:
    driver.launch_app(SETTINGS)
    face.faults.inject(Fault.LOSE_SESSION, routes={"rpc:click"}, times=1)
    driver.tap(*NETWORK_ROW)  # the server answered "not connected": the first click did nothing
    assert face.faults.count("rpc:click") == 2
    assert device.current_run().stack == ["main", "network"]  # type: ignore[union-attr]


def test_a_server_that_exited_is_started_again(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(SETTINGS)
    driver.connect()
    phone = face.phone(SERIAL)
    phone.u2.exit()
    scene = driver.observe()
    assert scene.foreground_app == SETTINGS
    assert phone.u2.launches == 1 and phone.u2.running
    assert face.faults.count("adb:shell:app_process") == 1
    driver.close()
    assert not phone.u2.running  # the driver stops the server it started


@pytest.mark.timeout(15)
def test_a_hanging_tap_times_out_and_is_not_repeated(
    face: AdbFace, make_driver: DriverFactory, device: SimDevice
) -> None:
    driver = make_driver(timeout=1.0)
    driver.launch_app(SETTINGS)
    face.faults.inject(Fault.HANG, routes={"rpc:click"})
    with pytest.raises(DeviceTimeout) as caught:
        driver.tap(*NETWORK_ROW)
    assert caught.value.timeout == 1.0 and caught.value.transient
    assert face.faults.count("rpc:click") == 1
    face.faults.reset_counts()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DeviceTimeout")
    assert face.faults.count("rpc:click") == 1  # a tap is not idempotent: never sent twice
    assert result.steps[-1].result.attempts == 1


@pytest.mark.timeout(15)
def test_a_hanging_dump_times_out(face: AdbFace, make_driver: DriverFactory) -> None:
    driver = make_driver(timeout=1.0)
    driver.connect()
    face.faults.inject(Fault.HANG, routes={"rpc:dumpWindowHierarchy"})
    with pytest.raises(DeviceTimeout):
        driver.observe()
    face.faults.reset_counts()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DeviceTimeout")
    assert face.faults.count("rpc:dumpWindowHierarchy") == 2  # observing only reads: repeated once


@pytest.mark.timeout(15)
def test_a_hanging_shell_command_times_out_and_only_launch_is_repeated(
    face: AdbFace, make_driver: DriverFactory
) -> None:
    driver = make_driver(timeout=1.0)
    driver.connect()
    face.faults.inject(Fault.HANG, routes={"adb:shell:dumpsys"})
    with pytest.raises(DeviceTimeout):
        driver.current_app()
    face.faults.reset_counts()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DeviceTimeout")
    assert result.steps[0].result.attempts == 2  # launch_app is idempotent: repeated once
    assert face.faults.count("adb:shell:am") == 2


@pytest.mark.timeout(15)
def test_the_server_dying_mid_tap_is_session_lost(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    driver.launch_app(SETTINGS)
    face.faults.inject(Fault.DIE, routes={"rpc:click"})
    with pytest.raises(SessionLost, match="could not be restarted"):
        driver.tap(*NETWORK_ROW)
    assert face.faults.count("rpc:click") == 1
    assert face.faults.count("adb:shell:app_process") == 1  # one restart was tried, and crashed
    assert driver.current_app() == SETTINGS  # adb itself still answers
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "SessionLost")
    assert face.faults.count("rpc:click") == 1


def test_a_dropped_tap_is_not_repeated(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    driver.launch_app(SETTINGS)
    face.faults.inject(Fault.DROP, routes={"rpc:click"}, times=1)
    with pytest.raises(SessionLost, match="not repeated"):
        driver.tap(*NETWORK_ROW)
    assert face.faults.count("rpc:click") == 1
    driver.tap(*NETWORK_ROW)  # the server was checked again and answers
    assert face.faults.count("rpc:click") == 2


def test_a_dropped_dump_is_repeated(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(SETTINGS)
    driver.connect()
    face.faults.inject(Fault.DROP, routes={"rpc:dumpWindowHierarchy"}, times=1)
    assert driver.observe().foreground_app == SETTINGS
    assert face.faults.count("rpc:dumpWindowHierarchy") == 2


# --- malformed and empty answers --------------------------------------------------------------


def test_a_malformed_dump_is_a_parse_error(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.inject(Fault.MALFORMED, routes={"rpc:dumpWindowHierarchy"})
    with pytest.raises(SceneParseError):
        driver.observe()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "SceneParseError")


def test_a_malformed_rpc_answer_is_a_device_error(face: AdbFace, driver: U2Driver) -> None:
    driver.launch_app(SETTINGS)
    face.faults.inject(Fault.MALFORMED, routes={"rpc:click"})
    with pytest.raises(DeviceError, match="not recognised"):
        driver.tap(*NETWORK_ROW)
    assert face.faults.count("rpc:click") == 1
    face.faults.reset_counts()
    result = run(driver, TAP_TASK)
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, "DeviceError")


def test_a_malformed_adb_answer_is_a_device_error(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.inject(Fault.MALFORMED, routes={"adb:host:transport"})
    with pytest.raises(DeviceError, match="Unknown data"):
        driver.current_app()


@pytest.mark.timeout(15)
def test_an_empty_dump_after_the_clients_retries_is_a_device_error(face: AdbFace, driver: U2Driver) -> None:
    driver.connect()
    face.faults.inject(Fault.EMPTY, routes={"rpc:dumpWindowHierarchy"})
    with pytest.raises(DeviceError, match="empty hierarchy"):
        driver.observe()
    assert face.faults.count("rpc:dumpWindowHierarchy") == 3  # uiautomator2 tries three times
