"""How one flow ended on one device: :class:`FlowOutcome`, the value every listener of a run is
handed at a flow's end (the console line, the JUnit test case, the index row are all made from it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...runtime.task import TaskResult
from ...storage.timeline import TIMELINE_FILE

__all__ = ["NOT_RUN_AFTER", "NOT_STARTED", "NO_DEVICE", "FlowOutcome", "first_failure", "step_position"]

NO_DEVICE = "(no device)"  # the device of a flow that got none
NOT_STARTED = "not started: the run was interrupted (Ctrl-C)"  # why a flow was not run
NOT_RUN_AFTER = (
    "not run: an earlier flow of the workspace's executionOrder failed and continueOnFailure is false"
)


def step_position(record: dict[str, Any]) -> str | None:
    """The ``file:line:column`` a recorded flow step came from (its rationale starts with it)."""
    rationale = (record.get("step") or {}).get("rationale")
    if not isinstance(rationale, str) or ": `" not in rationale:
        return None
    return rationale.split(": `", 1)[0]


def first_failure(result: TaskResult) -> str | None:
    """The first failed step (or the step a stop request ended), else the task's own error."""
    for record in result.steps:
        if record.status in ("failed", "interrupted"):
            at = step_position({"step": record.step.to_dict()})
            where = f" at {at}" if at else ""
            failed = record.result
            return f"step {record.index + 1} {record.step.action}{where}: {failed.error_kind}: {failed.error}"
    if result.error:
        return f"{result.error_kind}: {result.error}"
    return None


@dataclass(frozen=True)
class FlowOutcome:
    """How one flow ended on one device (or why it did not run: ``status`` ``skipped``)."""

    flow: str
    file: str
    status: str
    steps: int
    total: int | None
    duration: float
    run_dir: Path | None
    report: Path | None
    device: str = ""
    platform: str = ""
    started_at: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None
    first_failure: str | None = None
    retried: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "succeeded"

    def to_dict(self) -> dict[str, Any]:
        return {
            "flow": self.flow,
            "file": self.file,
            "device": self.device,
            "platform": self.platform,
            "status": self.status,
            "passed": self.passed,
            "steps": self.steps,
            "total": self.total,
            "counts": self.counts,
            "duration": round(self.duration, 6),
            "error": self.error,
            "error_kind": self.error_kind,
            "first_failure": self.first_failure,
            "run_dir": str(self.run_dir) if self.run_dir else None,
            "timeline": str(self.run_dir / TIMELINE_FILE) if self.run_dir else None,
            "report": str(self.report) if self.report else None,
        }
