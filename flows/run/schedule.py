"""The schedule of a run's flows over its devices: :func:`run_schedule` runs a list of :class:`Job` s
in order on fresh simulated devices (no device given); shared out across the given devices through
a :class:`~amc.runtime.pool.DevicePool` (each flow once, on the next free device of its platform; a
device whose flow ended ``device_error`` takes no more flows, and a flow left with no device of its
platform ends ``device_error`` without running, saying which devices were retired and why); or
every flow on every device (``each_device``), one thread per device. A workspace's
``executionOrder`` runs first, in its order. When ``cancel`` is set (Ctrl-C) each flow ends its
step in progress at its next poll and is recorded ``interrupted``; a flow that had not started is
an outcome ``skipped`` (:data:`~amc.flows.run.outcome.NOT_STARTED`). A step that may have reached
the device is never run again: a flow runs once per device it is given to.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ...core.durations import MAX_LEASE_WAIT  # a queued flow waits as long as the flows before it
from ...core.errors import LeaseTimeout, PoolExhausted
from ...core.models import Platform
from ...drivers.base import Driver
from ...runtime.cancel import Cancel
from ...runtime.pool import DevicePool
from ...runtime.task import TaskStatus
from ..model import Flow
from .one import FlowRun
from .outcome import NO_DEVICE, NOT_RUN_AFTER, NOT_STARTED, FlowOutcome

__all__ = ["Device", "Job", "run_schedule"]


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
