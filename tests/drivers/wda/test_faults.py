"""Every fault the face can inject ends the step with the typed error, within the configured timeout.

Each case is checked three ways: the driver call itself (error type, and for hangs the time it took),
one executor step (its kind, category and whether the loop may repeat it), and a TaskRunner task
(status ``device_error``, and on the wire how often the call was actually sent: a tap that hung is
not repeated, an idempotent launch is repeated once).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest
from amc.core.errors import DeviceError, DeviceTimeout, DriverUnavailable, HarnessError, SessionLost
from amc.core.models import PlannedStep
from amc.drivers.wda import WdaDriver
from amc.runtime.context import TaskContext
from amc.runtime.executor import Executor
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskStatus
from amc.sim.faults import Fault
from amc.sim.wda_face import WdaFace

from tests.drivers.wda.conftest import TIMEOUT

pytestmark = pytest.mark.timeout(30)

SETTINGS = "com.apple.Preferences"
# Enough for a loopback round trip on a loaded CI machine; far below the client's own 180 s default.
SLACK = 1.5


def _timed(call: Callable[[], object]) -> tuple[BaseException, float]:
    started = time.monotonic()
    with pytest.raises(HarnessError) as caught:
        call()
    return caught.value, time.monotonic() - started


def _tap_general(face: WdaFace, driver: WdaDriver) -> Callable[[], None]:
    driver.launch_app(SETTINGS)
    face.faults.reset_counts()
    return lambda: driver.tap(195, 465)  # the General row


def _wait_refused(url: str) -> None:
    """Until the face's port refuses connections (it stops from a background thread)."""
    host, port = url.removeprefix("http://").split(":")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((host, int(port))) != 0:
                return
        time.sleep(0.01)
    raise AssertionError(f"{url} still accepts connections")


def _run(driver: WdaDriver, *steps: PlannedStep) -> TaskRunner:
    return TaskRunner(driver, ScriptedPlanner(list(steps)))


# --- hangs and slowness: DeviceTimeout, transient -------------------------------------------


def test_a_hung_tap_times_out_and_is_not_repeated(face: WdaFace, driver: WdaDriver) -> None:
    tap = _tap_general(face, driver)
    face.faults.inject(Fault.HANG, routes={"tap"})
    error, took = _timed(tap)
    assert isinstance(error, DeviceTimeout) and error.timeout == TIMEOUT and error.transient
    assert took < TIMEOUT + SLACK
    assert face.count("tap") == 1 and face.count("tap.element") == 0  # no fallback after a timeout
    assert face.device.current_run().stack == ["main"]  # type: ignore[union-attr]

    result = _run(driver, PlannedStep("tap", {"x": 195, "y": 465})).run("tap General")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DeviceTimeout"
    step = result.steps[0].result
    assert step.error_category == "device" and not step.retryable and step.attempts == 1
    assert step.duration < TIMEOUT + SLACK
    assert face.count("tap") == 2  # one for the direct call, one for the task: never repeated


def test_a_hung_source_times_out_and_observing_is_tried_once_more(face: WdaFace, driver: WdaDriver) -> None:
    face.faults.inject(Fault.HANG, routes={"source"})
    error, took = _timed(driver.observe)
    assert isinstance(error, DeviceTimeout) and took < TIMEOUT + SLACK
    face.faults.reset_counts()
    started = time.monotonic()
    result = _run(driver, PlannedStep("describe_screen")).run("look")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DeviceTimeout"
    assert face.count("source") == 2  # observe is idempotent: repeated once (step_retries=1)
    assert time.monotonic() - started < 2 * TIMEOUT + SLACK


def test_a_hung_launch_is_checked_once_and_not_repeated(face: WdaFace, driver: WdaDriver) -> None:
    face.faults.inject(Fault.HANG, routes={"apps.launch"})
    result = _run(driver, PlannedStep("launch_app", {"app_id": SETTINGS})).run("launch")
    assert result.status is TaskStatus.FAILED
    step = result.steps[0].result
    # the launch got no answer within launch_timeout and the app is not running: an app error,
    # not a timeout the loop repeats (a WDA before 5.1.1 would hang the same way again)
    assert step.error_kind == "AppLaunchFailed" and not step.retryable and step.attempts == 1
    assert (face.count("apps.launch"), face.count("apps.state")) == (1, 1)


def test_latency_beyond_the_timeout_is_a_timeout(face: WdaFace, driver: WdaDriver) -> None:
    face.faults.set_latency(TIMEOUT + 0.5)
    error, took = _timed(driver.current_app)
    assert isinstance(error, DeviceTimeout) and took < TIMEOUT + SLACK
    face.faults.set_latency(0.05)
    assert driver.current_app() is None  # slow but in time: fine


def test_connecting_to_a_hung_wda_times_out(face: WdaFace) -> None:
    face.faults.inject(Fault.HANG, routes={"status"})
    drv = WdaDriver.from_url(face.url, timeout=TIMEOUT)
    error, took = _timed(drv.connect)
    assert isinstance(error, DeviceTimeout) and took < TIMEOUT + SLACK


