"""The one flow runner: :func:`run_flows`, the short way in from Python, and :func:`run_plan`, the
part every surface that runs flows shares (``amc run`` composes its own devices, console and
Ctrl-C around it).

A run: the flows chosen (:func:`~amc.flows.run.plan.plan_run`), the devices connected, each flow
checked against them (:func:`~amc.flows.run.plan.plan_jobs`), the schedule run
(:func:`~amc.flows.run.schedule.run_schedule`), and every event told to the listeners (the HTML
report first, then the JUnit writer, then the caller's: :mod:`.events`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ...core.errors import ConfigError
from ...core.models import Platform
from ...core.stop import stoppable
from ...drivers import connect as connect_module
from ...drivers.base import Driver
from ...runtime.cancel import Cancel
from ...runtime.recording import ScreenshotPolicy
from ...runtime.task import TaskRunnerConfig
from ...storage.redaction import Redactor
from ...storage.report import INDEX_FILE
from .events import Listeners, RunDevice, RunDone, RunListener, RunStarted
from .one import FlowRun
from .outcome import FlowOutcome
from .plan import RunPlan, connect_all, plan_jobs, plan_run
from .reports import HtmlReport, JUnitWriter
from .schedule import Device, run_schedule
from .selection import parse_env, parse_tags

__all__ = ["RunResult", "run_flows", "run_plan"]


@dataclass(frozen=True)
class RunResult:
    """How a run ended: every flow's outcome (in the order of the devices and their flows),
    whether a stop request ended it, and where it wrote (the run folders' folder, the index page
    and the JUnit file when they were written)."""

    outcomes: tuple[FlowOutcome, ...]
    interrupted: bool
    out: Path
    index: Path | None = None
    junit: Path | None = None

    @property
    def passed(self) -> bool:
        """Every flow that ran succeeded, and the run was not stopped."""
        ran = [o for o in self.outcomes if o.status != "skipped"]
        return bool(ran) and not self.interrupted and all(o.passed for o in ran)


def run_plan(
    plan: RunPlan,
    devices: Sequence[Device],
    *,
    simulated: Callable[[Platform], Device],
    listeners: Sequence[RunListener] = (),
    cancel: Cancel | None = None,
    redactor: Redactor | None = None,
    err: TextIO | None = None,
    each_device: bool = False,
    force_platform: bool = False,
    platform: Platform | None = None,
    screenshots: ScreenshotPolicy = "failure",
) -> RunResult:
    """Run ``plan`` on ``devices`` (none: each flow on a fresh device from ``simulated(platform)``,
    closed after it). ``each_device``: every flow on every device; else each flow once, on the next
    free device of its platform. ``force_platform`` runs a flow whose ``platform:`` names another
    platform anyway. ``cancel`` set (Ctrl-C): each flow ends at its next poll. The devices given
    are left open (their caller closes them). Warnings the loop logs go to ``err`` (stderr)."""
    cancel = cancel if cancel is not None else Cancel()
    redactor = redactor if redactor is not None else Redactor()
    redactor.add(*plan.secrets)
    jobs, unrunnable = plan_jobs(
        plan, devices, force=force_platform, sim_platform=platform, each_device=each_device
    )
    several = len(jobs) + len(unrunnable) > 1
    index = plan.out / INDEX_FILE if several else None
    given: list[RunListener] = [HtmlReport(redactor)]
    if plan.junit is not None:
        given.append(JUnitWriter(redactor))
    listener = Listeners([*given, *listeners])
    about = tuple(
        RunDevice(d.spec, d.reason, d.driver.device_id, d.driver.platform, d.driver.backend) for d in devices
    )
    notes = tuple(str(note) for note in plan.notes)
    listener.on_event(RunStarted(plan.out, index, about, len(jobs), notes, plan.left_out))
    run = FlowRun(
        plan.out,
        err if err is not None else sys.stderr,
        listener,
        redactor,
        plan.config,
        cancel,
        screenshots,
        prefixed=len(devices) > 1,
    )
    outcomes, interrupted = run_schedule(jobs, devices, run, each_device=each_device, simulated=simulated)
    if not each_device:  # (with each_device each device's worker records its own)
        targets: list[tuple[str, str]] = [(d.spec, d.driver.platform) for d in devices]
        targets = targets or [(f"sim:{platform}", platform or "")]
        for flow, why in unrunnable:
            outcomes.extend(run.skipped(flow, spec, on, why) for spec, on in targets)
    written = plan.out / INDEX_FILE if len(outcomes) > 1 else None
    done = RunDone(tuple(outcomes), interrupted, plan.out, written, plan.junit)
    listener.on_event(done)
    return RunResult(done.outcomes, interrupted, plan.out, written, plan.junit)


def _strings(value: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    return [os.fspath(v) for v in value]


def run_flows(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    devices: str | Iterable[str] = (),
    platform: Platform | None = None,
    each_device: bool = False,
    force_platform: bool = False,
    env: Mapping[str, str] | None = None,
    include_tags: Iterable[str] = (),
    exclude_tags: Iterable[str] = (),
    out: str | os.PathLike[str] | None = None,
    junit: str | os.PathLike[str] | None = None,
    screenshots: ScreenshotPolicy = "failure",
    listeners: Sequence[RunListener] = (),
    cancel: Cancel | None = None,
    config: TaskRunnerConfig | None = None,
    connect: Callable[..., Driver] | None = None,
) -> RunResult:
    """Run the flows ``paths`` name (files, folders, Maestro workspaces) as ``amc run`` runs them.

    ``devices``: device specs (``sim:android``, ``android:SERIAL``, ``ios:http://HOST:8100``,
    ``appium:…``), connected here and closed at the end; none: each flow on a fresh simulated
    device of ``platform`` (else the flow's own). ``env``: ``${KEY}`` values (``--env``);
    ``include_tags`` / ``exclude_tags``: as ``--include-tags`` / ``--exclude-tags``; ``out``: where
    the run folders go (default: a workspace's ``testOutputDir``, else ``runs``); ``junit``: a JUnit
    file to write. ``listeners`` hear the run's events (:mod:`amc.flows.run.events`); ``cancel``
    stops the run at each flow's next poll (no signal handler is installed here: set it from
    yours). Bad input raises the harness's typed errors (``FlowValidationError`` with every
    problem, ``ConfigError``) before any device is contacted; a failed flow is an outcome, not an
    exception."""
    specs = [devices] if isinstance(devices, str) else list(devices)
    params = parse_env([f"{key}={value}" for key, value in (env or {}).items()])
    include = parse_tags([",".join(include_tags)] if include_tags else [], "--include-tags")
    exclude = parse_tags([",".join(exclude_tags)] if exclude_tags else [], "--exclude-tags")
    if platform not in (None, "android", "ios"):
        raise ConfigError(f"platform {platform!r} is not android or ios")
    for spec in specs:
        if not spec.strip():
            raise ConfigError("a device spec is empty", hint="e.g. sim:android")
        connect_module.check_spec(spec)
    plan = plan_run(
        _strings(paths),
        environ=os.environ,
        params=params,
        include=include,
        exclude=exclude,
        out=None if out is None else os.fspath(out),
        junit=None if junit is None else os.fspath(junit),
        devices=specs,
        each_device=each_device,
        config=config,
    )
    make = connect if connect is not None else connect_module.connect

    def one(spec: str, sim_id: str | None) -> Driver:
        return make(spec, **({"device_id": sim_id} if sim_id is not None else {}))

    def simulated(on: Platform) -> Device:
        return Device(f"sim:{on}", "the simulated device: no device was given", make(f"sim:{on}"))

    connected = connect_all(specs, one, "as given") if specs else []
    try:
        return run_plan(
            plan,
            connected,
            simulated=simulated,
            listeners=listeners,
            cancel=cancel,
            each_device=each_device,
            force_platform=force_platform,
            platform=platform,
            screenshots=screenshots,
        )
    finally:
        with stoppable(cancel):  # after Ctrl-C the devices are asked nothing more (core.stop)
            for device in connected:
                device.driver.close()
