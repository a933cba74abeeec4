"""Ported from Appium's ``sample-code/python/test/test_android_selectors.py``: the four ways to find
elements, as amc selectors on the Scene the device returns (``find_elements_by_accessibility_id``
is ``label``, ``_by_id`` is ``id``, ``_by_class_name`` is ``type``, ``_by_xpath`` is ``xpath``).

The original's ``android:id/action_bar_container`` is ApiDemos' action bar, which the simulated
stand-in does not draw (its bar is the simulated device's toolbar); the id test looks for
``android:id/content``, the content view every Android activity has, once.
"""

from __future__ import annotations

import pytest
from amc.core.models import PlannedStep
from amc.pytest_plugin import RunnerFactory, TrackedDriver
from amc.runtime.task import TaskStatus
from support import PACKAGE, count

pytestmark = [pytest.mark.device, pytest.mark.android]


@pytest.fixture
def api_demos(amc_runner: RunnerFactory) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": PACKAGE, "stop_first": True}),
        PlannedStep("wait_for", {"target": {"label": "Content"}, "timeout": 10}),
    ]
    result = amc_runner(steps).run("start ApiDemos")
    assert result.status is TaskStatus.SUCCEEDED, result.error


def test_should_find_elements_by_accessibility_id(amc_driver: TrackedDriver, api_demos: None) -> None:
    assert count(amc_driver, label="Content") == 1


def test_should_find_elements_by_id(amc_driver: TrackedDriver, api_demos: None) -> None:
    assert count(amc_driver, id="android:id/content") == 1


def test_should_find_elements_by_class_name(amc_driver: TrackedDriver, api_demos: None) -> None:
    assert count(amc_driver, type="android.widget.FrameLayout") > 1


def test_should_find_elements_by_xpath(amc_driver: TrackedDriver, api_demos: None) -> None:
    assert count(amc_driver, xpath='//*[@class="android.widget.FrameLayout"]') > 1
