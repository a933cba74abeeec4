"""FlowPlanner: a step per turn, a launch skipped only when world model and screen agree, stop on failure."""

from __future__ import annotations

from pathlib import Path

from amc.connect.simulated import SimDriver
from amc.core.models import PlannedStep, StepResult
from amc.core.steps import StepRecord
from amc.flows import FlowPlanner, load_flow, parse_flow, skip_reason
from amc.runtime.planner import Planner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus
from amc.semantic.models import Observation
from amc.sim import DEMO_APP
from amc.world.config import WorldConfig
from amc.world.models import WorldState

from tests.unit.fakes import scene

from .helpers import write_flow

SETTINGS = "com.android.settings"


def _run(
    text: str, driver: SimDriver | None = None, world: WorldConfig | None = None
) -> tuple[TaskRunner, TaskStatus, list[str]]:
    flow = parse_flow(text, environ={})
    sim = driver or SimDriver("android")
    config = TaskRunnerConfig(max_steps=50, world=world or WorldConfig())
    runner = TaskRunner(sim, FlowPlanner(flow, sim.platform), config=config)
    result = runner.run("flow")
    return (
        runner,
        result.status,
        [f"{r.step.action}:{'ok' if r.result.success else 'failed'}" for r in result.steps],
    )


def test_flow_planner_is_a_planner() -> None:
    assert isinstance(FlowPlanner(parse_flow("steps:\n  - press: home\n", environ={}), "android"), Planner)


def test_launch_of_the_app_already_in_front_is_skipped_with_its_reason() -> None:
    sim = SimDriver("android")
    flow = parse_flow(f"steps:\n  - launch_app: {SETTINGS}\n  - launch_app: {SETTINGS}\n", environ={})
    result = TaskRunner(sim, FlowPlanner(flow, "android")).run("flow")
    assert result.status is TaskStatus.SUCCEEDED
    first, second = result.steps
    assert first.step.action == "launch_app"
    assert second.step.action == "skip"
    assert second.step.args == {
        "reason": f"{SETTINGS} is already in front (the world model and the latest screen agree)",
        "skipped": "launch_app",
    }
    assert second.result.success and second.result.output["skipped"] == "launch_app"
    assert second.step.purpose == "flow <flow> step 2"  # the skip keeps the flow step it stands for
    assert sim.device.foreground() == SETTINGS
    assert result.world is not None and result.world.history[-1].action == "skip"
    assert result.world.current_app == SETTINGS


def test_launch_runs_when_the_screen_shows_another_app_although_the_world_model_remembers_it() -> None:
    # After `press: home` the world model still believes Settings was launched; the Scene says the launcher.
    runner, status, steps = _run(
        f"steps:\n  - launch_app: {SETTINGS}\n  - press: home\n  - launch_app: {SETTINGS}\n"
    )
    assert status is TaskStatus.SUCCEEDED
    assert steps == ["launch_app:ok", "press:ok", "launch_app:ok"]
    assert isinstance(runner.driver, SimDriver) and runner.driver.device.foreground() == SETTINGS


def test_launch_runs_when_only_the_screen_shows_the_app() -> None:
    # Settings was opened before the flow: the world model has no belief yet, so it is launched anyway.
    sim = SimDriver("android")
    sim.device.launch(SETTINGS)
    _runner, status, steps = _run(f"steps:\n  - launch_app: {SETTINGS}\n", sim)
    assert (status, steps) == (TaskStatus.SUCCEEDED, ["launch_app:ok"])


def test_nothing_is_skipped_with_the_world_model_off() -> None:
    _runner, status, steps = _run(
        f"steps:\n  - launch_app: {SETTINGS}\n  - launch_app: {SETTINGS}\n", world=WorldConfig(enabled=False)
    )
    assert (status, steps) == (TaskStatus.SUCCEEDED, ["launch_app:ok", "launch_app:ok"])


def test_skip_reason_needs_both_beliefs_to_agree() -> None:
    step = PlannedStep("launch_app", {"app_id": SETTINGS})
    both = WorldState(current_app=SETTINGS)
    assert skip_reason(step, scene("x", app=SETTINGS), both) is not None
    assert skip_reason(step, scene("x", app="com.android.launcher3"), both) is None
    assert skip_reason(step, scene("x", app=SETTINGS), WorldState(current_app=None)) is None
    assert skip_reason(step, scene("x", app=SETTINGS), None) is None
    assert skip_reason(PlannedStep("tap", {"text": "x"}), scene("x", app=SETTINGS), both) is None


def test_the_flow_stops_after_the_first_failed_step() -> None:
    runner, status, steps = _run(
        f"""
steps:
  - launch_app: {SETTINGS}
  - assert_visible: {{text: Nowhere to be seen, timeout: 0}}
  - tap: Network & internet
  - terminate_app: {SETTINGS}
"""
    )
    assert status is TaskStatus.FAILED
    assert steps == ["launch_app:ok", "assert_visible:failed"]
    assert isinstance(runner.planner, FlowPlanner)


def test_wait_for_polls_fresh_observations_within_its_bound(tmp_path: Path) -> None:
    # The welcome text only shows after the tap; wait_for keeps observing until it does.
    flow = load_flow(
        write_flow(
            tmp_path,
            f"""
            steps:
              - launch_app: {DEMO_APP}
              - type_text: {{text: qa, target: {{id: username}}}}
              - type_text: {{text: secret123, target: {{id: password}}, secret: true}}
              - tap: Sign in
              - wait_for: {{text: Signed in as qa, timeout: 2, interval: 0.01}}
              - assert_not_visible: {{id: password, timeout: 1, interval: 0.01}}
              - assert_app: {{android: {DEMO_APP}, timeout: 1}}
            """,
        ),
        environ={},
    )
    result = TaskRunner(SimDriver("android"), FlowPlanner(flow, "android")).run("sign in")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.steps[4].result.output["found"] == "Signed in as qa"


def test_planning_changes_nothing_but_the_planners_own_cursor() -> None:
    flow = parse_flow("steps:\n  - press: home\n  - press: back\n", environ={})
    planner = FlowPlanner(flow, "android")
    world = WorldState()
    first = planner.plan(goal="g", observation=Observation(scene("x")), world=world, steps=())
    assert [s.action for s in first] == ["press"]
    assert world == WorldState()
    done = (StepRecord(0, first[0], StepResult(True)),)
    second = planner.plan(goal="g", observation=Observation(scene("x")), world=world, steps=done)
    assert [s.args["key"] for s in second] == ["back"]
