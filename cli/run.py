"""``amc run PATH...`` (flows from files and folders, on one or several devices) and ``amc report``.

Everything is checked before anything runs: every flow file and every flow it runs, ``--env``,
the tags, where the run will write, the device specs, and that each flow can run on the devices
(its ``platform:``, an app for the device's platform). Then the flows run through the task loop
with a :class:`~amc.flows.FlowPlanner` (see :mod:`.schedule`); every executed step is
written to its run's timeline (synced to disk) and only then printed. Secrets the flows mark are
scrubbed from the console, the timelines, page sources, logs and reports. At the end: a summary,
``index.html`` beside the run folders when several flows ran, and ``--junit`` XML.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import socket
from collections.abc import Sequence
from pathlib import Path

from ..core.durations import check_seconds
from ..core.errors import ConfigError, FlowError
from ..core.models import Platform
from ..core.stop import stoppable
from ..drivers import connect as connect_module
from ..drivers.kinds import device_kind
from ..flows import Flow, FlowPlanner, FlowValidationError
from ..flows.capabilities import platform_problems
from ..runtime.cancel import Cancel
from ..runtime.recording import SCREENSHOT_POLICIES
from ..runtime.task import TaskRunnerConfig
from ..storage.index import INDEX_FILE, IndexRow, write_index
from ..storage.junit import CaseResult, SuiteResult, write_junit
from ..storage.report import render_report
from ..storage.timeline import read_timeline
from .common import (
    EXIT_DEVICE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Streams,
    add_device_options,
    choose_device,
    connect_device,
    exit_code,
)
from .console import Console, FlowOutcome
from .interrupt import stop_on_ctrl_c
from .schedule import Device, FlowRun, Job, run_schedule
from .selection import (
    Candidate,
    check_output_file,
    check_output_folder,
    collect,
    parse_env,
    parse_tags,
    run_order,
    select_flows,
    workspace_notes,
    workspace_required,
    workspace_tags,
)

__all__ = ["INTERRUPT_NOTE", "output_folder", "run_flows", "run_report", "setup_report", "setup_run"]

INTERRUPT_NOTE = "amc: interrupted; each flow stops at its next poll (Ctrl-C again to quit now)"


def _seconds(text: str) -> float:
    return check_seconds(text, "the latency", maximum=10.0, text=True, error=argparse.ArgumentTypeError)


def setup_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "flows",
        nargs="+",
        metavar="PATH",
        help="flow files (YAML) and folders (every *.yaml / *.yml directly in them, sorted), in order",
    )
    add_device_options(parser, many=True)
    parser.add_argument(
        "--each-device", action="store_true", help="with several --device: run every flow on every device"
    )
    parser.add_argument(
        "--force-platform",
        action="store_true",
        help="run flows whose `platform:` names another platform than the device's anyway",
    )
    parser.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="a ${KEY} value for the flows (repeatable; wins over the environment and the flow's env:)",
    )
    parser.add_argument(
        "--include-tags", action="append", metavar="TAGS", help="run only flows with one of these tags (a,b)"
    )
    parser.add_argument(
        "--exclude-tags", action="append", metavar="TAGS", help="leave out flows with any of these tags (a,b)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="where run folders are created (default: a workspace's testOutputDir, else runs)",
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML for CI systems to FILE")
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


def _sim_ids(specs: Sequence[str]) -> list[str | None]:
    """The id each simulated device given no ``id=`` takes when its default one is already
    another's (None: its default, or not a simulated device): the next emulator serial
    (``emulator-5556`` after ``emulator-5554``, as adb numbers emulators), else ``ID-2``, ``ID-3`` …"""
    from ..sim.device import DEFAULT_IDS

    targets = []
    for spec in specs:
        scheme, target = connect_module.parse_spec(spec)
        targets.append(connect_module.parse_sim_target(scheme, target) if scheme.startswith("sim") else None)
    taken = {t.device_id for t in targets if t is not None and t.device_id is not None}
    out: list[str | None] = []
    for t in targets:
        if t is None or t.device_id is not None:
            out.append(None)
            continue
        default = DEFAULT_IDS[t.platform]
        wanted, n = default, 1
        while wanted in taken:
            n += 1
            stem, _, port = default.rpartition("-")
            wanted = f"{stem}-{int(port) + 2 * (n - 1)}" if stem == "emulator" else f"{default}-{n}"
        taken.add(wanted)
        out.append(None if wanted == default else wanted)
    return out


def _connect_all(specs: Sequence[str], sim_latency: float) -> list[Device]:
    """Every ``--device``, checked whole before the first is connected; a spec given twice is two
    devices, the second named ``SPEC #2`` in the console, run folders and JUnit. Simulated devices
    given no ``id=`` take distinct ids (``emulator-5554``, ``emulator-5556`` …), as two phones do."""
    for spec in specs:
        choose_device(spec)
    labels: list[str] = []
    for spec in (s.strip() for s in specs):
        seen = sum(label.split(" #")[0] == spec for label in labels)
        labels.append(spec if not seen else f"{spec} #{seen + 1}")
    sim_ids = _sim_ids([s.strip() for s in specs])
    devices: list[Device] = []
    try:
        for spec, label, sim_id in zip(specs, labels, sim_ids, strict=True):
            driver = connect_device(spec.strip(), sim_latency=sim_latency, sim_id=sim_id)
            devices.append(Device(label, "as given with --device", driver))
    except BaseException:
        for device in devices:
            device.driver.close()
        raise
    return devices


def _jobs(
    flows: Sequence[Flow],
    candidates: Sequence[Candidate],
    targets_given: Sequence[tuple[str, str, str]],
    *,
    force: bool,
    sim_platform: str | None,
    each_device: int | None,
) -> tuple[list[Job], list[tuple[Flow, str]]]:
    """The jobs, and the folder flows no device can run (with why). A named flow that no device
    can run, or whose steps name no app for its device's platform, is a problem (exit 2)."""
    jobs: list[Job] = []
    unrunnable: list[tuple[Flow, str]] = []
    problems: list[FlowError] = []
    platforms = [platform for platform, _backend, _kind in targets_given]
    backends = {platform: {(b, k) for p, b, k in targets_given if p == platform} for platform in platforms}
    for flow, candidate in zip(flows, candidates, strict=True):
        wanted = None if force else flow.platform
        if not platforms:  # a fresh simulated device per flow
            platform = sim_platform or flow.default_platform
            if wanted is not None and sim_platform is not None and wanted != sim_platform:
                why = f"the flow says platform: {wanted}, --platform asks for {sim_platform}"
                if candidate.named:
                    problems.append(
                        FlowError(why, file=flow.path, hint="drop --platform, or pass --force-platform")
                    )
                else:
                    unrunnable.append((flow, why))
                continue
            targets = {platform}
            job_platform: Platform | None = "ios" if platform == "ios" else "android"
        else:
            targets = {p for p in platforms if wanted is None or p == wanted}
            job_platform = wanted
            if not targets:
                why = (
                    f"the flow says platform: {wanted}, the device(s) are {', '.join(sorted(set(platforms)))}"
                )
                if candidate.named:
                    problems.append(
                        FlowError(
                            why, file=flow.path, hint="pass a device of that platform, or --force-platform"
                        )
                    )
                else:
                    unrunnable.append((flow, why))
                if each_device is None:
                    continue
        for platform in sorted(targets):
            try:
                FlowPlanner(flow, "ios" if platform == "ios" else "android")
            except FlowError as exc:
                problems.append(exc)
            default = "simulator" if platform == "ios" else "device"  # a fresh sim:ios plays a Simulator
            for backend, kind in sorted(backends.get(platform) or {("sim", default)}):
                problems.extend(platform_problems(flow, platform, backend, kind)[0])
        if each_device is not None:
            jobs.extend(Job(flow, job_platform, device=i) for i in range(each_device))
        elif targets:
            jobs.append(Job(flow, job_platform))
    if problems:
        raise FlowValidationError(tuple({str(p): p for p in problems}.values()))
    return jobs, unrunnable


