"""App lifecycle on a device, through the task loop: the world model follows the device's real app IDs.

Each test runs a task with ``amc_runner`` (world model on) and then asks the device itself
(``driver.current_app()``), polled with a bound because real launches are asynchronous.
"""

from __future__ import annotations

import pytest
from amc.core.apps import is_home_screen
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.pytest_plugin import AppIds, RunnerFactory, TrackedDriver
from amc.runtime.context import TaskContext
from amc.runtime.task import TaskStatus

from device_tests.support import MISSING_APP, page_of, wait_for_foreground, wait_for_scene

pytestmark = pytest.mark.device


def test_launching_sets_current_app_to_the_real_id(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    result = amc_runner([PlannedStep("launch_app", {"app_id": amc_apps.app})]).run("launch the app")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.world is not None
    assert result.world.current_app == amc_apps.app
    assert wait_for_foreground(amc_driver, amc_apps.app) == amc_apps.app
    assert amc_driver.launched == [amc_apps.app]


def test_terminating_clears_current_app_and_shows_the_home_screen(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": amc_apps.app}),
        PlannedStep("terminate_app", {"app_id": amc_apps.app}),
    ]
    result = amc_runner(steps).run("launch and stop the app")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.world is not None
    assert result.world.current_app is None
    assert wait_for_foreground(amc_driver, None) is None
    home = wait_for_scene(amc_driver, lambda scene: is_home_screen(scene.foreground_app))
    assert is_home_screen(home.foreground_app), home.foreground_app


def test_switching_between_two_apps_is_followed(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    order = [amc_apps.app, amc_apps.second, amc_apps.app]
    seen: list[tuple[str | None, str | None]] = []

    def follow(record: StepRecord, context: TaskContext) -> None:
        assert context.world is not None
        believed = context.world.current_app
        seen.append((believed, wait_for_foreground(amc_driver, believed)))

    steps = [PlannedStep("launch_app", {"app_id": app}) for app in order]
    result = amc_runner(steps, listeners=[follow]).run("switch between two apps")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert seen == [(app, app) for app in order]


def test_launching_a_missing_app_fails_the_step_and_changes_nothing(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    before: dict[str, str | None] = {}

    def remember_page(record: StepRecord, context: TaskContext) -> None:
        if record.index == 0 and context.world is not None:
            assert wait_for_foreground(amc_driver, amc_apps.app) == amc_apps.app
            before["page"] = context.world.current_page

    steps = [
        PlannedStep("launch_app", {"app_id": amc_apps.app}),
        PlannedStep("launch_app", {"app_id": MISSING_APP}),
    ]
    result = amc_runner(steps, listeners=[remember_page]).run("launch an app that is not there")

    assert result.status is TaskStatus.FAILED
    assert result.error_kind == "AppNotInstalled"
    failed = result.steps[-1].result
    assert not failed.success and failed.error_kind == "AppNotInstalled"
    assert failed.error is not None and MISSING_APP in failed.error
    assert result.world is not None
    assert result.world.current_app == amc_apps.app
    assert result.world.current_page == before["page"]
    assert amc_driver.current_app() == amc_apps.app
    scene = amc_driver.observe()
    assert scene.foreground_app in (amc_apps.app, None)
    if before["page"] is not None and page_of(scene) is not None:
        assert page_of(scene) == before["page"]
