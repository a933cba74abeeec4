"""Session: one step at a time on a long-lived context, and TaskRunner.drive on a session with history."""

from __future__ import annotations

from collections.abc import Sequence

from amc.core.errors import DeviceOffline, DeviceTimeout
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.runtime.context import StepView, TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus, open_session
from amc.semantic.models import Observation
from amc.world.models import WorldState

from tests.unit.fakes import FakeDriver


def test_a_step_is_executed_observed_once_folded_into_the_world_and_told_to_listeners() -> None:
    driver = FakeDriver()
    told: list[tuple[int, str | None]] = []

    def listener(record: StepRecord, context: TaskContext) -> None:
        told.append((record.index, context.world.current_app if context.world else None))

    session = open_session(driver, "by hand", listeners=[listener])
    assert driver.calls == []  # building a session asks the device nothing
    session.look()
    outcome = session.run_step(PlannedStep("launch_app", {"app_id": "com.example.app"}, rationale="open it"))
    assert [name for name, _ in driver.calls] == ["observe", "launch_app", "observe"]
    assert outcome.result.success and outcome.observation is not None and outcome.look_error is None
    assert told == [(0, "com.example.app")]
    assert session.world is not None and session.world.history[0].rationale == "open it"
    assert session.context.observations == 2 and len(session.steps) == 1


def test_a_device_failure_is_not_observed_and_a_failed_look_is_reported_not_raised() -> None:
    driver = FakeDriver(errors={"tap": [DeviceOffline("gone")]})
    session = open_session(driver, "by hand")
    session.look()
    outcome = session.run_step(PlannedStep("tap", {"x": 1, "y": 2}))
    assert outcome.device_failed and outcome.observation is None
    assert [name for name, _ in driver.calls] == ["observe", "tap"]  # no look after a device failure
    driver.errors["observe"] = [DeviceTimeout("slow"), DeviceTimeout("slow")]
    outcome = session.run_step(PlannedStep("press", {"key": "back"}))
    assert outcome.result.success and outcome.observation is None
    assert outcome.look_error is not None and outcome.look_error.kind == "DeviceTimeout"


class Recording:
    def __init__(self, *steps: PlannedStep) -> None:
        self.inner = ScriptedPlanner(steps)
        self.seen: list[int] = []

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        self.seen.append(len(steps))
        return self.inner.plan(goal=goal, observation=observation, world=world, steps=steps)


def test_driving_a_goal_in_a_session_with_earlier_failures_counts_only_its_own_steps() -> None:
    driver = FakeDriver()
    session = open_session(driver, "a long session")
    session.look()
    for _ in range(3):  # three failed steps before the goal: not the goal's
        assert not session.run_step(PlannedStep("fly")).result.success
    planner = Recording(PlannedStep("describe_screen"), PlannedStep("describe_screen"))
    result = TaskRunner(driver, planner).drive(session, "two looks")
    assert result.status is TaskStatus.SUCCEEDED
    assert planner.seen == [0, 1, 2]  # the planner sees only this goal's steps
    assert len(result.steps) == 5 and result.context is session.context


def test_a_goal_in_a_session_is_bounded_by_its_own_steps() -> None:
    driver = FakeDriver()
    session = open_session(driver, "a long session")
    session.look()
    session.run_step(PlannedStep("describe_screen"))
    steps = [PlannedStep("describe_screen")] * 5
    result = TaskRunner(driver, ScriptedPlanner(steps), config=TaskRunnerConfig(max_steps=2)).drive(
        session, "bounded"
    )
    assert result.status is TaskStatus.MAX_STEPS and len(session.steps) == 3


def test_a_step_view_from_an_offset_follows_the_steps_after_it() -> None:
    driver = FakeDriver()
    session = open_session(driver, "view")
    session.look()
    session.run_step(PlannedStep("fly"))
    view = StepView(session.context.steps, 1)
    assert len(view) == 0 and view.last_result is None and view.failures_in_a_row == 0
    session.run_step(PlannedStep("describe_screen"))
    session.run_step(PlannedStep("fly"))
    assert len(view) == 2 and [r.step.action for r in view] == ["describe_screen", "fly"]
    assert view[-1].index == 2 and view[0].index == 1 and view[0:1][0].index == 1
    assert view.failures_in_a_row == 1
