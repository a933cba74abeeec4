"""The driver contract: the same behaviour from every backend, checked against the device.

Every test runs on every registered rig (the in-process SimDriver, and each real adapter
talking to the simulated device over its real wire protocol). The device tests run the same
expectations against real phones.
"""

from __future__ import annotations

import pytest
from amc.core.apps import is_home_screen
from amc.core.errors import AppNotInstalled, StepArgumentError
from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskStatus

from tests.contract.rigs import Rig


def test_launch_brings_the_app_to_the_front(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["settings"])
    assert rig.driver.current_app() == apps["settings"]
    scene = rig.driver.observe()
    assert scene.foreground_app == apps["settings"]
    assert scene.platform == rig.device.platform
    assert scene.find(Selector(text=apps["settings_title"])) is not None


def test_terminate_leaves_the_app(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["settings"])
    rig.driver.terminate_app(apps["settings"])
    assert rig.driver.current_app() != apps["settings"]
    scene = rig.driver.observe()
    assert scene.foreground_app != apps["settings"]
    assert is_home_screen(scene.foreground_app)
    assert rig.device.app_state(apps["settings"]) == 1


def test_switching_between_two_apps_follows(rig: Rig, apps: dict[str, str]) -> None:
    for app in (apps["settings"], apps["second"], apps["settings"], apps["demo"]):
        rig.driver.launch_app(app)
        assert rig.driver.current_app() == app
        assert rig.driver.observe().foreground_app == app
        assert rig.device.foreground() == app


def test_launching_a_missing_app_is_app_not_installed_and_changes_nothing(
    rig: Rig, apps: dict[str, str]
) -> None:
    rig.driver.launch_app(apps["settings"])
    with pytest.raises(AppNotInstalled) as caught:
        rig.driver.launch_app("com.example.not.installed")
    assert "com.example.not.installed" in str(caught.value)
    assert rig.driver.current_app() == apps["settings"]
    assert rig.driver.observe().foreground_app == apps["settings"]


def test_a_selector_tap_changes_the_screen(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["settings"])
    before = rig.driver.observe()
    target = before.find(Selector(text=apps["subpage"]))
    assert target is not None, before.texts()
    x, y = tap_point(target, before.window)
    rig.driver.tap(x, y)
    after = rig.driver.observe()
    assert after.foreground_app == apps["settings"]
    assert apps["subpage"] in after.texts()
    assert len(rig.device.current_run().stack) == 2  # type: ignore[union-attr]


def test_typing_into_a_field_found_by_selector(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["demo"])
    scene = rig.driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    rig.driver.tap(*tap_point(field, scene.window))
    rig.driver.type_text("qa")
    after = rig.driver.observe()
    typed = after.find(Selector(id="username"))
    assert typed is not None and "qa" in (typed.text, typed.value)


def test_observed_scene_is_sane(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["settings"])
    scene = rig.driver.observe()
    width, height = scene.window_size
    assert (width, height) == rig.device.window_size
    visible = [el for el in scene if el.visible and not el.bounds.is_empty()]
    assert len(visible) > 10
    for el in visible:
        assert 0 <= el.bounds.left < el.bounds.right <= width, el
        assert 0 <= el.bounds.top < el.bounds.bottom <= height, el


def test_home_key_shows_the_home_screen(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["settings"])
    rig.driver.press("home")
    assert rig.driver.current_app() is None
    assert is_home_screen(rig.driver.observe().foreground_app)


@pytest.mark.parametrize(
    ("gesture", "duration"),
    [("long_press", 0), ("long_press", 60.5), ("long_press", True), ("swipe", -0.1), ("swipe", float("nan"))],
)
def test_gesture_durations_outside_the_shared_bounds_are_refused_before_any_request(
    rig: Rig, gesture: str, duration: float
) -> None:
    before = rig.faults.total if rig.faults is not None else None
    with pytest.raises(StepArgumentError, match=f"{gesture} duration"):
        if gesture == "long_press":
            rig.driver.long_press(100, 100, duration)
        else:
            rig.driver.swipe(100, 600, 100, 200, duration)
    assert (rig.faults.total if rig.faults is not None else None) == before
    rig.driver.long_press(100, 100, 60)  # the bounds themselves are allowed
    rig.driver.swipe(100, 600, 100, 590, 0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "100", None, True])
def test_coordinates_that_are_not_finite_numbers_are_refused_before_any_request(
    rig: Rig, bad: object
) -> None:
    before = rig.faults.total if rig.faults is not None else None
    with pytest.raises(StepArgumentError, match="x must be a finite number"):
        rig.driver.tap(bad, 100)  # type: ignore[arg-type]
    with pytest.raises(StepArgumentError, match="y2 must be a finite number"):
        rig.driver.swipe(100, 600, 100, bad)  # type: ignore[arg-type]
    assert (rig.faults.total if rig.faults is not None else None) == before


def test_screenshot_is_an_image(rig: Rig) -> None:
    data = rig.driver.screenshot()
    assert data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8")
    assert len(data) > 50


def test_task_runner_world_follows_the_device(rig: Rig, apps: dict[str, str]) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": apps["settings"]}),
        PlannedStep("tap", {"text": apps["subpage"]}),
        PlannedStep("launch_app", {"app_id": apps["second"]}),
        PlannedStep("terminate_app", {"app_id": apps["second"]}),
    ]
    seen: list[tuple[str | None, str | None, str | None]] = []

    def record_world(record: StepRecord, context: TaskContext) -> None:
        assert context.world is not None
        seen.append((context.world.current_app, context.world.observed_app, rig.driver.current_app()))

    runner = TaskRunner(rig.driver, ScriptedPlanner(steps), listeners=[record_world])
    result = runner.run("follow the device")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert seen[0] == (apps["settings"], apps["settings"], apps["settings"])
    assert seen[1] == (apps["settings"], apps["settings"], apps["settings"])
    assert seen[2] == (apps["second"], apps["second"], apps["second"])
    current, observed, device = seen[3]
    assert current is None and device is None
    assert is_home_screen(observed)
