"""Writing a task's steps into its run timeline, with the pictures the device is asked for.

``amc.storage`` only writes files; whoever runs the loop decides which screenshots to take and
takes them. :class:`TimelineRecorder` is that decision for ``amc run``: a ``TaskRunner`` listener
that asks the device for a screenshot when a step failed (``failure``, the default: the report
shows the screen it failed on), after every step (``always``), or never, and hands the step, the
world state and the picture to the :class:`~amc.storage.timeline.TimelineWriter`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..core.errors import HarnessError, Interrupted
from ..core.steps import StepRecord
from ..drivers.base import Driver
from ..storage.timeline import TimelineWriter
from .context import TaskContext

__all__ = ["SCREENSHOT_POLICIES", "ScreenshotPolicy", "TimelineRecorder"]

ScreenshotPolicy = Literal["failure", "always", "never"]
SCREENSHOT_POLICIES: tuple[ScreenshotPolicy, ...] = ("failure", "always", "never")


def _wants_picture(record: StepRecord, policy: ScreenshotPolicy) -> bool:
    if record.step.action == "screenshot" and record.result.success:
        return False  # the step's own output is the picture
    # Not when the device itself failed (asking it again would fail too), nor after a stop request
    # (Ctrl-C: the run asks the device nothing more).
    if record.result.error_category in ("device", Interrupted.category):
        return False
    if policy == "always":
        return True
    if policy == "failure":  # the screen it failed on
        return not record.result.success
    return False


class TimelineRecorder:
    """A ``TaskRunner`` listener writing each executed step to ``writer``.

    ``on_written`` gets each record as written (redacted), after it is on disk.
    """

    def __init__(
        self,
        writer: TimelineWriter,
        driver: Driver,
        *,
        screenshots: ScreenshotPolicy = "failure",
        on_written: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        if screenshots not in SCREENSHOT_POLICIES:
            raise ValueError(
                f"screenshots must be one of {', '.join(SCREENSHOT_POLICIES)}, got {screenshots!r}"
            )
        self.writer = writer
        self.driver = driver
        self.screenshots: ScreenshotPolicy = screenshots
        self.on_written = on_written

    def __call__(self, record: StepRecord, context: TaskContext) -> None:
        picture: bytes | None = None
        problem: str | None = None
        if _wants_picture(record, self.screenshots):
            try:
                picture = self.driver.screenshot()
            except HarnessError as exc:
                problem = str(exc)
        written = self.writer.write_step(
            record,
            world=context.world.to_dict() if context.world is not None else None,
            screenshot=picture,
            screenshot_error=problem,
        )
        if self.on_written is not None:
            self.on_written(written)