# --- the server going away: DriverUnavailable, not transient ----------------------------------


def test_a_dropped_connection_is_driver_unavailable_and_not_repeated(
    face: WdaFace, driver: WdaDriver
) -> None:
    tap = _tap_general(face, driver)
    face.faults.inject(Fault.DROP, routes={"tap"})
    error, _ = _timed(tap)
    assert isinstance(error, DriverUnavailable) and "without answering POST /wda/tap" in str(error)
    assert face.count("tap") == 1 and face.count("tap.element") == 0
    result = _run(driver, PlannedStep("tap", {"x": 195, "y": 465})).run("tap")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DriverUnavailable"
    assert face.count("tap") == 2


def test_the_server_dying_mid_step_refuses_everything_after(face: WdaFace, driver: WdaDriver) -> None:
    tap = _tap_general(face, driver)
    face.faults.inject(Fault.DIE, routes={"tap"})
    error, _ = _timed(tap)
    assert isinstance(error, DriverUnavailable)
    _wait_refused(face.url)
    error, took = _timed(driver.observe)
    assert isinstance(error, DriverUnavailable) and "ConnectionRefusedError" in str(error)
    assert took < TIMEOUT
    result = _run(driver, PlannedStep("describe_screen")).run("look")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DriverUnavailable"
    assert face.device.current_run().stack == ["main"]  # type: ignore[union-attr]


def test_nothing_listening_is_driver_unavailable_at_once(face: WdaFace) -> None:
    url = face.url
    face.stop()
    error, took = _timed(WdaDriver.from_url(url, timeout=TIMEOUT).connect)
    assert isinstance(error, DriverUnavailable) and error.hint and "WebDriverAgent" in error.hint
    assert took < TIMEOUT


# --- replies that are not WDA's: DeviceError with the detail ---------------------------------


@pytest.mark.parametrize(
    ("fault", "detail"), [(Fault.MALFORMED, "not WDA's JSON"), (Fault.EMPTY, "empty reply")]
)
def test_garbled_replies_are_device_errors(
    face: WdaFace, driver: WdaDriver, fault: Fault, detail: str
) -> None:
    face.faults.inject(fault, routes={"source"})
    error, _ = _timed(driver.observe)
    assert type(error) is DeviceError and detail in str(error) and "GET /source" in str(error)
    assert not error.transient
    face.faults.reset_counts()
    result = _run(driver, PlannedStep("describe_screen")).run("look")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DeviceError"
    assert face.count("source") == 1  # not transient: not repeated


def test_a_garbled_screenshot_is_a_device_error(face: WdaFace, driver: WdaDriver) -> None:
    face.faults.inject(Fault.MALFORMED, routes={"screenshot"})
    context = TaskContext(goal="g", device_id=driver.device_id)
    result = Executor(driver).execute(PlannedStep("screenshot"), context)
    assert not result.success and result.error_kind == "DeviceError" and result.error_category == "device"


# --- sessions: renewed once, then SessionLost -------------------------------------------------


def test_a_lost_session_is_renewed_once_and_the_tap_happens_once(face: WdaFace, driver: WdaDriver) -> None:
    tap = _tap_general(face, driver)
    old = driver.session_id
    face.faults.inject(Fault.LOSE_SESSION, routes={"tap"}, times=1)
    tap()
    assert driver.session_id != old and driver.session_id == face.session_id
    assert face.count("tap") == 2 and face.count("session.create") == 1
    assert face.device.current_run().stack == ["main", "general"]  # type: ignore[union-attr]


def test_a_session_that_keeps_getting_lost_is_session_lost(face: WdaFace, driver: WdaDriver) -> None:
    tap = _tap_general(face, driver)
    face.faults.inject(Fault.LOSE_SESSION, routes={"tap"})
    error, _ = _timed(tap)
    assert isinstance(error, SessionLost) and error.transient
    assert face.count("tap") == 2 and face.count("session.create") == 1  # one renewal, no more
    face.faults.reset_counts()
    result = _run(driver, PlannedStep("tap", {"x": 195, "y": 465})).run("tap")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "SessionLost"
    assert not result.steps[0].result.retryable  # a tap is not repeated by the loop
    assert face.count("tap") == 2


def test_an_idempotent_step_on_a_lost_session_is_repeated_by_the_loop(
    face: WdaFace, driver: WdaDriver
) -> None:
    face.faults.inject(Fault.LOSE_SESSION, routes={"apps.launch"})
    result = _run(driver, PlannedStep("launch_app", {"app_id": SETTINGS})).run("launch")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "SessionLost"
    assert result.steps[0].result.attempts == 2
    assert face.count("apps.launch") == 4 and face.count("session.create") == 2


def test_sessionless_calls_do_not_care_about_the_session(face: WdaFace, driver: WdaDriver) -> None:
    face.faults.inject(Fault.LOSE_SESSION, routes={"source"})
    assert driver.observe().foreground_app == "com.apple.springboard"
    assert face.count("session.create") == 0
