"""Running flows on devices for ``amc run``: one flow on one device, and the schedule of many.

:class:`FlowRun` runs one flow on one connected device: a run folder with its crash-safe timeline
(every step on disk before it is printed), the run's log, the report. :func:`run_schedule` runs a
list of :class:`Job` s: in order on fresh simulated devices, shared out across the given devices
through a :class:`~amc.runtime.pool.DevicePool` (each flow once, on the next free device of its
platform; a device whose flow ended ``device_error`` takes no more flows, and a flow left with no
device of its platform ends ``device_error`` without running, saying which devices were retired
and why), or every flow on every device (``--each-device``), one thread per device. Ctrl-C sets
``cancel`` (:mod:`.interrupt`): each flow ends its step in progress at its next poll and is
recorded ``interrupted``; a flow that had not started is listed as not run.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.durations import MAX_LEASE_WAIT  # a queued flow waits as long as the flows before it
from ..core.errors import ConfigError, LeaseTimeout, PoolExhausted
from ..core.models import Platform
from ..drivers.base import Driver
from ..flows import Flow, FlowPlanner
from ..flows.js.client import HttpClient
from ..flows.maestro.spelling import maestro_spelling
from ..runtime.cancel import Cancel
from ..runtime.executor import Executor
from ..runtime.pool import DevicePool
from ..runtime.recording import ScreenshotPolicy, TimelineRecorder
from ..runtime.task import TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus
from ..storage.redaction import RedactingFormatter, Redactor
from ..storage.report import render_report
from ..storage.timeline import RunInfo, TimelineWriter, new_run_dir
from .common import Streams
from .console import Console, FlowOutcome, step_position

__all__ = [
    "LOG_FILE",
    "NOT_RUN_AFTER",
    "NOT_STARTED",
    "NO_DEVICE",
    "Device",
    "FlowRun",
    "Job",
    "run_logging",
    "run_schedule",
]

LOG_FILE = "run.log"
NO_DEVICE = "(no device)"  # the device of a flow that got none
NOT_STARTED = "not started: the run was interrupted (Ctrl-C)"  # why a flow was not run
NOT_RUN_AFTER = (
    "not run: an earlier flow of the workspace's executionOrder failed and continueOnFailure is false"
)
_log_lock = threading.Lock()


@dataclass(frozen=True)
class Device:
    """A connected device of the run, with the spec and the reason it was chosen."""

    spec: str
    reason: str
    driver: Driver


@dataclass(frozen=True)
class Job:
    """One flow to run: on a fresh simulated device of ``platform`` (``device`` None, no devices
    given), on any free device of ``platform`` (``device`` None), or on ``device`` (its index)."""

    flow: Flow
    platform: Platform | None
    device: int | None = None
    # A flow of a workspace's executionOrder: the workspace's config (the sequence runs first, in its
    # order); with continueOnFailure: false (``stop_on_failure``), once one flow of it fails the rest
    # of it is not run (Maestro's TestSuiteInteractor).
    sequence: str | None = None
    stop_on_failure: bool = False


@contextmanager
def run_logging(
    redactor: Redactor, log_path: Path, io: Streams, *, this_thread: bool = False
) -> Iterator[None]:
    """While a run goes on: INFO and up to ``run.log``, warnings to stderr, both with secrets
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
    to_err = logging.StreamHandler(io.err)
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


