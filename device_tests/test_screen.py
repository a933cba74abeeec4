"""What the harness sees on a device: the Scene, the page the world model names, the step history."""

from __future__ import annotations

import io

import pytest
from amc.core.errors import TargetNotFound
from amc.core.models import PlannedStep
from amc.core.selectors import tap_point
from amc.core.steps import StepRecord
from amc.pytest_plugin import AppIds, RunnerFactory, TrackedDriver
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskStatus
from PIL import Image

from device_tests.support import (
    MISSING_APP,
    SETTINGS_ROWS,
    SettingsPagePlanner,
    page_of,
    wait_for_foreground,
    wait_for_scene,
)

pytestmark = pytest.mark.device


def test_observe_returns_a_sane_scene_of_the_app_in_front(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    result = amc_runner([PlannedStep("launch_app", {"app_id": amc_apps.app})]).run("launch the app")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert wait_for_foreground(amc_driver, amc_apps.app) == amc_apps.app

    scene = wait_for_scene(amc_driver, lambda s: s.foreground_app == amc_apps.app and len(s) > 1)

    assert scene.foreground_app == amc_apps.app
    assert scene.platform == amc_driver.platform
    assert scene.device_id == amc_driver.device_id
    width, height = scene.window_size
    assert width > 0 and height > 0
    visible = [el for el in scene if el.visible and not el.bounds.is_empty()]
    assert visible, "no visible element with a size"
    assert any(el.display_text for el in visible), scene.texts()
    for el in visible:
        try:
            x, y = tap_point(el, scene.window)  # every visible element is at least partly on screen
        except TargetNotFound as exc:
            pytest.fail(f"visible element outside the {width}x{height} window: {exc}")
        assert 0 <= x < width and 0 <= y < height, el


def test_current_page_follows_the_enricher_when_settings_opens_a_sub_page(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    planner = SettingsPagePlanner(amc_apps.settings, SETTINGS_ROWS[amc_driver.platform])
    trail: list[tuple[str, str | None, str | None]] = []

    def follow(record: StepRecord, context: TaskContext) -> None:
        assert context.world is not None
        trail.append((record.step.action, page_of(record.scene), context.world.current_page))

    result = amc_runner(planner, listeners=[follow]).run("open a Settings sub-page")

    assert result.status is TaskStatus.SUCCEEDED, (result.error, trail)
    assert [action for action, _, _ in trail][:1] == ["launch_app"]
    assert "tap" in [action for action, _, _ in trail], trail
    believed: str | None = None
    for action, enriched, world_page in trail:
        believed = enriched if enriched is not None else believed
        assert world_page == believed, (action, trail)
    assert result.world is not None
    final = result.world.current_page
    assert final is not None and final != planner.page_before_tap, trail
    assert result.world.current_app == amc_apps.settings
    assert wait_for_foreground(amc_driver, amc_apps.settings) == amc_apps.settings


@pytest.mark.android
def test_back_returns_to_the_page_before_on_android(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    planner = SettingsPagePlanner(amc_apps.settings, SETTINGS_ROWS["android"])
    opened = amc_runner(planner).run("open a Settings sub-page")
    assert opened.status is TaskStatus.SUCCEEDED, opened.error

    back = amc_runner([PlannedStep("press", {"key": "back"})]).run("go back")

    assert back.status is TaskStatus.SUCCEEDED, back.error
    scene = wait_for_scene(amc_driver, lambda s: page_of(s) == planner.page_before_tap)
    assert page_of(scene) == planner.page_before_tap
    assert scene.foreground_app == amc_apps.settings


def test_history_holds_each_step_with_its_arguments_and_success_bounded(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": amc_apps.app}, rationale="start"),
        PlannedStep("launch_app", {"app_id": amc_apps.second}),
        PlannedStep("launch_app", {"app_id": MISSING_APP}),
        PlannedStep("launch_app", {"app_id": amc_apps.app}),
        PlannedStep("terminate_app", {"app_id": amc_apps.app}),
    ]
    runner = amc_runner(ScriptedPlanner(steps, stop_on_failure=False), history_size=3)

    result = runner.run("five steps, one failing")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert [r.step for r in result.steps] == steps
    assert [r.result.success for r in result.steps] == [True, True, False, True, True]
    assert result.world is not None
    history = list(result.world.history)
    assert len(history) == 3 == result.world.history_size
    assert [(e.action, e.args, e.success) for e in history] == [
        ("launch_app", {"app_id": MISSING_APP}, False),
        ("launch_app", {"app_id": amc_apps.app}, True),
        ("terminate_app", {"app_id": amc_apps.app}, True),
    ]
    assert history[0].error is not None and MISSING_APP in history[0].error
    assert result.world.current_app is None
    assert wait_for_foreground(amc_driver, None) is None


def test_a_screenshot_covers_the_window_the_scene_reports(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    # The report outlines elements on screenshots in percent of the window: that holds only if a
    # screenshot is the whole window, at one scale (pixels per point on iOS) in both directions.
    result = amc_runner([PlannedStep("launch_app", {"app_id": amc_apps.settings})]).run("open Settings")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    scene = wait_for_scene(amc_driver, lambda s: s.foreground_app == amc_apps.settings and len(s) > 1)
    picture = Image.open(io.BytesIO(amc_driver.screenshot()))
    assert picture.format in ("PNG", "JPEG")
    width, height = scene.window_size
    scale_x, scale_y = picture.width / width, picture.height / height
    assert scale_x >= 1 and abs(scale_x - scale_y) <= 0.02 * scale_x, (picture.size, scene.window_size)
