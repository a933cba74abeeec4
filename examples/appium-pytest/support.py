"""What the ported tests share: the app, and the steps that open one of its samples.

Appium's sample tests start an activity directly (the ``appActivity`` capability,
``driver.start_activity``); amc starts apps, not activities, so a test opens a sample as a user
does, by its items in ApiDemos' lists.
"""

from __future__ import annotations

from amc.core.models import PlannedStep
from amc.core.selectors import Selector
from amc.pytest_plugin import TrackedDriver

PACKAGE = "io.appium.android.apis"


def open_sample(*path: str) -> list[PlannedStep]:
    """Launch ApiDemos anew and tap the list items ``path`` names (``"App", "Alert Dialogs"``)."""
    steps = [PlannedStep("launch_app", {"app_id": PACKAGE, "stop_first": True})]
    steps += [PlannedStep("tap", {"target": {"text": item}, "timeout": 10}) for item in path]
    return steps


def text_of(driver: TrackedDriver, **selector: str) -> str:
    """The text of the one element ``selector`` names on the screen now (``find_element(...).text``)."""
    element = Selector.from_mapping(selector).resolve(driver.observe())
    return element.text or ""


def count(driver: TrackedDriver, **selector: str) -> int:
    """How many elements ``selector`` names on the screen now (``len(find_elements(...))``)."""
    return len(Selector.from_mapping(selector).find_all(driver.observe()))
