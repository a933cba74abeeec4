"""``amc run PATH...`` (flows from files and folders, on one or several devices) and ``amc report``.

The command composes the flow runner (:mod:`amc.flows.run`): everything is checked before anything
runs (every flow file and every flow it runs, ``--env``, the tags, where the run will write, the
device specs, and that each flow can run on the devices); then the runner runs the flows and tells
its listeners: each run folder's report, ``--junit`` XML, and the console (every executed step is
written to its run's timeline, synced to disk, and only then printed). Secrets the flows mark are
scrubbed from the console, the timelines, page sources, logs and reports. Ctrl-C asks every flow to
stop at its next poll (:mod:`.interrupt`). At the end: ``index.html`` beside the run folders when
several flows ran, the summary, and the exit code.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from ..core.durations import check_seconds
from ..core.models import Platform
from ..core.stop import stoppable
from ..drivers.base import Driver
from ..flows.run import Device, FlowOutcome, connect_all, plan_run, run_plan
from ..flows.run.plan import output_folder
from ..runtime.cancel import Cancel
from ..runtime.recording import SCREENSHOT_POLICIES
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
from .console import Console
from .interrupt import stop_on_ctrl_c
from .selection import parse_env, parse_tags

__all__ = [
    "INTERRUPT_NOTE",
    "output_folder",
    "run_code",
    "run_flows",
    "run_report",
    "setup_report",
    "setup_run",
]

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


def _connect_all(specs: Sequence[str], sim_latency: float) -> list[Device]:
    """Every ``--device``, checked whole before the first is connected (:func:`amc.flows.run.connect_all`:
    a spec given twice is two devices, ``SPEC #2``; simulated devices given no ``id=`` take distinct ids)."""
    for spec in specs:
        choose_device(spec)

    def one(spec: str, sim_id: str | None) -> Driver:
        return connect_device(spec, sim_latency=sim_latency, sim_id=sim_id)

    return connect_all(specs, one)


def run_code(outcomes: Sequence[FlowOutcome]) -> int:
    """The exit code of a run that was not interrupted: 3 when a flow met a device error, else 1
    when one did not succeed, else 0 (flows not run do not count)."""
    codes = [exit_code(o.status) for o in outcomes if o.status != "skipped"]
    return EXIT_DEVICE if EXIT_DEVICE in codes else EXIT_FAILED if EXIT_FAILED in codes else EXIT_OK


def run_flows(args: argparse.Namespace, io: Streams) -> int:
    specs: list[str] = args.device or []
    plan = plan_run(
        args.flows,
        environ=os.environ,
        params=parse_env(args.env),
        include=parse_tags(args.include_tags, "--include-tags"),
        exclude=parse_tags(args.exclude_tags, "--exclude-tags"),
        out=args.out,
        junit=args.junit,
        devices=specs,
        each_device=args.each_device,
        sim_latency=args.sim_latency,
        workspace_config=getattr(args, "config", None),  # amc test's --config
    )
    choice = choose_device(specs[0]) if len(specs) == 1 else None
    if not specs:
        choice = choose_device(None)
        if choice.spec is not None:
            specs = [choice.spec]
    redactor = io.redactor  # the one the console hides secrets with, and every file of the run
    redactor.add(*plan.secrets)
    cancel = Cancel()
    reason = choice.reason if choice is not None else ""

    def simulated(platform: Platform) -> Device:
        spec = f"sim:{platform}"
        return Device(
            spec, f"the simulated device: {reason}", connect_device(spec, sim_latency=args.sim_latency)
        )

    with stop_on_ctrl_c(cancel, io.err, INTERRUPT_NOTE):
        devices: list[Device] = []
        try:
            if specs:
                devices = _connect_all(specs, args.sim_latency)
                if choice is not None and len(devices) == 1:
                    devices[0] = Device(devices[0].spec, choice.reason, devices[0].driver)
            console = Console(
                io, json_lines=args.json, redactor=redactor, devices=max(1, len(devices)), code=run_code
            )
            result = run_plan(
                plan,
                devices,
                simulated=simulated,
                listeners=[console],
                cancel=cancel,
                redactor=redactor,
                err=io.err,
                each_device=args.each_device,
                force_platform=args.force_platform,
                platform=args.platform,
                screenshots=args.screenshots,
            )
        finally:
            with stoppable(cancel):  # after Ctrl-C the devices are asked nothing more (core.stop)
                for device in devices:
                    device.driver.close()
    return EXIT_INTERRUPTED if result.interrupted else run_code(result.outcomes)


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
