"""TaskRunner: the world hook (seed tasks 4-6) and the loop's own explicit control flow."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import DeviceOffline, DeviceTimeout, SessionLost
from amc.core.models import PlannedStep, StepResult
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner, StubPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus
from amc.semantic.models import Observation
from amc.world.config import WorldConfig
from amc.world.model import WorldModel
from amc.world.models import WorldState

from tests.unit.fakes import FakeDriver, scene

DISABLED = TaskRunnerConfig(world=WorldConfig(enabled=False))


class RecordingPlanner:
    """Hands out scripted steps and records the world it was given on each turn."""

    def __init__(self, *steps: PlannedStep) -> None:
        self.inner = ScriptedPlanner(steps)
        self.worlds: list[WorldState | None] = []
        self.observations: list[Observation] = []
        self.step_counts: list[int] = []

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        self.worlds.append(world)
        self.observations.append(observation)
        self.step_counts.append(len(steps))
        return self.inner.plan(goal=goal, observation=observation, world=world, steps=steps)


def test_world_is_populated_after_a_step_by_default() -> None:
    result = TaskRunner(FakeDriver(), StubPlanner()).run("look")
    assert result.status is TaskStatus.SUCCEEDED
    assert result.world is not None
    assert [e.action for e in result.world.history] == ["describe_screen"]


def test_world_stays_none_and_no_hook_runs_when_disabled() -> None:
    class ExplodingModel(WorldModel):
        def observe(self, *args: Any) -> None:
            raise AssertionError("the hook must not run when the world model is off")

    planner = RecordingPlanner(PlannedStep("describe_screen"), PlannedStep("describe_screen"))
    result = TaskRunner(FakeDriver(), planner, config=DISABLED, world_model=ExplodingModel()).run("look")
    assert result.status is TaskStatus.SUCCEEDED
    assert result.context.world is None
    assert planner.worlds == [None, None, None]


@pytest.mark.parametrize("config", [TaskRunnerConfig(), DISABLED])
def test_outcome_is_the_same_with_or_without_the_world_model(config: TaskRunnerConfig) -> None:
    steps = [PlannedStep("launch_app", {"app_id": "com.a"}), PlannedStep("tap", {"x": 1, "y": 2})]
    driver = FakeDriver()
    result = TaskRunner(driver, ScriptedPlanner(steps), config=config).run("go")
    assert result.status is TaskStatus.SUCCEEDED
    assert [r.result.success for r in result.steps] == [True, True]
    assert [n for n, _ in driver.calls] == ["observe", "launch_app", "observe", "tap", "observe"]


def test_the_planner_gets_the_current_world_by_the_second_step() -> None:
    planner = RecordingPlanner(PlannedStep("launch_app", {"app_id": "com.a"}), PlannedStep("describe_screen"))
    result = TaskRunner(FakeDriver(), planner).run("go")
    first, second = planner.worlds[0], planner.worlds[1]
    assert first is not None and first.current_app is None and first.history == ()
    assert second is not None and second.current_app == "com.a" and len(second.history) == 1
    assert planner.worlds[-1] is result.world  # the last plan saw the task's final world
    assert planner.step_counts == [0, 1, 2]


def test_the_first_plan_already_sees_the_first_screen() -> None:
    driver = FakeDriver(scenes=[scene("Wi-Fi", app="com.android.settings", title="Settings")])
    planner = RecordingPlanner(PlannedStep("describe_screen"))
    result = TaskRunner(driver, planner).run("look")
    first = planner.worlds[0]
    assert first is not None
    assert (first.observed_app, first.current_page) == ("com.android.settings", "Settings")
    assert first.history == ()  # a look is not a step
    assert planner.observations[0].page == "Settings" and planner.observations[0].scene.texts()[-1] == "Wi-Fi"
    assert result.world is not None and len(result.world.history) == 1
    assert result.context.first is planner.observations[0]


def test_a_planner_cannot_change_the_world_or_the_steps() -> None:
    class Meddler:
        tries: list[str] = []

        def plan(
            self,
            *,
            goal: str,
            observation: Observation,
            world: WorldState | None,
            steps: Sequence[StepRecord],
        ) -> list[PlannedStep]:
            assert world is not None
            attempts = {
                "assign current_app": lambda: setattr(world, "current_app", "com.evil"),
                "add a variable": lambda: world.variables.__setitem__("token", "x"),  # type: ignore[attr-defined]
                "clear the history": lambda: world.history.clear(),  # type: ignore[attr-defined]
                "drop a step": lambda: steps.pop(),  # type: ignore[attr-defined]
                "replace a step": lambda: steps.__setitem__(0, steps[0]),  # type: ignore[attr-defined]
                "replace the screen": lambda: setattr(observation, "scene", None),
            }
            for name, attempt in attempts.items():
                try:
                    attempt()
                except (AttributeError, TypeError, dataclasses.FrozenInstanceError, IndexError):
                    Meddler.tries.append(name)
            if steps:
                return []
            return [PlannedStep("remember", {"remember": {"user": "qa"}})]

    result = TaskRunner(FakeDriver(), Meddler()).run("meddle")
    assert result.status is TaskStatus.SUCCEEDED
    assert set(Meddler.tries) >= {
        "assign current_app",
        "add a variable",
        "clear the history",
        "replace the screen",
    }
    assert "drop a step" in Meddler.tries and "replace a step" in Meddler.tries
    world = result.world
    assert world is not None and world.current_app is None
    assert dict(world.variables) == {"user": "qa"} and len(world.history) == 1
    assert len(result.steps) == 1


def test_a_planner_that_raises_on_a_frozen_world_fails_the_task_and_changes_nothing() -> None:
    class Writer:
        def plan(self, *, world: WorldState | None, **kwargs: Any) -> list[PlannedStep]:
            assert world is not None
            world.current_app = "com.evil"  # type: ignore[misc]
            return []

    result = TaskRunner(FakeDriver(), Writer()).run("write")
    assert result.status is TaskStatus.FAILED and result.error_kind == "FrozenInstanceError"
    assert result.world is not None and result.world.current_app is None


def test_waiting_steps_look_through_the_runner_and_the_world_follows_them() -> None:
    driver = FakeDriver(
        scenes=[scene("loading", app="com.a"), scene("loading", app="com.b"), scene("Done", app="com.c")]
    )
    step = PlannedStep("wait_for", {"text": "Done", "timeout": 5, "interval": 0.01})
    result = TaskRunner(driver, ScriptedPlanner([step])).run("wait")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.steps[0].result.output["polls"] == 2
    assert result.context.observations == driver.count("observe") == 4  # first look, 2 polls, outcome
    assert result.world is not None and result.world.observed_app == "com.c"


def test_stub_planner_ignores_the_world() -> None:
    context = TaskContext(goal="g")
    plain = StubPlanner().plan(goal="g", scene=scene(), context=context)
    with_world = StubPlanner().plan(goal="g", scene=scene(), context=context, world=WorldState())
    assert plain == with_world and [s.action for s in plain] == ["describe_screen"]


def test_a_given_world_model_is_used() -> None:
    model = WorldModel(WorldConfig(history_size=1))
    result = TaskRunner(FakeDriver(), StubPlanner(), world_model=model).run("look")
    assert result.world is model.state


def test_transient_errors_on_safe_actions_are_retried_up_to_the_bound() -> None:
    driver = FakeDriver(errors={"launch_app": [DeviceTimeout("slow"), None]})
    result = TaskRunner(driver, ScriptedPlanner([PlannedStep("launch_app", {"app_id": "com.a"})])).run("go")
    assert result.status is TaskStatus.SUCCEEDED
    assert driver.count("launch_app") == 2
    assert result.steps[0].result.attempts == 2


def test_retries_stop_at_step_retries_and_end_the_task_with_device_error() -> None:
    driver = FakeDriver(errors={"launch_app": [SessionLost("gone")] * 5})
    config = TaskRunnerConfig(step_retries=2)
    result = TaskRunner(
        driver, ScriptedPlanner([PlannedStep("launch_app", {"app_id": "com.a"})]), config=config
    ).run("go")
    assert result.status is TaskStatus.DEVICE_ERROR
    assert result.error_kind == "SessionLost"
    assert driver.count("launch_app") == 3
    assert len(result.steps) == 1 and result.steps[0].result.attempts == 3


def test_unsafe_actions_are_never_repeated() -> None:
    driver = FakeDriver(errors={"tap": [DeviceTimeout("no answer")]})
    result = TaskRunner(driver, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 1})])).run("go")
    assert result.status is TaskStatus.DEVICE_ERROR
    assert driver.count("tap") == 1


def test_a_permanent_device_error_ends_the_task_at_once() -> None:
    driver = FakeDriver(errors={"press": [DeviceOffline("unauthorized", state="unauthorized")]})
    steps = [PlannedStep("press", {"key": "home"}), PlannedStep("press", {"key": "back"})]
    result = TaskRunner(driver, ScriptedPlanner(steps)).run("go")
    assert result.status is TaskStatus.DEVICE_ERROR and result.error_kind == "DeviceOffline"
    assert driver.count("press") == 1
    assert len(result.steps) == 1  # the step that failed is still recorded
    assert result.world is not None and len(result.world.history) == 1


def test_an_observation_failure_before_any_step_is_a_device_error() -> None:
    driver = FakeDriver(errors={"observe": [DeviceOffline("offline")]})
    result = TaskRunner(driver, StubPlanner()).run("go")
    assert result.status is TaskStatus.DEVICE_ERROR and result.steps == []


def test_consecutive_failures_end_the_task_failed() -> None:
    steps = [PlannedStep("tap", {"text": "missing"})] * 10
    config = TaskRunnerConfig(max_consecutive_failures=3)
    result = TaskRunner(FakeDriver(), ScriptedPlanner(steps, stop_on_failure=False), config=config).run("go")
    assert result.status is TaskStatus.FAILED
    assert len(result.steps) == 3
    assert "3 steps failed in a row" in (result.error or "")


def test_a_planner_that_stops_after_a_failure_fails_the_task() -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": "com.a"}),
        PlannedStep("fly"),
        PlannedStep("describe_screen"),
    ]
    result = TaskRunner(FakeDriver(), ScriptedPlanner(steps)).run("go")
    assert result.status is TaskStatus.FAILED
    assert [r.step.action for r in result.steps] == ["launch_app", "fly"]
    assert result.error_kind == "StepArgumentError"


def test_max_steps_bounds_the_run() -> None:
    class Endless:
        def plan(self, **kwargs: Any) -> list[PlannedStep]:
            return [PlannedStep("describe_screen")]

    result = TaskRunner(FakeDriver(), Endless(), config=TaskRunnerConfig(max_steps=4)).run("go")
    assert result.status is TaskStatus.MAX_STEPS
    assert len(result.steps) == 4


def test_the_rest_of_a_batch_is_dropped_after_a_failure() -> None:
    class Batch:
        calls = 0

        def plan(self, **kwargs: Any) -> list[PlannedStep]:
            Batch.calls += 1
            if Batch.calls > 1:
                return []
            return [PlannedStep("tap", {"text": "missing"}), PlannedStep("press", {"key": "home"})]

    driver = FakeDriver()
    result = TaskRunner(driver, Batch()).run("go")
    assert result.status is TaskStatus.FAILED
    assert driver.count("press") == 0


@pytest.mark.parametrize("bad", [None, "tap", [{"action": "tap"}]])
def test_a_planner_returning_garbage_fails_the_task_clearly(bad: object) -> None:
    class Garbage:
        def plan(self, **kwargs: Any) -> object:
            return bad

    result = TaskRunner(FakeDriver(), Garbage()).run("go")  # type: ignore[arg-type]
    assert result.status is TaskStatus.FAILED and "not a list of PlannedStep" in (result.error or "")


def test_a_raising_planner_fails_the_task() -> None:
    class Raising:
        def plan(self, **kwargs: Any) -> list[PlannedStep]:
            raise RuntimeError("llm quota")

    result = TaskRunner(FakeDriver(), Raising()).run("go")
    assert result.status is TaskStatus.FAILED and "llm quota" in (result.error or "")


def test_listeners_see_every_step_in_order() -> None:
    seen: list[tuple[int, str]] = []
    steps = [PlannedStep("launch_app", {"app_id": "com.a"}), PlannedStep("describe_screen")]
    runner = TaskRunner(
        FakeDriver(), ScriptedPlanner(steps), listeners=[lambda r, c: seen.append((r.index, r.step.action))]
    )
    runner.run("go")
    assert seen == [(0, "launch_app"), (1, "describe_screen")]


def test_config_is_validated() -> None:
    from amc.core.errors import ConfigError

    with pytest.raises(ConfigError, match="max_steps"):
        TaskRunnerConfig(max_steps=0)
    with pytest.raises(ConfigError, match="step_retries"):
        TaskRunnerConfig(step_retries=-1)
    assert TaskRunnerConfig.from_env({"AMC_WORLD_ENABLED": "off"}).world.enabled is False
    assert TaskRunnerConfig.from_env({"AMC_SEMANTIC": "off"}).semantic is False


def test_only_recent_step_records_keep_their_full_scene() -> None:
    config = TaskRunnerConfig(scene_history=3, max_steps=10)
    steps = [PlannedStep("describe_screen")] * 8
    result = TaskRunner(FakeDriver(), ScriptedPlanner(steps), config=config).run("go")
    assert [r.scene is not None for r in result.steps] == [False] * 5 + [True] * 3
    assert all(r.foreground_app == "com.example.app" for r in result.steps)  # the summary stays
    assert result.context.latest is not None and result.context.latest.scene is result.steps[-1].scene


def test_a_long_task_keeps_every_record_and_only_the_last_50_scenes_with_one_copy_of_each_name() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    plan = [
        PlannedStep("tap", {"text": "Network & internet"} if k % 2 == 0 else {"label": "Navigate up"})
        for k in range(60)
    ]
    result = TaskRunner(driver, ScriptedPlanner(plan), config=TaskRunnerConfig(max_steps=60)).run("go")
    assert result.succeeded and len(result.steps) == 60
    assert [r.scene is not None for r in result.steps] == [False] * 10 + [True] * 50
    assert [r.step for r in result.steps] == plan and all(r.result.success for r in result.steps)
    pages = {r.page for r in result.steps}
    assert len(pages) == 2 and None not in pages  # Settings' first page and the network page
    first, third = result.steps[0], result.steps[2]
    assert first.page == third.page and first.page is third.page  # one copy, not one per record
    assert first.foreground_app == "com.android.settings" and first.foreground_app is third.foreground_app


class _Meddler:
    """A planner in the design's shape that tries to change what the task believes, every way."""

    def __init__(self) -> None:
        self.refused: list[str] = []
        self.first_world: WorldState | None = None

    def plan(
        self, *, goal: str, scene: object, context: TaskContext, world: WorldState | None = None
    ) -> list[PlannedStep]:
        if self.first_world is None:
            self.first_world = world
        attempts = {
            "add_step_result": lambda: context.add_step_result(StepResult(success=False, error="forged")),
            "context.world": lambda: setattr(context, "world", WorldState(current_app="com.evil")),
            "scenes.append": lambda: context.scenes.append(scene),  # type: ignore[attr-defined]
            "steps.append": lambda: context.steps.append(None),  # type: ignore[attr-defined]
            "history.append": lambda: world.history.append(None),  # type: ignore[union-attr,arg-type]
            "world.current_app": lambda: setattr(world, "current_app", "com.evil"),
            "world_model": lambda: context.world_model.observe(
                None, None, PlannedStep("tap"), StepResult(True)
            ),  # type: ignore[union-attr]
        }
        for name, attempt in attempts.items():
            try:
                attempt()
            except (TypeError, AttributeError, dataclasses.FrozenInstanceError):
                self.refused.append(name)
        if len(context.step_results) >= 2:
            return []
        return [PlannedStep("launch_app", {"app_id": "com.android.settings"})]


