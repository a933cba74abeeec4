"""``amc run FLOW...`` (run flows, live step lines, a run folder each) and ``amc report RUN_DIR``.

Everything is checked before anything runs: every flow file, the arguments, the device spec, and
that each flow names an app for the device's platform. Then each flow runs through the task loop
with a :class:`FlowPlanner`; every executed step is written to the run's timeline (synced to
disk) and only then printed. Secrets the flows mark are scrubbed from the console, the timeline,
the page sources, ``run.log`` and the report.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.durations import check_seconds
from ...core.errors import ConfigError, FlowError
from ...drivers.base import Driver
from ...storage.redaction import RedactingFormatter, Redactor
from ...storage.report import render_report
from ...storage.timeline import TIMELINE_FILE, RunInfo, TimelineWriter, new_run_dir, read_timeline
from ..flows import Flow, FlowPlanner, FlowValidationError, load_flow
from ..recording import SCREENSHOT_POLICIES, TimelineRecorder
from ..task import TaskRunner, TaskRunnerConfig
from .common import (
    EXIT_DEVICE,
    EXIT_FAILED,
    EXIT_OK,
    Streams,
    add_device_options,
    choose_device,
    connect_device,
    exit_code,
)

__all__ = ["FlowOutcome", "load_flows", "run_flows", "run_report", "setup_report", "setup_run"]

LOG_FILE = "run.log"
_TARGET_WIDTH = 40


def _seconds(text: str) -> float:
    return check_seconds(text, "the latency", maximum=10.0, text=True, error=argparse.ArgumentTypeError)


def setup_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("flows", nargs="+", metavar="FLOW", help="flow files (YAML) to run, in order")
    add_device_options(parser)
    parser.add_argument(
        "--out", default="runs", metavar="DIR", help="where run folders are created (default: runs)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines (one event per line)")
    parser.add_argument(
        "--screenshots",
        choices=SCREENSHOT_POLICIES,
        default="failure",
        help="pictures kept in the run folder besides `screenshot:` steps: the screen a step failed on "
        "(failure, the default), the screen after every executed step (always), or none (never)",
    )
    parser.add_argument(
        "--sim-latency",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="with the simulated device: add this delay to every device call, to rehearse a slow phone",
    )


@dataclass(frozen=True)
class FlowOutcome:
    """How one flow's run ended, as the summary reports it."""

    flow: str
    file: str
    status: str
    steps: int
    total: int
    duration: float
    run_dir: Path
    report: Path
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "succeeded"

    def to_dict(self) -> dict[str, Any]:
        return {
            "flow": self.flow,
            "file": self.file,
            "status": self.status,
            "passed": self.passed,
            "steps": self.steps,
            "total": self.total,
            "counts": self.counts,
            "duration": round(self.duration, 6),
            "error": self.error,
            "error_kind": self.error_kind,
            "run_dir": str(self.run_dir),
            "timeline": str(self.run_dir / TIMELINE_FILE),
            "report": str(self.report),
        }


