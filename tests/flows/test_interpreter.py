"""FlowPlanner as an interpreter of the flow tree, through the real task loop: skipped steps,
optional steps and blocks (warnings), retry (retried failures kept, the flow passes), repeat, nested
handlers, interruption, and what each costs the device."""

from __future__ import annotations

import threading

from amc.core.errors import AppLaunchFailed, AssertionFailed
from amc.flows import FlowPlanner, parse_flow
from amc.runtime.cancel import Cancel
from amc.runtime.task import TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus

from tests.unit.fakes import FakeDriver, scene


def _run(text: str, driver: FakeDriver, **config: int) -> TaskResult:
    flow = parse_flow(text, environ={})
    planner = FlowPlanner(flow, "android")
    limits = {"max_steps": planner.most_steps, **config}
    return TaskRunner(driver, planner, config=TaskRunnerConfig(**limits)).run("flow")


def _trail(result: TaskResult) -> list[str]:
    out = []
    for record in result.steps:
        action = record.step.args.get("skipped") if record.step.action == "skip" else record.step.action
        out.append(f"{action}:{record.status}")
    return out


def test_a_step_whose_condition_does_not_hold_is_recorded_skipped_and_costs_nothing() -> None:
    driver = FakeDriver(scenes=[scene("Home")])
    result = _run(
        """
steps:
  - press: back
    when: {visible: Settings}
  - press: home
    when: {platform: ios}
  - press: home
    when: {any: [{platform: ios}, {visible: Home}]}
""",
        driver,
    )
    assert result.status is TaskStatus.SUCCEEDED
    assert _trail(result) == ["press:skipped", "press:skipped", "press:passed"]
    assert result.steps[0].step.args["reason"] == "when: visible text='Settings' does not hold"
    # Only the one press reached the device; a skip is followed by no new look either.
    assert driver.count("press") == 1
    assert driver.count("observe") == 2  # the first look and the one after the press
    assert result.context.observations == 2


def test_an_optional_step_that_fails_is_a_warning_and_the_flow_goes_on() -> None:
    driver = FakeDriver(errors={"launch_app": [AppLaunchFailed("did not start"), AppLaunchFailed("again")]})
    result = _run(
        """
steps:
  - launch_app: com.example.app
    optional: true
  - launch_app: {android: com.example.app, optional: true}
  - press: home
""",
        driver,
        max_consecutive_failures=1,  # warnings do not count toward it
    )
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert _trail(result) == ["launch_app:warning", "launch_app:warning", "press:passed"]
    assert result.steps[0].step.on_failure == "warn"


def test_a_retry_block_runs_again_after_a_failure_keeping_what_failed() -> None:
    driver = FakeDriver(errors={"launch_app": [AppLaunchFailed("slow start")]})
    result = _run(
        """
steps:
  - retry:
      times: 2
      steps:
        - press: home
        - launch_app: com.example.app
        - press: back
  - press: home
""",
        driver,
        max_consecutive_failures=1,
    )
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert _trail(result) == [
        "press:passed",
        "launch_app:retried",  # kept in the record: nothing done is lost
        "press:passed",
        "launch_app:passed",
        "press:passed",
        "press:passed",
    ]
    assert result.steps[1].result.error == "slow start"


def test_a_retry_that_never_passes_fails_the_flow_at_its_last_attempt() -> None:
    failures = [AppLaunchFailed(f"attempt {n}") for n in range(1, 4)]
    driver = FakeDriver(errors={"launch_app": list(failures)})
    result = _run(
        "steps:\n  - retry: {times: 2, steps: [{launch_app: com.example.app}]}\n  - press: home\n", driver
    )
    assert result.status is TaskStatus.FAILED
    assert _trail(result) == ["launch_app:retried", "launch_app:retried", "launch_app:failed"]
    assert result.error == "attempt 3" and driver.count("press") == 0


