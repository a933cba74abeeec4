"""Permissions on a device, through the task loop: Maestro's launchApp default (every permission the
app asks for allowed) runs where the device lets permissions be set, and is refused before the
device is asked where it cannot (a physical iPhone), exactly as `amc check --device` foresees.
"""

from __future__ import annotations

import pytest
from amc.actions import ACTIONS
from amc.core.models import PlannedStep
from amc.drivers.kinds import device_kind
from amc.pytest_plugin import AppIds, RunnerFactory, TrackedDriver
from amc.runtime.task import TaskStatus

from device_tests.support import wait_for_foreground

pytestmark = pytest.mark.device


def test_allowing_the_apps_permissions_runs_where_the_check_says_it_can(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory, amc_apps: AppIds
) -> None:
    args = {"app_id": amc_apps.app, "permissions": {"all": "allow"}}
    foreseen = ACTIONS["set_permissions"].cannot_run(
        args, amc_driver.backend, amc_driver.platform, device_kind(amc_driver)
    )
    steps = [PlannedStep("set_permissions", args), PlannedStep("launch_app", {"app_id": amc_apps.app})]
    result = amc_runner(steps).run("allow the app's permissions, then launch it")

    if foreseen is None:
        assert result.status is TaskStatus.SUCCEEDED, result.error
        assert amc_driver.calls["set_permissions"] == 1
        assert wait_for_foreground(amc_driver, amc_apps.app) == amc_apps.app
    else:
        assert result.status is not TaskStatus.SUCCEEDED
        assert result.steps[0].result.error_kind == "Unsupported"
        assert amc_driver.calls["set_permissions"] == 0  # refused before the device was asked
