"""Ported from Appium's ``sample-code/python/test/test_android_create_session.py``: a session on
ApiDemos starts in its main activity. amc has no activity query; the app in front is what the
world model and the device both say."""

from __future__ import annotations

import pytest
from amc.core.models import PlannedStep
from amc.pytest_plugin import RunnerFactory, TrackedDriver
from amc.runtime.task import TaskStatus
from support import PACKAGE

pytestmark = [pytest.mark.device, pytest.mark.android]


def test_should_create_and_destroy_android_session(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory
) -> None:
    result = amc_runner([PlannedStep("launch_app", {"app_id": PACKAGE})]).run("start ApiDemos")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.world is not None and result.world.current_app == PACKAGE
    assert amc_driver.current_app() == PACKAGE
