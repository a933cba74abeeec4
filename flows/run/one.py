"""One flow on one connected device: :class:`FlowRun`, and the two rules every surface that runs a
flow shares (:func:`flow_planner`, :func:`flow_config`): ``amc run`` and :func:`~amc.flows.run.run_flows`
through :class:`FlowRun`, MCP's ``run_flow`` in its own session.

A run folder with its crash-safe timeline (every step on disk before a listener hears of it), the
run's log, and the events of the flow (:mod:`.events`); the report of the folder is written by the
report listener, which every run subscribes first (:mod:`.reports`).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ...core.errors import ConfigError, LeaseTimeout, PoolExhausted
from ...core.models import Platform
from ...drivers.base import Driver
from ...runtime.cancel import Cancel
from ...runtime.executor import Executor
from ...runtime.recording import ScreenshotPolicy, TimelineRecorder
from ...runtime.task import TaskRunner, TaskRunnerConfig
from ...storage.redaction import RedactingFormatter, Redactor
from ...storage.report_views import REPORT_FILE
from ...storage.timeline import RunInfo, TimelineWriter, new_run_dir
from ..js import HttpHandler
from ..js.client import HttpClient
from ..maestro.spelling import maestro_spelling
from ..model import Flow
from ..planner import FlowPlanner
from .events import FlowDone, FlowStarted, RunDevice, RunListener, StepDone
from .outcome import NO_DEVICE, FlowOutcome, first_failure

__all__ = ["LOG_FILE", "FlowRun", "flow_config", "flow_planner", "run_logging"]

LOG_FILE = "run.log"
_log_lock = threading.Lock()


def flow_planner(
    flow: Flow, platform: Platform, *, redactor: Redactor, http: HttpHandler, cancel: Cancel | None = None
) -> FlowPlanner:
    """The planner of ``flow`` on ``platform``: its scripts make their HTTP calls through ``http``
    (bounded; the team's own code), what they meet that is secret joins ``redactor`` before anything
    is written, and a running script is ended when ``cancel`` is set (Ctrl-C)."""
    return FlowPlanner(flow, platform, cancel=cancel, http=http, secrets=lambda values: redactor.add(*values))


def flow_config(config: TaskRunnerConfig) -> TaskRunnerConfig:
    """The loop's settings for a flow: it runs to its last command. Its own rules bound it (its
    commands, repeat rounds, retry attempts, timeouts), not a count taken from the file (conditions,
    hooks and scripts add steps such a count misses); the loop's ``max_steps`` is for agents."""
    return dataclasses.replace(config, max_steps=None)


