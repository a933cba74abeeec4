"""Every fault the faces can inject, against every adapter, the same way: one matrix.

Each cell runs the same two-step task through the task loop (launch Settings, then tap a row found
by its text on the latest Scene), with a run timeline written through ``storage.timeline``. Right
after the first step is recorded the fault is armed, so it hits the tap's request (``… on the tap``)
or the observation that follows the tap (``… on the source``). Every cell checks what a user sees
and what crossed the wire:

- the task ends ``device_error`` with the typed error (``error_kind``);
- it ends within the configured request timeout (1 s) times the requests that hung, plus slack;
- only idempotent calls are repeated: the tap step is never repeated by the loop (one attempt) and
  its request reaches the face once, except where the adapter knows the command did not run (a
  lost session refuses the command before running it: WDA and uiautomator2 renew once and send it
  again); an observation is repeated once by the loop when the error is transient;
- the timeline holds every executed step (both), and ends ``device_error`` with the same kind.

The per-adapter suites (tests/drivers/*/test_faults.py) go deeper into each cell: the direct driver
call, error messages and hints, sessions renewed and recovered. This file proves the combinations
uniformly. A combination a face cannot play is skipped with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import TaskRunner, TaskStatus
from amc.sim.faults import Fault
from amc.storage.timeline import RunInfo, TimelineWriter, read_timeline

from tests.faults.rigs import ADAPTERS, APPS, TIMEOUT, FaultRig, make_rig

pytestmark = pytest.mark.timeout(30)

# Room for a loopback round trip and a server thread on a loaded CI machine.
SLACK = 1.5


@dataclass(frozen=True)
class FaultCase:
    """A row: what is done to the device side after the first step, and which request it hits."""

    name: str
    arm: Callable[[FaultRig], None]
    hits: str  # "tap" or "observe": the route whose sends are counted
    injects: Fault | None = None  # the FaultInjector fault it uses, if any


def _inject(fault: Fault, hits: str) -> Callable[[FaultRig], None]:
    def arm(rig: FaultRig) -> None:
        rig.faults.inject(fault, routes={rig.routes[hits]})

    return arm


def _adb_state(state: str) -> Callable[[FaultRig], None]:
    def arm(rig: FaultRig) -> None:
        assert rig.set_state is not None
        rig.set_state(state)  # type: ignore[arg-type]

    return arm


def _case(name: str, fault: Fault, hits: str) -> FaultCase:
    return FaultCase(name, _inject(fault, hits), hits, fault)


FAULTS: dict[str, FaultCase] = {
    "refused": FaultCase("refused connection (the server is gone)", lambda rig: rig.stop(), "tap"),
    "dies": _case("the server dies mid-step", Fault.DIE, "tap"),
    "drop": _case("the connection closes without an answer", Fault.DROP, "tap"),
    "reset": _case("the connection is reset without an answer", Fault.RESET, "tap"),
    "session": _case("lost session", Fault.LOSE_SESSION, "tap"),
    "hang-tap": _case("a tap that never answers", Fault.HANG, "tap"),
    "hang-source": _case("a source request that never answers", Fault.HANG, "observe"),
    "offline": FaultCase("device offline", _adb_state("offline"), "tap"),
    "unauthorized": FaultCase("device unauthorized", _adb_state("unauthorized"), "tap"),
    "malformed-tap": _case("a malformed reply to a tap", Fault.MALFORMED, "tap"),
    "malformed-source": _case("a malformed source", Fault.MALFORMED, "observe"),
    "empty-tap": _case("an empty reply to a tap", Fault.EMPTY, "tap"),
    "empty-source": _case("an empty hierarchy / empty source", Fault.EMPTY, "observe"),
}


@dataclass(frozen=True)
class Cell:
    """What one (fault, adapter) must show: the error kind, how many times the hit route is sent
    after the fault is armed, and how many seconds of waiting are allowed (hung requests)."""

    kind: str = ""
    sends: int = 1
    waits: float = 0.0
    skip: str | None = None
    xfail: str | None = None


_NO_ADB_STATE = {
    "wda": Cell(
        skip="WebDriverAgent has no device-offline or unauthorized state (the nearest, a locked iPhone, "
        "is DeviceOffline(state='locked') in tests/drivers/wda)"
    ),
    "appium-android": Cell(
        skip="the Appium face has no adb state to report; a real server relays adb's error"
    ),
    "appium-ios": Cell(skip="iOS has no adb state, and the Appium face has no device state to report"),
}
MATRIX: dict[str, dict[str, Cell]] = {
    # Nothing listens: the request never reaches a server, so nothing is counted.
    "refused": dict.fromkeys(ADAPTERS, Cell("DriverUnavailable", sends=0)),
    # WDA and Appium: the connection closes unanswered. u2: the uiautomator2 server dies, the one
    # explicit restart crashes too.
    "dies": {
        "wda": Cell("DriverUnavailable"),
        "u2": Cell("SessionLost"),
        "appium-android": Cell("DriverUnavailable"),
        "appium-ios": Cell("DriverUnavailable"),
    },
    # WDA refuses a command under a dead session before running it, and uiautomator2's "UiAutomation
    # not connected" means the click was not made: both renew once and send the tap again. Appium
    # cannot know, so the tap is sent once.
    # WDA and Appium: DriverUnavailable. u2: the answer was lost after the click may have been
    # made, so the server is checked (restarted) and the tap is not sent again: SessionLost.
    "drop": {
        "wda": Cell("DriverUnavailable"),
        "u2": Cell("SessionLost"),
        "appium-android": Cell("DriverUnavailable"),
        "appium-ios": Cell("DriverUnavailable"),
    },
    # A reset (a proxy or iproxy closing the request unread) is a dropped answer to the adapters.
    "reset": {
        "wda": Cell("DriverUnavailable"),
        "u2": Cell("SessionLost"),
        "appium-android": Cell("DriverUnavailable"),
        "appium-ios": Cell("DriverUnavailable"),
    },
    "session": {
        "wda": Cell("SessionLost", sends=2),
        "u2": Cell("SessionLost", sends=2),
        "appium-android": Cell("SessionLost"),
        "appium-ios": Cell("SessionLost"),
    },
    "hang-tap": dict.fromkeys(ADAPTERS, Cell("DeviceTimeout", waits=TIMEOUT)),
    # An observation only reads: the loop repeats it once after a timeout.
    "hang-source": dict.fromkeys(ADAPTERS, Cell("DeviceTimeout", sends=2, waits=2 * TIMEOUT)),
    "offline": {"u2": Cell("DeviceOffline", sends=0), **_NO_ADB_STATE},
    "unauthorized": {"u2": Cell("DeviceOffline", sends=0), **_NO_ADB_STATE},
    "malformed-tap": {
        "wda": Cell("DeviceError"),
        "u2": Cell("DeviceError"),
        "appium-android": Cell("DeviceError"),
        "appium-ios": Cell("DeviceError"),
    },
    "malformed-source": {
        "wda": Cell("DeviceError"),
        "u2": Cell("SceneParseError"),  # the RPC reply is sound JSON; the dump inside it is cut off
        "appium-android": Cell("DeviceError"),  # the HTTP reply itself is not JSON
        "appium-ios": Cell("DeviceError"),
    },
    "empty-tap": {
        "wda": Cell("DeviceError"),
        "u2": Cell("DeviceError"),
        "appium-android": Cell("DeviceError"),
        "appium-ios": Cell("DeviceError"),
    },
    # uiautomator2's client reads an empty dump three times, a second apart, before giving up (an
    # idempotent read, bounded); the HTTP faces send an empty body.
    "empty-source": {
        "wda": Cell("DeviceError"),
        "u2": Cell("DeviceError", sends=3, waits=2.0),
        "appium-android": Cell("DeviceError"),
        "appium-ios": Cell("DeviceError"),
    },
}


def _cells() -> list[Any]:
    params: list[Any] = []
    for fault, row in MATRIX.items():
        for adapter in ADAPTERS:
            cell = row[adapter]
            marks: list[pytest.MarkDecorator] = []
            if cell.skip:
                marks.append(pytest.mark.skip(reason=cell.skip))
            if cell.xfail:
                marks.append(pytest.mark.xfail(reason=cell.xfail, strict=True))
            if cell.waits:
                marks.append(pytest.mark.slow)
            params.append(pytest.param(fault, adapter, cell, marks=marks, id=f"{fault}-{adapter}"))
    return params


def test_every_fault_the_faces_can_inject_has_a_row_for_every_adapter() -> None:
    assert set(MATRIX) == set(FAULTS)
    assert {case.injects for case in FAULTS.values()} - {None} == set(Fault) - {Fault.NONE}
    assert all(set(row) == set(ADAPTERS) for row in MATRIX.values())


@pytest.mark.parametrize(("fault", "adapter", "cell"), _cells())
def test_fault_matrix(fault: str, adapter: str, cell: Cell, tmp_path: Path) -> None:
    case = FAULTS[fault]
    with make_rig(adapter) as rig:
        app, row_text = APPS[rig.platform]
        steps = [PlannedStep("launch_app", {"app_id": app}), PlannedStep("tap", {"text": row_text})]
        writer = TimelineWriter(tmp_path / "run")
        writer.start(RunInfo(fault, "fault matrix", rig.driver.device_id, rig.platform, rig.driver.backend))
        armed: list[float] = []

        def arm_after_first_step(record: StepRecord, context: TaskContext) -> None:
            if record.index == 0:
                rig.faults.reset_counts()
                armed.append(time.monotonic())
                case.arm(rig)

        runner = TaskRunner(
            rig.driver,
            ScriptedPlanner(steps),
            listeners=[TimelineRecorder(writer, rig.driver), arm_after_first_step],
        )
        result = runner.run(f"{fault} on {adapter}")
        took = time.monotonic() - armed[0]
        writer.finish(
            result.status.value, duration=result.duration, error=result.error, error_kind=result.error_kind
        )
        sends = rig.faults.count(rig.routes[case.hits])
        taps = rig.faults.count(rig.routes["tap"])

    # What the user sees: the typed error ends the task as a device error, in time.
    assert (result.status, result.error_kind) == (TaskStatus.DEVICE_ERROR, cell.kind), result.error
    assert took < cell.waits + SLACK
    # What crossed the wire, and what was repeated.
    assert sends == cell.sends
    assert len(result.steps) == 2
    launched, tapped = (record.result for record in result.steps)
    assert launched.success
    if case.hits == "tap":
        assert not tapped.success and tapped.error_kind == cell.kind and tapped.error_category == "device"
        assert tapped.attempts == 1 and not tapped.retryable  # a tap is never repeated by the loop
    else:
        assert tapped.success and taps == 1  # the tap went out once; its outcome could not be observed
        assert result.steps[1].scene is None
    # The run timeline holds every executed step.
    timeline = read_timeline(tmp_path / "run")
    assert [s["action"] for s in timeline.steps] == ["launch_app", "tap"]
    assert [s["status"] for s in timeline.steps] == ["passed", "failed" if case.hits == "tap" else "passed"]
    assert timeline.status == "device_error" and timeline.footer is not None
    assert timeline.footer["error_kind"] == cell.kind and timeline.footer["steps"] == 2
    assert not timeline.truncated and timeline.problems == ()