def _first_failure(result: TaskResult) -> str | None:
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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class FlowRun:
    """What every flow of one ``amc run`` shares: where to write, what to hide, how to print."""

    out: Path
    io: Streams
    console: Console
    redactor: Redactor
    config: TaskRunnerConfig
    cancel: Cancel
    screenshots: ScreenshotPolicy = "failure"
    index: Path | None = None  # the index page the reports link back to (several flows)

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
        self.console.skipped(outcome)
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
        self.console.flow_end(outcome)
        return outcome

    def run(self, flow: Flow, driver: Driver, spec: str, reason: str) -> FlowOutcome:
        """Run ``flow`` on ``driver``; its run folder keeps every executed step."""
        # A flow's scripts make the HTTP calls it says (it is the team's own code), bounded; what
        # they meet that is secret joins the run's one redactor before anything is written.
        planner = FlowPlanner(
            flow,
            driver.platform,
            cancel=self.cancel,  # a running script is ended at Ctrl-C too
            http=HttpClient(),
            secrets=lambda values: self.redactor.add(*values),
        )
        # A flow runs to its last command: its own rules bound it (its commands, repeat rounds,
        # retry attempts, timeouts), not a count taken from the file (conditions, hooks and
        # scripts add steps such a count misses); the loop's max_steps is for agents.
        config = dataclasses.replace(self.config, max_steps=None)
        try:
            run_dir = new_run_dir(self.out, f"{flow.name}-{spec}" if self.console.prefixed else flow.name)
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
        self.console.flow_start(flow, spec, reason, driver, run_dir, planner.total)
        counts: dict[str, int] = {}

        def on_written(written: dict[str, Any]) -> None:  # called once the step is on disk
            status = str(written["status"])
            counts[status] = counts.get(status, 0) + 1
            self.console.step(flow, planner.total, written, spec)

        recorder = TimelineRecorder(writer, driver, screenshots=self.screenshots, on_written=on_written)
        # a Maestro flow's failures name its options in Maestro's words (`timeout`, not max_swipes)
        executor = Executor(driver, spell=maestro_spelling) if flow.dialect == "maestro" else None
        runner = TaskRunner(
            driver, planner, executor, config=config, listeners=[recorder], cancel=self.cancel
        )
        with run_logging(self.redactor, run_dir / LOG_FILE, self.io, this_thread=True):
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
            report=render_report(run_dir, index=self.index, redactor=self.redactor),
            device=spec,
            platform=driver.platform,
            started_at=started_at,
            counts=counts,
            error=result.error,
            error_kind=result.error_kind,
            first_failure=_first_failure(result) if status != "succeeded" else None,
            retried=tuple(
                f"step {r.index + 1} {r.step.action}: {r.result.error_kind}: {r.result.error}"
                for r in result.steps
                if r.status == "retried"
            ),
        )
        self.console.flow_end(outcome)
        return outcome