@contextmanager
def run_logging(
    redactor: Redactor, log_path: Path, err: TextIO, *, this_thread: bool = False
) -> Iterator[None]:
    """While a run goes on: INFO and up to ``run.log``, warnings to ``err``, both with secrets
    scrubbed; with ``this_thread``, only what the calling thread logs (flows on several devices
    at once each keep their own log)."""
    thread = threading.get_ident()

    def mine(record: logging.LogRecord) -> bool:
        return not this_thread or record.thread == thread

    root = logging.getLogger()
    to_file = logging.FileHandler(log_path, encoding="utf-8")
    to_file.setLevel(logging.INFO)
    to_file.setFormatter(RedactingFormatter(redactor))
    to_file.addFilter(mine)
    to_err = logging.StreamHandler(err)
    to_err.setLevel(logging.WARNING)
    to_err.setFormatter(RedactingFormatter(redactor, "amc: %(levelname)s %(name)s: %(message)s"))
    to_err.addFilter(mine)
    with _log_lock:
        old_level = root.level
        root.addHandler(to_file)
        root.addHandler(to_err)
        root.setLevel(min(old_level or logging.WARNING, logging.INFO))
    try:
        yield
    finally:
        with _log_lock:
            root.removeHandler(to_file)
            root.removeHandler(to_err)
            root.setLevel(old_level)
        to_file.close()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class FlowRun:
    """What every flow of one run shares: where to write, what to hide, whom to tell. ``prefixed``
    (several devices): each run folder's name ends with its device's spec."""

    out: Path
    err: TextIO
    listener: RunListener
    redactor: Redactor
    config: TaskRunnerConfig
    cancel: Cancel
    screenshots: ScreenshotPolicy = "failure"
    prefixed: bool = False

    def skipped(self, flow: Flow, device: str, platform: str, why: str) -> FlowOutcome:
        outcome = FlowOutcome(
            flow.name,
            flow.path,
            "skipped",
            0,
            flow.total,
            0.0,
            None,
            None,
            device,
            platform,
            _now(),
            error=why,
        )
        self.listener.on_event(FlowDone(outcome))
        return outcome

    def not_run(
        self, flow: Flow, platform: Platform | None, error: LeaseTimeout | PoolExhausted
    ) -> FlowOutcome:
        """A flow that got no device: a device error of the run (exit 3), no step run, no folder."""
        outcome = FlowOutcome(
            flow.name,
            flow.path,
            "device_error",
            0,
            flow.total,
            0.0,
            None,
            None,
            NO_DEVICE,
            platform or "",
            _now(),
            error=str(error),  # with its hint
            error_kind=error.kind,
        )
        self.listener.on_event(FlowDone(outcome))
        return outcome

    def run(self, flow: Flow, driver: Driver, spec: str, reason: str) -> FlowOutcome:
        """Run ``flow`` on ``driver``; its run folder keeps every executed step."""
        planner = flow_planner(
            flow, driver.platform, redactor=self.redactor, http=HttpClient(), cancel=self.cancel
        )
        try:
            run_dir = new_run_dir(self.out, f"{flow.name}-{spec}" if self.prefixed else flow.name)
        except OSError as exc:
            raise ConfigError(f"--out {self.out}: cannot make a run folder ({exc.strerror or exc})") from exc
        writer = TimelineWriter(run_dir, redactor=self.redactor)
        started_at = _now()
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
        device = RunDevice(spec, reason, driver.device_id, driver.platform, driver.backend)
        self.listener.on_event(FlowStarted(flow, device, run_dir, planner.total))
        counts: dict[str, int] = {}

        def on_written(written: dict[str, Any]) -> None:  # called once the step is on disk
            status = str(written["status"])
            counts[status] = counts.get(status, 0) + 1
            self.listener.on_event(StepDone(flow, spec, planner.total, written))

        recorder = TimelineRecorder(writer, driver, screenshots=self.screenshots, on_written=on_written)
        # a Maestro flow's failures name its options in Maestro's words (`timeout`, not max_swipes)
        executor = Executor(driver, spell=maestro_spelling) if flow.dialect == "maestro" else None
        runner = TaskRunner(
            driver,
            planner,
            executor,
            config=flow_config(self.config),
            listeners=[recorder],
            cancel=self.cancel,
        )
        with run_logging(self.redactor, run_dir / LOG_FILE, self.err, this_thread=True):
            result = runner.run(f"flow {flow.name}")
        status = result.status.value
        writer.finish(status, duration=result.duration, error=result.error, error_kind=result.error_kind)
        outcome = FlowOutcome(
            flow=flow.name,
            file=flow.path,
            status=status,
            steps=len(result.steps),
            total=planner.total,
            duration=result.duration,
            run_dir=run_dir,
            report=run_dir / REPORT_FILE,  # written by the report listener, heard first
            device=spec,
            platform=driver.platform,
            started_at=started_at,
            counts=counts,
            error=result.error,
            error_kind=result.error_kind,
            first_failure=first_failure(result) if status != "succeeded" else None,
            retried=tuple(
                f"step {r.index + 1} {r.step.action}: {r.result.error_kind}: {r.result.error}"
                for r in result.steps
                if r.status == "retried"
            ),
        )
        self.listener.on_event(FlowDone(outcome))
        return outcome
