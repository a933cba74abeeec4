"""What ``amc run`` prints: one line per executed step, a line per flow, a summary, or JSON lines.

Lines are written whole under one lock, so flows running on several devices at once never mix
their lines (each line then names its device). Secrets the flows mark are scrubbed from
everything printed. A reader that goes away (``amc run … | head``) stops the printing, not the run.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.limits import one_line
from ..core.steps import STEP_STATUSES
from ..drivers.base import Driver
from ..flows import Flow
from ..storage.redaction import Redactor
from ..storage.timeline import TIMELINE_FILE
from .common import Streams

__all__ = ["Console", "FlowOutcome", "indented", "step_position"]

_TARGET_WIDTH = 40


def indented(text: str, by: str = "          ") -> str:
    """A text of several lines under a step line: each line after the first indented, so no line of
    it can pass for a step line of its own."""
    return text.replace("\r\n", "\n").replace("\n", "\n" + by)


def step_position(record: dict[str, Any]) -> str | None:
    """The ``file:line:column`` a recorded flow step came from (its rationale starts with it)."""
    rationale = (record.get("step") or {}).get("rationale")
    if not isinstance(rationale, str) or ": `" not in rationale:
        return None
    return rationale.split(": `", 1)[0]


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


class Console:
    """The live view; ``devices`` above one prefixes every line with its device."""

    def __init__(self, io: Streams, *, json_lines: bool, redactor: Redactor, devices: int = 1) -> None:
        self.io = io
        self.json_lines = json_lines
        self.redactor = redactor
        self.prefixed = devices > 1
        self.closed = False
        self._lock = threading.Lock()

    def _emit(self, event: str, data: dict[str, Any], text: str, device: str = "") -> None:
        if self.prefixed and device and not self.json_lines:
            text = "".join(f"[{device}] {line}\n" if line else "\n" for line in text.split("\n")[:-1])
        with self._lock:
            if self.closed:
                return
            try:
                if self.json_lines:
                    line = json.dumps({"event": event, **self.redactor.value(data)}, ensure_ascii=False)
                    self.io.out.write(line + "\n")
                else:
                    self.io.out.write(self.redactor.text(text))
                self.io.out.flush()
            except BrokenPipeError:
                # The reader went away (`amc run … | head`): the run goes on, its folder keeps everything.
                self.closed = True
                if getattr(self.io.out, "inner", self.io.out) is sys.stdout:
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def note(self, text: str) -> None:
        """A line about the run as a whole (flows left out, the index page …), on stderr."""
        with self._lock:
            self.io.err.write(self.redactor.text(text) + "\n")

    def flow_start(
        self, flow: Flow, spec: str, reason: str, driver: Driver, run_dir: Path, total: int | None
    ) -> None:
        device = {
            "spec": spec,
            "id": driver.device_id,
            "platform": driver.platform,
            "backend": driver.backend,
            "reason": reason,
        }
        steps = f"{total} steps" if total is not None else "steps decided as it runs (conditions, retries)"
        text = (
            f"flow {flow.name} ({flow.path}): {steps}\n"
            f"device: {spec} = {driver.platform} {driver.device_id} via {driver.backend} ({reason})\n"
            f"run folder: {run_dir}\n"
        )
        data = {
            "flow": flow.name,
            "file": flow.path,
            "device": device,
            "steps": total,
            "run_dir": str(run_dir),
        }
        self._emit("flow_start", data, text, spec)

    def step(self, flow: Flow, total: int | None, rec: dict[str, Any], device: str) -> None:
        result = rec.get("result") or {}
        action, target = str(rec.get("action")), str(rec.get("target"))
        if action == "skip":
            args = (rec.get("step") or {}).get("args") or {}
            action, target = str(args.get("skipped") or "step"), str(args.get("reason") or "")
        target = one_line(target)
        shown = target if len(target) <= _TARGET_WIDTH else target[: _TARGET_WIDTH - 1] + "…"
        ms = float(result.get("duration") or 0.0) * 1000
        width = len(str(total)) if total is not None else 3
        number = f"{rec['number']:>{width}}" + (f"/{total}" if total is not None else "")
        status = str(rec["status"])
        text = (
            f"[{number}] {action:<20} {shown:<{_TARGET_WIDTH}} {status:<7} "
            f"{ms:8.1f} ms  app={one_line(str(rec.get('foreground_app') or '?'))} "
            f"page={one_line(str(rec.get('page') or '?'))}\n"
        )
        where = step_position(rec)
        if status in ("failed", "warning", "retried", "interrupted"):
            at = f" at {where}" if where else ""
            text += f"        {result.get('error_kind')}{at}: {indented(str(result.get('error')))}\n"
        data = {
            "flow": flow.name,
            "number": rec["number"],
            "total": total,
            "status": status,
            "action": action,
            "target": target,
            "at": where,
            "duration": result.get("duration"),
            "error": result.get("error"),
            "error_kind": result.get("error_kind"),
            "app": rec.get("foreground_app"),
            "page": rec.get("page"),
            "device": device,
        }
        self._emit("step", data, text, device)

    def flow_end(self, outcome: FlowOutcome) -> None:
        shown = [k for k in STEP_STATUSES if k in ("passed", "failed", "skipped") or outcome.counts.get(k)]
        counts = ", ".join(f"{outcome.counts.get(k, 0)} {k}" for k in shown)
        verdict = "passed" if outcome.passed else outcome.status.upper()
        of = f" of {outcome.total}" if outcome.total is not None else ""
        text = f"flow {outcome.flow} {verdict}: {outcome.steps}{of} steps run ({counts}) "
        text += f"in {outcome.duration:.2f} s\n"
        if outcome.error:
            text += f"  error: {outcome.error_kind}: {indented(outcome.error, '    ')}\n"
        if outcome.first_failure:
            said = "stopped at" if outcome.status == "interrupted" else "first failure"
            text += f"  {said}: {indented(outcome.first_failure, '    ')}\n"
        if outcome.run_dir is not None:
            text += f"  timeline: {outcome.run_dir / TIMELINE_FILE}\n  report:   {outcome.report}\n"
        self._emit("flow_end", outcome.to_dict(), text + "\n", outcome.device)

    def skipped(self, outcome: FlowOutcome) -> None:
        text = f"flow {outcome.flow} ({outcome.file}) not run on {outcome.device}: {outcome.error}\n"
        self._emit("flow_skipped", outcome.to_dict(), text, outcome.device)

    def summary(self, outcomes: Sequence[FlowOutcome], code: int) -> None:
        ran = [o for o in outcomes if o.status != "skipped"]
        passed = sum(o.passed for o in ran)
        not_run = len(outcomes) - len(ran)
        extra = f", {not_run} not run" if not_run else ""
        text = f"{len(ran)} flow(s): {passed} passed, {len(ran) - passed} did not{extra} (exit code {code})\n"
        data = {
            "flows": len(ran),
            "passed": passed,
            "failed": len(ran) - passed,
            "not_run": not_run,
            "exit_code": code,
        }
        self._emit("summary", data, text)