# JUnit's "error" is a test that could not finish: the device failed, or the run was stopped.
_CASE_STATUS = {"succeeded": "passed", "skipped": "skipped", "device_error": "error", "interrupted": "error"}


def _case(outcome: FlowOutcome) -> CaseResult:
    """One flow on one device as a JUnit test case (any other ending than these is a failure)."""
    problem = outcome.first_failure or outcome.error
    detail = problem
    if problem and outcome.run_dir is not None:
        detail = f"{problem}\ntimeline: {outcome.run_dir / 'timeline.jsonl'}"
    return CaseResult(
        name=outcome.flow,
        classname=outcome.file,
        status=_CASE_STATUS.get(outcome.status, "failed"),
        time=outcome.duration,
        message=problem or outcome.status,
        kind=outcome.error_kind,
        detail=detail,
        run_dir=str(outcome.run_dir) if outcome.run_dir else None,
        report=str(outcome.report) if outcome.report else None,
        retried=outcome.retried,
    )


def _suites(outcomes: Sequence[FlowOutcome], devices: Sequence[Device], out: str) -> list[SuiteResult]:
    """One JUnit suite per device, in the order the devices were given."""
    specs = list(dict.fromkeys([*(d.spec for d in devices), *(o.device for o in outcomes)]))
    about = {d.spec: d for d in devices}
    suites: list[SuiteResult] = []
    for spec in specs:
        mine = [o for o in outcomes if o.device == spec]
        if not mine:
            continue
        properties = {"device": spec, "platform": mine[0].platform, "runs": out}
        if spec in about:
            driver = about[spec].driver
            properties.update({"device_id": driver.device_id, "backend": driver.backend})
        for outcome in mine:  # each flow's own run folder, as a property too (testcases hold none)
            if outcome.run_dir is not None:
                name = f"run_folder:{outcome.flow}"
                taken = sum(key.split(" (")[0] == name for key in properties)
                properties[name if not taken else f"{name} ({taken + 1})"] = str(outcome.run_dir)
        started = min((o.started_at for o in mine if o.started_at), default="")
        suites.append(
            SuiteResult(spec, tuple(_case(o) for o in mine), started, socket.gethostname(), properties)
        )
    return suites