def test_a_design_shaped_planner_can_change_nothing_the_task_believes() -> None:
    planner = _Meddler()
    result = TaskRunner(SimDriver("android"), planner).run("meddle")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert sorted(set(planner.refused)) == sorted(
        [
            "add_step_result",
            "context.world",
            "scenes.append",
            "steps.append",
            "history.append",
            "world.current_app",
            "world_model",
        ]
    )
    assert [r.step.action for r in result.steps] == ["launch_app", "launch_app"]
    assert all(r.result.success for r in result.steps)
    assert result.world is not None and result.world.current_app == "com.android.settings"
    assert len(result.world.history) == 2


def test_the_first_design_shaped_plan_already_sees_the_first_screen_in_the_world() -> None:
    planner = _Meddler()
    TaskRunner(SimDriver("android"), planner).run("look first")
    first = planner.first_world
    assert first is not None and first.observed_app is not None and first.current_page is not None
    assert len(first.history) == 0


def test_both_planner_shapes_run_in_one_process() -> None:
    seen: dict[str, object] = {}

    class Design:
        def plan(
            self, *, goal: str, scene: object, context: TaskContext, world: object = None
        ) -> list[PlannedStep]:
            seen["design"] = (type(scene).__name__, type(context).__name__)
            return []

    class Observing:
        def plan(
            self, *, goal: str, observation: Observation, world: object, steps: object
        ) -> list[PlannedStep]:
            seen["observing"] = type(observation).__name__
            return []

    assert TaskRunner(FakeDriver(), Design()).run("a").succeeded
    assert TaskRunner(FakeDriver(), Observing()).run("b").succeeded
    assert seen == {"design": ("Scene", "TaskContext"), "observing": "Observation"}


def test_a_planner_that_needs_an_input_the_loop_cannot_give_is_refused_when_the_runner_is_built() -> None:
    class Odd:
        def plan(self, *, goal: str, budget: int) -> list[PlannedStep]:
            return []

    with pytest.raises(TypeError, match="budget"):
        TaskRunner(FakeDriver(), Odd())  # type: ignore[arg-type]
