"""What the device tests share: bounded waits for a device to catch up, and the Settings planner.

Real devices launch apps and change pages asynchronously, so a check of the device's own answer is
polled with a bound (``FOREGROUND_TIMEOUT``); on the simulated device the first poll already holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from amc.core.models import PlannedStep, Platform, Scene
from amc.core.selectors import Selector
from amc.core.steps import StepRecord
from amc.drivers.base import Driver
from amc.semantic.enricher import enrich_scene
from amc.semantic.models import Observation
from amc.world.models import WorldState

__all__ = [
    "FOREGROUND_TIMEOUT",
    "MISSING_APP",
    "SETTINGS_ROWS",
    "SettingsPagePlanner",
    "page_of",
    "wait_for_foreground",
    "wait_for_scene",
    "wait_until",
]

FOREGROUND_TIMEOUT = 15.0
POLL_INTERVAL = 0.25
MISSING_APP = "com.example.amc.not.installed"

# The Settings row that opens a sub-page. Android's wording differs between releases and vendors
# ("Network & internet" on AOSP and Pixels, "Network and Internet" on some, "Connections" on
# Samsung); iOS says "General" everywhere (English UI assumed on both).
SETTINGS_ROWS: dict[Platform, Selector] = {
    "android": Selector(text_regex=r"^(Network (&|and) [Ii]nternet|Connections|Network & Internet)$"),
    "ios": Selector(text="General"),
}

T = TypeVar("T")


def wait_until(
    probe: Callable[[], T],
    accept: Callable[[T], bool],
    *,
    timeout: float = FOREGROUND_TIMEOUT,
    interval: float = POLL_INTERVAL,
) -> tuple[T, int]:
    """Call ``probe`` until ``accept`` holds for its value or ``timeout`` passes.

    Returns the last value and how many probes it took; the caller asserts on the value.
    """
    deadline = time.monotonic() + timeout
    probes = 0
    while True:
        value = probe()
        probes += 1
        if accept(value) or time.monotonic() >= deadline:
            return value, probes
        time.sleep(max(0.0, min(interval, deadline - time.monotonic())))


def wait_for_foreground(
    driver: Driver, expected: str | None, *, timeout: float = FOREGROUND_TIMEOUT
) -> str | None:
    """The device's own foreground answer once it equals ``expected`` (or the last one after ``timeout``)."""
    seen, _ = wait_until(driver.current_app, lambda app: app == expected, timeout=timeout)
    return seen


def wait_for_scene(
    driver: Driver, accept: Callable[[Scene], bool], *, timeout: float = FOREGROUND_TIMEOUT
) -> Scene:
    """An observation ``accept`` holds for (or the last one after ``timeout``)."""
    scene, _ = wait_until(driver.observe, accept, timeout=timeout)
    return scene


def page_of(scene: Scene | None) -> str | None:
    """The page the default enricher names for ``scene`` (None when it cannot tell)."""
    if scene is None:
        return None
    semantic = enrich_scene(scene)
    return semantic.page if semantic is not None else None


class SettingsPagePlanner:
    """Open a Settings sub-page the way a person would, robustly on real devices.

    Launch Settings; wait (bounded, once) for the sub-page's row, then swipe up at most ``scrolls``
    times when it is not on the first screen; tap it; then look again (``describe_screen``, one
    observation per step, ``settle_interval`` apart, at most ``settle_polls`` times) until the page
    the default enricher names differs from the one before the tap. Any failed step ends the plan.
    ``page_before_tap`` is set when the row is tapped.
    """

    def __init__(
        self,
        settings_app: str,
        row: Selector,
        *,
        scrolls: int = 3,
        settle_polls: int = 20,
        settle_interval: float = POLL_INTERVAL,
    ) -> None:
        self.settings_app = settings_app
        self.row = row
        self.scrolls_left = scrolls
        self.settle_left = settle_polls
        self.settle_interval = settle_interval
        self.phase = "launch"
        self.page_before_tap: str | None = None

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        last = steps[-1].result if steps else None
        scene = observation.scene
        if self.phase == "launch":
            self.phase = "find"
            return [PlannedStep("launch_app", {"app_id": self.settings_app}, purpose="open Settings")]
        if self.phase == "find":
            if last is not None and not last.success and steps[-1].step.action == "launch_app":
                return []
            if self.row.find_all(scene):
                self.phase = "tapped"
                self.page_before_tap = observation.page
                return [PlannedStep("tap", {"target": self.row.to_dict()}, purpose="open the sub-page")]
            if steps[-1].step.action == "launch_app":
                return [PlannedStep("wait_for", {"target": self.row.to_dict(), "timeout": 10.0})]
            if self.scrolls_left > 0:  # each swipe's own observation is checked, with no further wait
                self.scrolls_left -= 1
                return [PlannedStep("swipe", {"direction": "up"}, purpose="look further down the list")]
            return []
        if self.phase == "tapped":
            if last is not None and not last.success:
                return []
            page = observation.page
            if page is not None and page != self.page_before_tap:
                return []
            if self.settle_left <= 0:
                return []
            self.settle_left -= 1
            time.sleep(self.settle_interval)  # bounded: settle_polls x settle_interval in all
            return [PlannedStep("describe_screen", purpose="look again: the new page may still be opening")]
        return []
