"""The loop's stop request (`amc.runtime.cancel.Cancel`), set while a task runs on a fake device.

What crossed to the device is counted: after the stop nothing more is asked of it (no look, no
picture, no repeat), and the step in progress is recorded `interrupted`, not failed.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from amc.core.errors import DeviceTimeout, Interrupted
from amc.core.models import PlannedStep, Scene
from amc.runtime.cancel import Cancel
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import TaskRunner, TaskStatus
from amc.storage.timeline import RunInfo, TimelineWriter, read_timeline

from tests.unit.fakes import FakeDriver


class StopOnLook(FakeDriver):
    """Sets ``cancel`` on its ``at``-th observation, as Ctrl-C during a wait would."""

    def __init__(self, cancel: Cancel, at: int) -> None:
        super().__init__()
        self.cancel, self.at = cancel, at

    def observe(self) -> Scene:
        scene = super().observe()
        if self.count("observe") == self.at:
            self.cancel.set()
        return scene


def _wait_then_press() -> ScriptedPlanner:
    wait = PlannedStep("wait_for", {"text": "never", "timeout": 60, "interval": 0.01})
    return ScriptedPlanner([wait, PlannedStep("press", {"key": "home"})])


def test_a_wait_ends_at_its_next_poll_and_nothing_more_is_asked_of_the_device() -> None:
    cancel = Cancel()
    driver = StopOnLook(cancel, at=3)  # the first look, then the wait's second poll
    result = TaskRunner(driver, _wait_then_press(), cancel=cancel).run("wait")
    assert result.status is TaskStatus.INTERRUPTED and result.error_kind == "Interrupted"
    (record,) = result.steps
    assert record.status == "interrupted" and not record.failed
    assert record.result.error_kind == "Interrupted" and record.result.error_category == "interrupted"
    assert driver.count("observe") == 3 and driver.count("press") == 0  # no look after, no next step


def test_a_step_that_reached_the_device_is_kept_and_not_looked_at_after_the_stop() -> None:
    cancel = Cancel()

    class StopOnTap(FakeDriver):
        def tap(self, x: int, y: int) -> None:
            super().tap(x, y)
            cancel.set()

    driver = StopOnTap()
    planner = ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 2}), PlannedStep("press", {"key": "home"})])
    result = TaskRunner(driver, planner, cancel=cancel).run("tap")
    assert result.status is TaskStatus.INTERRUPTED
    assert [(r.step.action, r.status, r.page) for r in result.steps] == [("tap", "passed", None)]
    assert [name for name, _ in driver.calls] == ["observe", "tap"]


def test_a_step_is_not_sent_again_once_the_run_is_asked_to_stop() -> None:
    cancel = Cancel()

    class StopOnLaunch(FakeDriver):
        def launch_app(self, app_id: str) -> None:
            cancel.set()
            super().launch_app(app_id)

    driver = StopOnLaunch(errors={"launch_app": [DeviceTimeout("no answer")]})
    result = TaskRunner(
        driver, ScriptedPlanner([PlannedStep("launch_app", {"app_id": "a.b"})]), cancel=cancel
    ).run("launch")
    assert driver.count("launch_app") == 1  # transient and idempotent, yet not repeated
    assert result.steps[0].result.error_kind == "DeviceTimeout"


def test_the_timeline_says_interrupted_and_no_picture_is_asked_for(tmp_path: Path) -> None:
    cancel = Cancel()
    driver = StopOnLook(cancel, at=2)
    writer = TimelineWriter(tmp_path / "run")
    writer.start(RunInfo(flow="wait", goal="wait", device_id="fake-1", platform="android", backend="fake"))
    recorder = TimelineRecorder(writer, driver, screenshots="always")
    TaskRunner(driver, _wait_then_press(), listeners=[recorder], cancel=cancel).run("wait")
    writer.finish("interrupted")
    (step,) = read_timeline(tmp_path / "run").steps
    assert step["status"] == "interrupted" and driver.count("screenshot") == 0


def test_a_pause_ends_as_soon_as_the_stop_comes_from_another_thread() -> None:
    cancel = Cancel()
    threading.Timer(0.05, cancel.set, args=("stopped by the test",)).start()
    with pytest.raises(Interrupted, match="stopped by the test while waiting"):
        cancel.pause(60)  # without the stop: 60 s and no exception
    cancel.set("a second reason")
    assert cancel.reason == "stopped by the test"  # the first reason is kept
    with pytest.raises(Interrupted, match="before step 3"):
        cancel.check("before step 3")
    assert Cancel().is_set() is False
