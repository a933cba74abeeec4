"""What the load tests share: a planner that proves its task's world is its own, and resource counts."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.semantic.models import Observation
from amc.world.models import WorldState

__all__ = ["SCREENS", "MarkerPlanner", "Resources", "rss_kib", "settle"]

# Per platform: the app, a step that opens a sub-page, and one that comes back.
SCREENS: dict[str, tuple[str, PlannedStep, PlannedStep]] = {
    "android": (
        "com.android.settings",
        PlannedStep("tap", {"text": "Network & internet"}),
        PlannedStep("tap", {"label": "Navigate up"}),
    ),
    "ios": (
        "com.apple.Preferences",
        PlannedStep("tap", {"text": "General"}),
        PlannedStep("tap", {"id": "BackButton"}),
    ),
}


@dataclass
class MarkerPlanner:
    """Remembers ``marker``, launches Settings, then goes to a sub-page and back until ``steps`` ran.

    At every turn it checks that the world it is shown holds its own marker and only its own
    steps, and that the screen is its device's; what it finds wrong goes to ``violations``.
    """

    marker: str
    platform: str
    steps: int
    device_id: str
    violations: list[str] = field(default_factory=list)

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        done = len(steps)
        if observation.scene.device_id != self.device_id:
            self.violations.append(f"step {done}: a screen of {observation.scene.device_id}")
        if steps and not steps[-1].result.success:
            self.violations.append(f"step {done}: {steps[-1].result.error}")
            return []
        if done:
            if world is None or world.variables != {"marker": self.marker}:
                seen = None if world is None else world.variables
                self.violations.append(f"step {done}: world variables {seen!r}")
            elif any(e.args.get("marker") not in (None, self.marker) for e in world.history):
                self.violations.append(f"step {done}: another task's step in the history")
        if done >= self.steps:
            return []
        app, forward, back = SCREENS[self.platform]
        if done == 0:
            return [PlannedStep("remember", {"remember": {"marker": self.marker}})]
        if done == 1:
            return [PlannedStep("launch_app", {"app_id": app})]
        return [forward if done % 2 == 0 else back]


def rss_kib() -> int:
    """Resident memory of this process (VmRSS from /proc/self/status), in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


@dataclass(frozen=True)
class Resources:
    """Live threads and open file descriptors of this process."""

    threads: int
    fds: int

    @classmethod
    def now(cls) -> Resources:
        return cls(threading.active_count(), len(os.listdir("/proc/self/fd")))


def settle(baseline: Resources, *, wait: float = 5.0) -> Resources:
    """Resources once handler threads that are still closing have gone (a bounded wait, not a timing
    assertion): returns as soon as both counts are back to ``baseline`` or ``wait`` seconds passed."""
    deadline = time.monotonic() + wait
    while True:
        gc.collect()
        now = Resources.now()
        if (now.threads <= baseline.threads and now.fds <= baseline.fds) or time.monotonic() >= deadline:
            return now
        time.sleep(0.05)