def test_an_optional_block_that_fails_ends_itself_with_a_warning_and_the_flow_goes_on() -> None:
    driver = FakeDriver(errors={"launch_app": [AppLaunchFailed("a"), AppLaunchFailed("b")]})
    result = _run(
        """
steps:
  - retry:
      times: 1
      steps:
        - launch_app: com.example.app
        - press: back
    optional: true
  - press: home
""",
        driver,
    )
    assert result.status is TaskStatus.SUCCEEDED, result.error
    # The retry runs again, its last attempt fails: a warning (the optional block), and the rest of
    # the block is left; the flow goes on after it.
    assert _trail(result) == ["launch_app:retried", "launch_app:warning", "press:passed"]


def test_an_optional_step_inside_a_retry_warns_without_running_the_block_again() -> None:
    driver = FakeDriver(errors={"launch_app": [AppLaunchFailed("a")]})
    result = _run(
        """
steps:
  - retry:
      times: 3
      steps:
        - launch_app: com.example.app
          optional: true
        - press: back
""",
        driver,
    )
    assert result.status is TaskStatus.SUCCEEDED
    assert _trail(result) == ["launch_app:warning", "press:passed"]


def test_repeat_while_stops_at_its_max() -> None:
    driver = FakeDriver(scenes=[scene("Loading")])  # it never stops loading
    result = _run("steps:\n  - repeat: {while: {visible: Loading}, max: 4, steps: [{press: back}]}\n", driver)
    assert result.status is TaskStatus.SUCCEEDED
    assert [r.step.args["key"] for r in result.steps] == ["back"] * 4


def test_repeat_times_and_repeat_while_with_its_bound() -> None:
    driver = FakeDriver(scenes=[scene("Loading"), scene("Loading"), scene("Loading"), scene("Done")])
    result = _run(
        """
steps:
  - repeat: {times: 2, steps: [{press: home}]}
  - repeat:
      while: {visible: Loading}
      max: 5
      steps:
        - press: back
  - repeat: {while: {visible: Loading}, max: 2, steps: [{press: back}]}
""",
        driver,
    )
    assert result.status is TaskStatus.SUCCEEDED
    # The first look and each look after a step is the next scripted screen: Loading three times,
    # then Done: the while runs once and stops; the last repeat's condition no longer holds.
    assert [r.step.args["key"] for r in result.steps] == ["home", "home", "back"]


def test_a_failed_step_in_a_repeat_ends_the_flow() -> None:
    driver = FakeDriver(errors={"press": [None, AssertionFailed("no")]})
    result = _run("steps:\n  - repeat: {times: 5, steps: [{press: home}]}\n  - press: back\n", driver)
    assert result.status is TaskStatus.FAILED
    assert _trail(result) == ["press:passed", "press:failed"]


def test_a_subflow_that_is_skipped_is_one_record() -> None:
    flow = parse_flow(
        "steps:\n  - repeat: {times: 3, steps: [{press: home}]}\n    when: {platform: ios}\n", environ={}
    )
    driver = FakeDriver()
    result = TaskRunner(driver, FlowPlanner(flow, "android")).run("flow")
    assert _trail(result) == ["repeat:skipped"] and driver.count("press") == 0


def test_cancel_stops_the_flow_before_its_next_step() -> None:
    cancel = threading.Event()
    flow = parse_flow("steps:\n  - press: home\n  - press: back\n", environ={})
    planner = FlowPlanner(flow, "android", cancel=cancel)
    driver = FakeDriver()

    def stop_after_first(record: object, context: object) -> None:
        cancel.set()

    result = TaskRunner(driver, planner, listeners=[stop_after_first]).run("flow")
    # Stopped, not failed: the task ends interrupted and the step that ran is as it was.
    assert result.status is TaskStatus.INTERRUPTED and result.error_kind == "Interrupted"
    assert [(r.step.args["key"], r.status) for r in result.steps] == [("home", "passed")]


def test_the_runners_stop_request_stops_the_flow_before_its_next_step_too() -> None:
    cancel = Cancel()
    flow = parse_flow("steps:\n  - press: home\n  - press: back\n", environ={})
    driver = FakeDriver()

    def stop_after_first(record: object, context: object) -> None:
        cancel.set()

    runner = TaskRunner(driver, FlowPlanner(flow, "android"), listeners=[stop_after_first], cancel=cancel)
    result = runner.run("flow")
    assert result.status is TaskStatus.INTERRUPTED and "before step 2" in (result.error or "")
    assert driver.count("press") == 1
