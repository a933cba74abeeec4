"""What ``amc run`` prints: one line per executed step, a line per flow, a summary, or JSON lines: a
listener of the flow runner (:mod:`amc.flows.run.events`).

Lines are written whole under one lock, so flows running on several devices at once never mix
their lines (each line then names its device). Secrets the flows mark are scrubbed from
everything printed. A reader that goes away (``amc run … | head``) stops the printing, not the run.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..core.limits import one_line
from ..core.steps import STEP_STATUSES
from ..flows import Flow
from ..flows.run import (
    FlowDone,
    FlowOutcome,
    FlowStarted,
    RunDone,
    RunEvent,
    RunStarted,
    StepDone,
    step_position,
)
from ..storage.redaction import Redactor
from ..storage.timeline import TIMELINE_FILE
from .common import EXIT_INTERRUPTED, Streams

__all__ = ["Console", "FlowOutcome", "indented", "step_position"]  # (the last two: amc.flows.run's)

_TARGET_WIDTH = 40


def indented(text: str, by: str = "          ") -> str:
    """A text of several lines under a step line: each line after the first indented, so no line of
    it can pass for a step line of its own."""
    return text.replace("\r\n", "\n").replace("\n", "\n" + by)


class Console:
    """The live view; ``devices`` above one prefixes every line with its device. As a listener of a
    run (:meth:`on_event`) it names the files the listeners before it wrote, and ends with the
    summary and the exit code ``code`` gives for the outcomes."""

    def __init__(
        self,
        io: Streams,
        *,
        json_lines: bool,
        redactor: Redactor,
        devices: int = 1,
        code: Callable[[Sequence[FlowOutcome]], int] | None = None,
    ) -> None:
        self.io = io
        self.json_lines = json_lines
        self.redactor = redactor
        self.prefixed = devices > 1
        self.closed = False
        self.code = code
        self._lock = threading.Lock()

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            for note in event.notes:
                self.note(f"amc: note: {note}")
            if event.left_out:
                self.note(f"amc: {len(event.left_out)} flow(s) left out by tags: {', '.join(event.left_out)}")
        elif isinstance(event, FlowStarted):
            self.flow_start(event)
        elif isinstance(event, StepDone):
            self.step(event.flow, event.total, dict(event.record), event.device)
        elif isinstance(event, FlowDone):
            if event.outcome.status == "skipped":
                self.skipped(event.outcome)
            else:
                self.flow_end(event.outcome)
        elif isinstance(event, RunDone):
            self.run_done(event)

    def run_done(self, done: RunDone) -> None:
        """The files written (the index, JUnit), then the summary with its exit code."""
        if done.index is not None:
            self.note(f"index: {done.index}")
        if done.junit is not None:
            self.note(f"junit: {done.junit}")
        if done.interrupted:
            self.note("amc: interrupted; the run folders keep every step executed so far")
            self.summary(done.outcomes, EXIT_INTERRUPTED)
        elif self.code is not None:
            self.summary(done.outcomes, self.code(done.outcomes))

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

    def flow_start(self, started: FlowStarted) -> None:
        flow, run_dir, total, on = started.flow, started.run_dir, started.total, started.device
        spec, reason = on.spec, on.reason
        device = {
            "spec": spec,
            "id": on.device_id,
            "platform": on.platform,
            "backend": on.backend,
            "reason": reason,
        }
        steps = f"{total} steps" if total is not None else "steps decided as it runs (conditions, retries)"
        text = (
            f"flow {flow.name} ({flow.path}): {steps}\n"
            f"device: {spec} = {on.platform} {on.device_id} via {on.backend} ({reason})\n"
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