def output_folder(given: str | None, candidates: Sequence[Candidate]) -> tuple[str, str]:
    """Where run folders go, and the option that said so: ``--out``, else the first workspace's
    ``testOutputDir`` (relative to its folder, as Maestro takes it), else ``runs``."""
    if given is not None:
        return given, "--out"
    for candidate in candidates:
        if candidate.workspace is not None and candidate.workspace.output_dir is not None:
            return candidate.workspace.output_dir, f"testOutputDir of {candidate.workspace.config}"
    return "runs", "--out"


def run_flows(args: argparse.Namespace, io: Streams) -> int:
    cli_env = parse_env(args.env)
    include = parse_tags(args.include_tags, "--include-tags")
    exclude = parse_tags(args.exclude_tags, "--exclude-tags")
    candidates = collect(args.flows, config=getattr(args, "config", None))  # amc test's --config
    out_dir = check_output_folder(*output_folder(args.out, candidates))
    junit = check_output_file(args.junit, "--junit")
    specs: list[str] = args.device or []
    if args.each_device and len(specs) < 2:
        raise ConfigError(
            "--each-device needs several --device options", hint="e.g. --device sim:android --device sim:ios"
        )
    if args.sim_latency and specs and not all(s.strip().startswith("sim:") for s in specs):
        raise ConfigError("--sim-latency only applies to the simulated device (sim:android, sim:ios)")
    space_include, space_exclude = workspace_tags(candidates)
    include, exclude = include | space_include, exclude | space_exclude
    selection = select_flows(
        candidates,
        {**os.environ, **cli_env},
        include,
        exclude,
        params=cli_env,
        require=workspace_required(candidates),
    )
    order = run_order(selection.flows, selection.candidates)
    kept = [selection.flows[i] for i in order.positions]
    kept_candidates = [selection.candidates[i] for i in order.positions]
    in_sequence = {id(selection.flows[i]): (c, i in order.stop_on_failure) for i, c in order.sequence.items()}
    dropped = selection.left_out
    base_config = TaskRunnerConfig.from_env()  # a bad AMC_* value stops here, before any device is asked
    if not kept:
        raise ConfigError(
            f"no flow left to run: the tags leave out all {selection.found}",
            hint="check --include-tags / --exclude-tags against the flows' `tags:`",
        )
    choice = choose_device(specs[0]) if len(specs) == 1 else None
    if not specs:
        choice = choose_device(None)
        if choice.spec is not None:
            specs = [choice.spec]
    redactor = io.redactor  # the one the console hides secrets with, and every file of the run
    redactor.add(*(secret for flow in kept for secret in flow.secrets))
    cancel = Cancel()
    with stop_on_ctrl_c(cancel, io.err, INTERRUPT_NOTE):
        devices: list[Device] = []
        try:
            if specs:
                devices = _connect_all(specs, args.sim_latency)
                if choice is not None and len(devices) == 1:
                    devices[0] = Device(devices[0].spec, choice.reason, devices[0].driver)
            jobs, unrunnable = _jobs(
                kept,
                kept_candidates,
                [(d.driver.platform, d.driver.backend, device_kind(d.driver)) for d in devices],
                force=args.force_platform,
                sim_platform=args.platform,
                each_device=len(devices) if args.each_device else None,
            )
            jobs = [
                dataclasses.replace(
                    job, sequence=in_sequence[id(job.flow)][0], stop_on_failure=in_sequence[id(job.flow)][1]
                )
                if id(job.flow) in in_sequence
                else job
                for job in jobs
            ]
            if not jobs:
                raise ConfigError(
                    "no flow can run on the device(s): "
                    + "; ".join(f"{f.name}: {why}" for f, why in unrunnable),
                    hint="pass a device of the flows' platform, or --force-platform",
                )
            console = Console(io, json_lines=args.json, redactor=redactor, devices=max(1, len(devices)))
            for note in workspace_notes(candidates):
                console.note(f"amc: note: {note}")
            if dropped:
                console.note(f"amc: {len(dropped)} flow(s) left out by tags: {', '.join(dropped)}")
            several = len(jobs) + len(unrunnable) > 1
            run = FlowRun(
                out_dir,
                io,
                console,
                redactor,
                base_config,
                cancel,
                args.screenshots,
                index=out_dir / INDEX_FILE if several else None,
            )
            reason = choice.reason if choice is not None else ""

            def simulated(platform: Platform) -> Device:
                spec = f"sim:{platform}"
                return Device(
                    spec,
                    f"the simulated device: {reason}",
                    connect_device(spec, sim_latency=args.sim_latency),
                )

            outcomes, interrupted = run_schedule(
                jobs, devices, run, each_device=args.each_device, simulated=simulated
            )
            if not args.each_device:  # (with --each-device each device's worker records its own)
                targets = [(d.spec, d.driver.platform) for d in devices] or [
                    (f"sim:{args.platform}", args.platform)
                ]
                for flow, why in unrunnable:
                    outcomes.extend(run.skipped(flow, spec, platform, why) for spec, platform in targets)
        finally:
            with stoppable(cancel):  # after Ctrl-C the devices are asked nothing more (core.stop)
                for device in devices:
                    device.driver.close()
        return _finish(outcomes, devices, console, out_dir, junit, interrupted=interrupted)


def _finish(
    outcomes: list[FlowOutcome],
    devices: Sequence[Device],
    console: Console,
    out_dir: Path,
    junit: Path | None,
    *,
    interrupted: bool,
) -> int:
    """The index page (several flows), the JUnit file, the summary; the exit code."""
    if len(outcomes) > 1:
        rows = [
            IndexRow(o.flow, o.file, o.device, o.duration, o.run_dir, o.first_failure, o.error)
            for o in outcomes
        ]
        index = write_index(out_dir, rows, redactor=console.redactor)
        console.note(f"index: {index}")
    if junit is not None:
        write_junit(junit, _suites(outcomes, devices, str(out_dir)), redactor=console.redactor)
        console.note(f"junit: {junit}")
    if interrupted:
        console.note("amc: interrupted; the run folders keep every step executed so far")
        console.summary(outcomes, EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    codes = [exit_code(o.status) for o in outcomes if o.status != "skipped"]
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
