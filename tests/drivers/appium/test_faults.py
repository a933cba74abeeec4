"""Faults injected into the Appium face, as the user of AppiumDriver and of the task loop sees them.

Every hang-type test runs with the driver's 1 s timeout (see conftest.TIMEOUT): the call has to give
up by itself; pytest-timeout is only the backstop.
"""

from __future__ import annotations

import pytest
from amc.core.errors import DeviceError, DeviceTimeout, DriverUnavailable, SessionLost
from amc.core.models import PlannedStep
from amc.drivers.appium import AppiumDriver, options_for
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus
from amc.sim.appium_face import AppiumFace
from amc.sim.faults import Fault

from tests.drivers.appium.conftest import TIMEOUT

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SUBPAGE = {"android": "Connected devices", "ios": "General"}


def _steps(platform: str) -> list[PlannedStep]:
    return [
        PlannedStep("launch_app", {"app_id": SETTINGS[platform]}),
        PlannedStep("tap", {"text": SUBPAGE[platform]}),
    ]


def _runner(driver: AppiumDriver, platform: str) -> TaskRunner:
    return TaskRunner(driver, ScriptedPlanner(_steps(platform)), config=TaskRunnerConfig(semantic=False))


@pytest.mark.timeout(15)
@pytest.mark.parametrize("route", ["source", "actions"])
def test_a_hung_server_is_a_device_timeout_within_the_timeout(
    face: AppiumFace, driver: AppiumDriver, route: str
) -> None:
    face.faults.inject(Fault.HANG, routes={route})
    with pytest.raises(DeviceTimeout) as caught:
        driver.observe() if route == "source" else driver.tap(10, 10)  # GET and POST
    assert caught.value.transient and caught.value.timeout == TIMEOUT
    assert face.count(route) == 1  # one attempt: urllib3's own retries are off
    face.faults.clear()
    assert driver.observe().platform == face.platform  # the next call works on a fresh connection


@pytest.mark.timeout(15)
def test_latency_under_the_timeout_is_fine_and_over_it_times_out(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    face.faults.set_latency(TIMEOUT / 4)
    assert driver.current_app() is None
    face.faults.set_latency(TIMEOUT * 1.5)
    with pytest.raises(DeviceTimeout):
        driver.current_app()
    face.faults.set_latency(0.0)


def test_a_refused_connection_is_driver_unavailable_and_ends_the_task(face: AppiumFace) -> None:
    url = face.url
    face.stop()
    driver = AppiumDriver(url, options_for(face.platform), timeout=TIMEOUT)
    with pytest.raises(DriverUnavailable, match="nothing answers") as caught:
        driver.observe()
    assert caught.value.hint and not caught.value.transient
    result = _runner(driver, face.platform).run("open settings")
    assert result.status is TaskStatus.DEVICE_ERROR
    assert result.error_kind == "DriverUnavailable"


def test_a_lost_session_is_transient_and_the_next_call_starts_a_new_one(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    first = driver.session_id
    face.faults.inject(Fault.LOSE_SESSION, routes={"source"}, times=1)
    with pytest.raises(SessionLost) as caught:
        driver.observe()
    assert caught.value.transient
    assert driver.session_id is None
    scene = driver.observe()
    assert scene.platform == face.platform
    assert driver.session_id not in (None, first)
    assert face.count("new_session") == 1 and driver.sessions_started == 2


def test_the_task_loop_rides_over_a_lost_session_when_observing(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    face.faults.inject(Fault.LOSE_SESSION, routes={"source"}, after=1, times=1)  # the 2nd observation
    result = _runner(driver, face.platform).run("open a sub-page")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert face.count("new_session") == 1  # the retried observation started a new session
    assert len(face.device.current_run().stack) == 2  # type: ignore[union-attr]


def test_a_lost_session_during_a_tap_is_not_repeated_by_the_loop(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    face.faults.inject(Fault.LOSE_SESSION, routes={"actions"}, times=1)
    result = _runner(driver, face.platform).run("open a sub-page")
    assert result.status is TaskStatus.DEVICE_ERROR  # a tap is not safe to repeat
    assert result.error_kind == "SessionLost"
    assert face.count("actions") == 1


def test_the_server_dying_mid_step_ends_the_task_with_a_device_error(
    face: AppiumFace, driver: AppiumDriver
) -> None:
    face.faults.inject(Fault.DIE, routes={"actions"})
    result = _runner(driver, face.platform).run("open a sub-page")
    assert result.status is TaskStatus.DEVICE_ERROR
    assert result.error_kind == "DriverUnavailable"
    assert "closed the connection" in (result.error or "")
    assert not face.running
    with pytest.raises(DriverUnavailable):
        driver.observe()  # and nothing answers afterwards


def test_a_dropped_connection_is_driver_unavailable(face: AppiumFace, driver: AppiumDriver) -> None:
    launch = "mobile: startActivity" if face.platform == "android" else "mobile: activateApp"
    face.faults.inject(Fault.DROP, routes={launch}, times=1)
    with pytest.raises(DriverUnavailable, match="without answering"):
        driver.launch_app(SETTINGS[face.platform])


@pytest.mark.parametrize("fault", [Fault.MALFORMED, Fault.EMPTY])
def test_a_garbled_page_source_reply_is_a_device_error_not_a_screen(
    face: AppiumFace, driver: AppiumDriver, fault: Fault
) -> None:
    face.faults.inject(fault, routes={"source"}, times=1)
    with pytest.raises(DeviceError, match=r"not JSON.*not recognised"):  # the reply is broken, not the tree
        driver.observe()
    assert driver.observe().platform == face.platform


@pytest.mark.parametrize("call", ["screenshot", "current_app"])
def test_garbled_replies_elsewhere_are_device_errors(
    face: AppiumFace, driver: AppiumDriver, call: str
) -> None:
    route = {
        "screenshot": "screenshot",
        "current_app": "mobile: getCurrentPackage" if face.platform == "android" else "mobile: activeAppInfo",
    }[call]
    face.faults.inject(Fault.MALFORMED, routes={route}, times=1)
    with pytest.raises(DeviceError, match="not"):
        getattr(driver, call)()
    face.faults.clear()
    getattr(driver, call)()
