"""Ported from Appium's ``sample-code/python/test/test_android_basic_interactions.py``.

``find_element_by_id(...)`` + ``send_keys`` / ``click`` become steps with a selector
(``type_text`` with a ``target``, ``tap``), each waiting up to its ``timeout`` for the element
(Appium's ``implicitly_wait(10)``); reading a value back is a selector resolved on the screen.
"""

from __future__ import annotations

import pytest
from amc.core.models import PlannedStep
from amc.pytest_plugin import RunnerFactory, TrackedDriver
from amc.runtime.task import TaskStatus
from support import count, open_sample, text_of

pytestmark = [pytest.mark.device, pytest.mark.android]

LOREM = "Lorem ipsum dolor sit aie consectetur adipiscing\nPlloaso mako nuto siwuf cakso dodtos anr koop."


def test_should_send_keys_to_search_box_and_then_check_the_value(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory
) -> None:
    steps = [
        *open_sample("App", "Search", "Invoke Search"),
        PlannedStep("type_text", {"text": "Hello world!", "target": {"id": "txt_query_prefill"}}),
        PlannedStep("tap", {"target": {"id": "btn_start_search"}}),
        PlannedStep("wait_for", {"target": {"id": "android:id/search_src_text"}, "timeout": 10}),
    ]
    result = amc_runner(steps).run("search for Hello world!")

    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert text_of(amc_driver, id="android:id/search_src_text") == "Hello world!"


def test_should_click_a_button_that_opens_an_alert_and_then_dismisses_it(
    amc_driver: TrackedDriver, amc_runner: RunnerFactory
) -> None:
    opened = amc_runner(
        [
            *open_sample("App", "Alert Dialogs"),
            PlannedStep("tap", {"target": {"id": "io.appium.android.apis:id/two_buttons"}}),
            PlannedStep("wait_for", {"target": {"id": "android:id/alertTitle"}, "timeout": 10}),
        ]
    ).run("open the OK Cancel dialog")
    assert opened.status is TaskStatus.SUCCEEDED, opened.error
    assert text_of(amc_driver, id="android:id/alertTitle") == LOREM

    closed = amc_runner(
        [
            PlannedStep("tap", {"target": {"id": "android:id/button1"}}),
            PlannedStep("assert_not_visible", {"target": {"id": "android:id/alertTitle"}, "timeout": 10}),
        ]
    ).run("close it with OK")
    assert closed.status is TaskStatus.SUCCEEDED, closed.error
    assert count(amc_driver, id="android:id/alertTitle") == 0