def _wait_all(futures: Sequence[Future[Any]], cancel: Cancel) -> None:
    """Wait for ``futures`` (each flow stops at its next poll once ``cancel`` is set, by Ctrl-C);
    a worker that raised (a bug, an unwritable run folder) sets ``cancel`` so the others stop too."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_EXCEPTION)
        for future in done:
            if future.exception() is not None:
                cancel.set("the run stopped: another flow raised an error")


def run_schedule(
    jobs: Sequence[Job],
    devices: Sequence[Device],
    run: FlowRun,
    *,
    each_device: bool,
    simulated: Callable[[Platform], Device],
) -> tuple[list[FlowOutcome], bool]:
    """Run ``jobs``; (every outcome, in job order per device, and whether Ctrl-C stopped the run).
    A job that had not started when the run was stopped is an outcome ``skipped`` (:data:`NOT_STARTED`)."""
    outcomes: dict[int, list[FlowOutcome]] = {}
    by_driver = {id(d.driver): d for d in devices}
    # a stopped sequence (its config, and the device with --each-device, where each device runs
    # its own sequence) -> the flow of it that failed
    failed: dict[tuple[str, int | None], str] = {}

    def stopped(job: Job) -> str | None:
        """Why ``job`` is not run: an earlier flow of its sequence failed."""
        if job.sequence is None or not job.stop_on_failure or (job.sequence, job.device) not in failed:
            return None
        return f"{NOT_RUN_AFTER} (flow {failed[job.sequence, job.device]} failed; {job.sequence})"

    def ran(job: Job, outcome: FlowOutcome) -> FlowOutcome:
        if job.sequence is not None and job.stop_on_failure and outcome.status != TaskStatus.SUCCEEDED.value:
            failed.setdefault((job.sequence, job.device), job.flow.name)
        return outcome

    def sequential_sim() -> None:
        for n, job in enumerate(jobs):
            assert job.platform is not None
            if run.cancel.is_set() or stopped(job):
                why = stopped(job) or NOT_STARTED
                outcomes[n] = [run.skipped(job.flow, f"sim:{job.platform}", job.platform, why)]
                continue
            device = simulated(job.platform)
            try:
                outcomes[n] = [ran(job, run.run(job.flow, device.driver, device.spec, device.reason))]
            finally:
                device.driver.close()

    def pinned(index: int) -> None:
        device = devices[index]
        mine = [job for job in jobs if job.device == index]
        results: list[FlowOutcome] = []
        for job in mine:
            if run.cancel.is_set() or stopped(job):
                why = stopped(job) or NOT_STARTED
                results.append(run.skipped(job.flow, device.spec, device.driver.platform, why))
                continue
            if job.platform is not None and job.platform != device.driver.platform:
                why = f"the flow is for {job.platform}, {device.spec} is {device.driver.platform}"
                results.append(run.skipped(job.flow, device.spec, device.driver.platform, why))
                continue
            results.append(ran(job, run.run(job.flow, device.driver, device.spec, device.reason)))
        outcomes[index] = results

    def shared(pool: DevicePool, n: int, job: Job) -> None:
        if run.cancel.is_set() or stopped(job):
            outcomes[n] = [run.skipped(job.flow, NO_DEVICE, job.platform or "", stopped(job) or NOT_STARTED)]
            return
        try:
            with pool.lease(platform=job.platform, holder=job.flow.name, timeout=MAX_LEASE_WAIT) as driver:
                device = by_driver[id(driver)]
                if run.cancel.is_set():
                    outcomes[n] = [run.skipped(job.flow, device.spec, driver.platform, NOT_STARTED)]
                    return
                outcome = ran(job, run.run(job.flow, driver, device.spec, device.reason))
                outcomes[n] = [outcome]
                if outcome.status == TaskStatus.DEVICE_ERROR.value:  # offline, unreachable …: no more flows
                    pool.retire(driver, f"{outcome.error_kind}: {outcome.error}")
        except (LeaseTimeout, PoolExhausted) as exc:
            outcomes[n] = [run.not_run(job.flow, job.platform, exc)]

    futures: list[Future[None]]
    if not devices:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="amc-run") as executor:
            futures = [executor.submit(sequential_sim)]
            _wait_all(futures, run.cancel)
    elif each_device:
        with ThreadPoolExecutor(max_workers=len(devices), thread_name_prefix="amc-run") as executor:
            futures = [executor.submit(pinned, i) for i in range(len(devices))]
            _wait_all(futures, run.cancel)
    else:
        pool = DevicePool([d.driver for d in devices], lease_timeout=MAX_LEASE_WAIT)
        in_sequence = [n for n, job in enumerate(jobs) if job.sequence is not None]

        def one_after_another() -> None:  # a stop-on-failure sequence first, in its order (as Maestro)
            for n in in_sequence:
                shared(pool, n, jobs[n])

        with pool, ThreadPoolExecutor(max_workers=len(devices), thread_name_prefix="amc-run") as executor:
            futures = [executor.submit(one_after_another)] if in_sequence else []
            _wait_all(futures, run.cancel)
            futures += [
                executor.submit(shared, pool, n, job) for n, job in enumerate(jobs) if job.sequence is None
            ]
            _wait_all(futures, run.cancel)
    for future in futures:  # a bug or an unwritable run folder: raised after every flow has stopped
        error = future.exception()
        if error is not None:
            raise error
    ordered = [o for key in sorted(outcomes) for o in outcomes[key]]
    return ordered, run.cancel.is_set()