class _Console:
    """The live view: one line per executed step and a summary, or JSON lines with ``--json``."""

    def __init__(self, io: Streams, *, json_lines: bool, redactor: Redactor) -> None:
        self.io = io
        self.json_lines = json_lines
        self.redactor = redactor
        self.closed = False

    def _emit(self, event: str, data: dict[str, Any], text: str) -> None:
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
            if self.io.out is sys.stdout:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def flow_start(
        self, flow: Flow, spec: str, reason: str, driver: Driver, run_dir: Path, total: int
    ) -> None:
        device = {
            "spec": spec,
            "id": driver.device_id,
            "platform": driver.platform,
            "backend": driver.backend,
            "reason": reason,
        }
        text = (
            f"flow {flow.name} ({flow.path}): {total} steps\n"
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
        self._emit("flow_start", data, text)

    def step(self, flow: Flow, total: int, rec: dict[str, Any]) -> None:
        result = rec.get("result") or {}
        action, target = str(rec.get("action")), str(rec.get("target"))
        if action == "skip":
            args = (rec.get("step") or {}).get("args") or {}
            action, target = str(args.get("skipped") or "step"), str(args.get("reason") or "")
        shown = target if len(target) <= _TARGET_WIDTH else target[: _TARGET_WIDTH - 1] + "…"
        ms = float(result.get("duration") or 0.0) * 1000
        number = f"{rec['number']:>{len(str(total))}}/{total}"
        text = (
            f"[{number}] {action:<18} {shown:<{_TARGET_WIDTH}} {rec['status']:<7} "
            f"{ms:8.1f} ms  app={rec.get('foreground_app') or '?'} page={rec.get('page') or '?'}\n"
        )
        if rec["status"] == "failed":
            text += f"        {result.get('error_kind')}: {result.get('error')}\n"
        data = {
            "flow": flow.name,
            "number": rec["number"],
            "total": total,
            "status": rec["status"],
            "action": action,
            "target": target,
            "duration": result.get("duration"),
            "error": result.get("error"),
            "error_kind": result.get("error_kind"),
            "app": rec.get("foreground_app"),
            "page": rec.get("page"),
        }
        self._emit("step", data, text)

    def flow_end(self, outcome: FlowOutcome) -> None:
        counts = ", ".join(f"{outcome.counts.get(k, 0)} {k}" for k in ("passed", "failed", "skipped"))
        verdict = "passed" if outcome.passed else outcome.status.upper()
        text = f"flow {outcome.flow} {verdict}: {outcome.steps} of {outcome.total} steps run ({counts}) "
        text += f"in {outcome.duration:.2f} s\n"
        if outcome.error:
            text += f"  error: {outcome.error_kind}: {outcome.error}\n"
        text += f"  timeline: {outcome.run_dir / TIMELINE_FILE}\n  report:   {outcome.report}\n\n"
        self._emit("flow_end", outcome.to_dict(), text)

    def summary(self, outcomes: Sequence[FlowOutcome], code: int) -> None:
        passed = sum(o.passed for o in outcomes)
        text = (
            f"{len(outcomes)} flow(s): {passed} passed, {len(outcomes) - passed} did not (exit code {code})\n"
        )
        data = {"flows": len(outcomes), "passed": passed, "failed": len(outcomes) - passed, "exit_code": code}
        self._emit("summary", data, text)


@contextmanager
def _run_logging(redactor: Redactor, log_path: Path, io: Streams) -> Iterator[None]:
    """While a flow runs: INFO and up to ``run.log``, warnings to stderr, both with secrets scrubbed."""
    root = logging.getLogger()
    to_file = logging.FileHandler(log_path, encoding="utf-8")
    to_file.setLevel(logging.INFO)
    to_file.setFormatter(RedactingFormatter(redactor))
    to_err = logging.StreamHandler(io.err)
    to_err.setLevel(logging.WARNING)
    to_err.setFormatter(RedactingFormatter(redactor, "amc: %(levelname)s %(name)s: %(message)s"))
    old_level = root.level
    root.addHandler(to_file)
    root.addHandler(to_err)
    root.setLevel(min(old_level or logging.WARNING, logging.INFO))
    try:
        yield
    finally:
        root.removeHandler(to_file)
        root.removeHandler(to_err)
        root.setLevel(old_level)
        to_file.close()


def load_flows(paths: Sequence[str]) -> list[Flow]:
    """Load every flow; the problems of all files together as one ``FlowValidationError``."""
    flows: list[Flow] = []
    problems: list[FlowError] = []
    for path in paths:
        try:
            flows.append(load_flow(path))
        except FlowValidationError as exc:
            problems.extend(exc.problems)
        except FlowError as exc:
            problems.append(exc)
    if problems:
        raise FlowValidationError(tuple(problems))
    return flows


def _planners(flows: Sequence[Flow], platforms: Sequence[str]) -> list[FlowPlanner]:
    planners: list[FlowPlanner] = []
    problems: list[FlowError] = []
    for flow, platform in zip(flows, platforms, strict=True):
        try:
            planners.append(FlowPlanner(flow, "ios" if platform == "ios" else "android"))
        except FlowError as exc:
            problems.append(exc)
    if problems:
        raise FlowValidationError(tuple(problems))
    return planners


def _run_one(
    flow: Flow,
    planner: FlowPlanner,
    driver: Driver,
    spec: str,
    reason: str,
    args: argparse.Namespace,
    io: Streams,
    console: _Console,
    redactor: Redactor,
    base_config: TaskRunnerConfig,
) -> FlowOutcome:
    config = dataclasses.replace(base_config, max_steps=max(1, planner.total))
    run_dir = new_run_dir(args.out, flow.name)
    writer = TimelineWriter(run_dir, redactor=redactor)
    writer.start(
        RunInfo(
            flow=flow.name,
            goal=f"flow {flow.name}",
            device_id=driver.device_id,
            platform=driver.platform,
            backend=driver.backend,
            device_spec=spec,
            flow_file=flow.path,
            planned_steps=planner.total,
        )
    )
    console.flow_start(flow, spec, reason, driver, run_dir, planner.total)
    counts: Counter[str] = Counter()

    def on_written(written: dict[str, Any]) -> None:  # called once the step is on disk
        counts[str(written["status"])] += 1
        console.step(flow, planner.total, written)

    recorder = TimelineRecorder(writer, driver, screenshots=args.screenshots, on_written=on_written)
    runner = TaskRunner(driver, planner, config=config, listeners=[recorder])
    with _run_logging(redactor, run_dir / LOG_FILE, io):
        try:
            result = runner.run(f"flow {flow.name}")
        except KeyboardInterrupt:
            writer.finish("interrupted", error="interrupted by the user", error_kind="KeyboardInterrupt")
            render_report(run_dir)
            raise
        writer.finish(
            result.status.value, duration=result.duration, error=result.error, error_kind=result.error_kind
        )
    outcome = FlowOutcome(
        flow=flow.name,
        file=flow.path,
        status=result.status.value,
        steps=len(result.steps),
        total=planner.total,
        duration=result.duration,
        run_dir=run_dir,
        report=render_report(run_dir),
        counts=dict(counts),
        error=result.error,
        error_kind=result.error_kind,
    )
    console.flow_end(outcome)
    return outcome


def run_flows(args: argparse.Namespace, io: Streams) -> int:
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--out {args.out} is a file, not a folder", hint="pass a folder for run folders")
    flows = load_flows(args.flows)
    base_config = TaskRunnerConfig.from_env()  # a bad AMC_* value stops here, before any device is asked
    choice = choose_device(args.device)
    redactor = Redactor(secret for flow in flows for secret in flow.secrets)
    console = _Console(io, json_lines=args.json, redactor=redactor)
    outcomes: list[FlowOutcome] = []
    shared: Driver | None = None
    try:
        if choice.spec is not None:
            shared = connect_device(choice.spec, sim_latency=args.sim_latency)
            platforms = [shared.platform for _ in flows]
        else:
            platforms = [args.platform or flow.default_platform for flow in flows]
        planners = _planners(flows, platforms)  # every flow checked against its platform first
        for flow, planner, platform in zip(flows, planners, platforms, strict=True):
            if shared is not None and choice.spec is not None:
                outcomes.append(
                    _run_one(
                        flow,
                        planner,
                        shared,
                        choice.spec,
                        choice.reason,
                        args,
                        io,
                        console,
                        redactor,
                        base_config,
                    )
                )
                continue
            spec = f"sim:{platform}"
            driver = connect_device(spec, sim_latency=args.sim_latency)
            try:
                reason = f"the simulated device: {choice.reason}"
                outcomes.append(
                    _run_one(flow, planner, driver, spec, reason, args, io, console, redactor, base_config)
                )
            finally:
                driver.close()
    except KeyboardInterrupt:
        io.err.write("amc: interrupted; the run folder keeps every step executed so far\n")
        return EXIT_FAILED
    finally:
        if shared is not None:
            shared.close()
    codes = [exit_code(o.status) for o in outcomes]
    code = EXIT_DEVICE if EXIT_DEVICE in codes else EXIT_FAILED if EXIT_FAILED in codes else EXIT_OK
    console.summary(outcomes, code)
    return code


def setup_report(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder made by `amc run`")
    parser.add_argument(
        "--out", metavar="FILE", help="where to write the page (default: RUN_DIR/report.html)"
    )


def run_report(args: argparse.Namespace, io: Streams) -> int:
    timeline = read_timeline(args.run_dir)
    path = render_report(args.run_dir, args.out)
    io.out.write(f"report: {path}\n")
    note = f"run {timeline.status}, {len(timeline.steps)} step(s) recorded"
    if timeline.truncated:
        note += "; the last line was cut off mid-write and is left out"
    io.err.write(note + "\n")
    return EXIT_OK
