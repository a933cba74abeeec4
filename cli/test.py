"""``amc test``: Maestro's ``maestro test`` command line, mapped onto ``amc run``'s machinery.

The options are read from one table (:mod:`.maestro_options`); the run itself is
:func:`~amc.cli.run.run_flows` (flow selection, workspaces, scheduling over devices, run folders,
reports), called once per run through :func:`_run_once`. Its JUnit file is then read back
(:func:`~amc.storage.maestro_report.read_junit`) and turned into what Maestro writes: its JUnit or
HTML report (``--format``, ``--output``) and its debug folder (``--debug-output``).

Exit codes, as Maestro's (``TestCommand.call``: ``if (passed == total) 0 else 1``; picocli exits 2
for a bad option): 0 every flow passed, 1 a flow failed or a device failed (amc run says 3 for a
device error; Maestro counts it a failed flow), 2 bad usage or a bad flow, nothing run (Maestro
says 1 for a flow file it cannot plan: here it is a usage error, as ``amc run`` says), 130 stopped
by Ctrl-C. ``--continuous`` runs again whenever a file under the flows' paths changes.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import connect as connect_module
from ..core.errors import ConfigError, FlowError
from ..flows import FlowValidationError
from ..sim.device import DEFAULT_IDS
from ..storage.maestro_report import read_junit, write_debug_output, write_maestro_report
from .common import EXIT_DEVICE, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, Streams
from .maestro_options import FORMATS, OPTIONS, add_options
from .run import output_folder, run_flows
from .selection import check_output_file, collect

__all__ = ["POLL_SECONDS", "run_test", "setup_test", "watched_files"]

POLL_SECONDS = 0.5  # how often --continuous looks at the files' times
MAX_WATCHED = 5000  # files --continuous looks at, at most
WATCHED_SUFFIXES = (".yaml", ".yml", ".js", ".json")
_SCREEN_SIZE = re.compile(r"\d+x\d+")
AMC_JUNIT = "junit-amc.xml"  # amc run's JUnit of the run, in the folder of its run folders


def setup_test(parser: argparse.ArgumentParser) -> None:
    add_options(parser)


@dataclass(frozen=True)
class Plan:
    """What one ``amc test`` command asks for, checked: the ``amc run`` arguments and the files
    Maestro writes after it."""

    run: argparse.Namespace
    fmt: str
    output: Path | None
    suite_name: str | None
    debug_output: Path
    flatten: bool
    continuous: bool


def _notes(args: argparse.Namespace, io: Streams) -> None:
    """A line for every accepted option given that does nothing here; ConfigError for a refused one."""
    for option in OPTIONS:
        value = getattr(args, option.dest, None)
        given = value is not None if option.negation else value not in (None, False)
        if not given or option.kind == "mapped":
            continue
        if option.kind == "refused":
            raise ConfigError(f"{option.names[0]} has no meaning for amc test: {option.meaning}")
        io.err.write(f"amc: note: {option.names[0]} is accepted and does nothing here: {option.meaning}\n")
    if args.api_key:
        io.redactor.add(args.api_key)
    if args.screen_size is not None and not _SCREEN_SIZE.fullmatch(args.screen_size):
        raise ConfigError(  # TestCommand.call checks it before anything runs
            "Invalid screen size format. Please use the format {Width}x{Height}, e.g. 1920x1080."
        )


def _platform(value: str | None) -> str | None:
    if value is None:
        return None
    platform = value.strip().lower()
    if platform == "web":
        raise ConfigError("-p web: amc drives no browser", hint="use -p android or -p ios")
    if platform not in ("android", "ios"):
        raise ConfigError(f"-p/--platform must be android or ios, got {value!r}")
    return platform


def _spec(device_id: str, platform: str | None) -> tuple[str, str | None]:
    """An amc device spec for what ``--device`` names, and a note when it was translated: an amc
    spec as it is; an attached device's id (``adb devices``, a UDID) as discovery names it; the
    simulated device's own id (emulator-5554, SIM-IPHONE-15) as that simulated device."""
    bad_spec: ConfigError | None = None
    if ":" in device_id:
        try:
            connect_module.check_spec(device_id)
            return device_id, None
        except ConfigError as exc:  # perhaps an adb serial such as 192.168.1.5:5555
            bad_spec = exc
    for found in connect_module.discover():
        if found.usable and found.spec.split(":", 1)[-1].split("?")[0] == device_id:
            return found.spec, f"--device {device_id} is the attached {found.spec}"
    for sim_platform, sim_id in DEFAULT_IDS.items():
        if device_id == sim_id and platform in (None, sim_platform):
            return f"sim:{sim_platform}", f"--device {device_id} is the simulated {sim_platform} device's id"
    if bad_spec is not None:
        raise bad_spec
    raise ConfigError(  # TestCommand.handleSessions' own words
        f"Device {device_id} was requested, but it is not connected.",
        hint="pass an amc device spec (sim:android, sim:ios, u2:SERIAL, wda:URL, appium:URL …) "
        "or the id of an attached device (`amc devices`)",
    )


def _devices(args: argparse.Namespace, platform: str | None, io: Streams) -> tuple[list[str] | None, bool]:
    """The ``--device`` specs for amc run and whether every flow runs on each (``--shard-all``)."""
    if args.shards is not None:
        io.err.write(
            "amc: warning: --shards option is deprecated and will be removed in the next Maestro "
            "version. Use --shard-split or --shard-all instead.\n"
        )
    if args.shard_split is not None and args.shard_all is not None:
        raise ConfigError("Options --shard-split and --shard-all are mutually exclusive.")
    shards = args.shard_split or args.shard_all or args.shards or 1
    ids = [d.strip() for d in (args.device or "").split(",") if d.strip()]
    specs: list[str] = []
    for device_id in ids:
        spec, note = _spec(device_id, platform)
        if note:
            io.err.write(f"amc: note: {note}\n")
        specs.append(spec)
    if shards > 1:
        if not specs:
            specs = [f"sim:{platform or 'android'}"] * shards
            io.err.write(f"amc: note: no --device given: {shards} simulated devices, one per shard\n")
        if len(specs) < shards:
            raise ConfigError(
                f"Not enough devices connected ({len(specs)}) to run the requested number of shards "
                f"({shards}).",
                hint="give as many devices with --device a,b,… as shards",
            )
        specs = specs[:shards]
    return specs or None, args.shard_all is not None and len(specs) > 1


def _plan(args: argparse.Namespace, io: Streams) -> Plan:
    _notes(args, io)
    platform = _platform(args.platform)
    devices, each = _devices(args, platform, io)
    if args.config is not None and not Path(args.config).is_file():
        raise ConfigError(f"The config file {Path(args.config).absolute()} does not exist.")
    fmt = args.format or "noop"
    output = None
    if FORMATS[fmt] is not None:
        output = check_output_file(args.output or f"report{FORMATS[fmt]}", "--output")
    if args.continuous and (fmt != "noop" or args.shard_split or args.shard_all or args.shards):
        raise ConfigError(  # TestCommand.runShardSuite refuses it the same way (a usage error)
            "Continuous mode is not supported with a report (--format) or shards",
            hint="drop --format / --shard-* with -c",
        )
    tags = {"include_tags": args.include_tags, "exclude_tags": args.exclude_tags}
    run = argparse.Namespace(
        flows=list(args.flows),
        device=devices,
        each_device=each,
        force_platform=False,
        env=args.env,
        out=args.test_output_dir,
        junit=None,
        json=False,
        screenshots=args.screenshots,
        sim_latency=0.0,
        platform=platform,
        config=args.config,
        **tags,
    )
    # TestDebugReporter.getDebugOutputPath: --debug-output, else the user's home (~/.maestro/tests/…)
    debug = Path(args.debug_output) if args.debug_output is not None else Path.home()
    return Plan(run, fmt, output, args.test_suite_name, debug, args.flatten_debug_output, args.continuous)


def _run_once(plan: Plan, io: Streams) -> int:
    """One run through amc run's machinery, then Maestro's files; the exit code as Maestro's."""
    # amc's own JUnit (errors, skipped flows, properties, attachments) is kept beside the run
    # folders, and read back for Maestro's files
    junit = Path(output_folder(plan.run.out, collect(plan.run.flows, config=plan.run.config))[0]) / AMC_JUNIT
    code = run_flows(argparse.Namespace(**{**vars(plan.run), "junit": str(junit)}), io)
    suites = read_junit(junit) if junit.is_file() else []
    if plan.output is not None and suites:
        written = write_maestro_report(
            plan.fmt, plan.output, suites, suite_name=plan.suite_name, redactor=io.redactor
        )
        io.err.write(f"{plan.fmt} report: {written}\n")
    if suites:
        folder = write_debug_output(plan.debug_output, suites, flatten=plan.flatten, redactor=io.redactor)
        io.err.write(f"==== Debug output (logs & screenshots) ====\n{folder.absolute()}\n")
    return EXIT_FAILED if code == EXIT_DEVICE else code


def watched_files(paths: Sequence[str], config: str | None = None) -> dict[str, tuple[int, int]]:
    """Every flow, script and config file under ``paths`` (files as given, folders walked), with
    its modification time and size; at most :data:`MAX_WATCHED`."""
    seen: dict[str, tuple[int, int]] = {}
    files: list[str] = [config] if config else []
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(WATCHED_SUFFIXES))
                if len(files) > MAX_WATCHED:
                    break
        else:
            files.append(path)
    for file in files[:MAX_WATCHED]:
        try:
            info = os.stat(file)
        except OSError:
            continue
        seen[file] = (info.st_mtime_ns, info.st_size)
    return seen


def _watch(plan: Plan, io: Streams, *, sleep: Callable[[float], None] = time.sleep) -> int:
    """Run, then run again each time a watched file changes, until Ctrl-C (exit 130)."""
    try:
        while True:
            before = watched_files(plan.run.flows, plan.run.config)
            try:
                code = _run_once(plan, io)
            except FlowValidationError as exc:  # a file saved half-written: say so, wait for the next
                code = EXIT_USAGE
                io.err.writelines(f"amc: bad flow: {problem}\n" for problem in exc.problems)
            except (ConfigError, FlowError) as exc:
                code = EXIT_USAGE
                io.err.write(f"amc: error: {exc}\n")
            if code == EXIT_INTERRUPTED:
                return code
            io.err.write(
                f"amc: waiting for flows to change ({len(before)} file(s) watched; Ctrl-C to stop)\n"
            )
            io.err.flush()
            while watched_files(plan.run.flows, plan.run.config) == before:
                sleep(POLL_SECONDS)
            io.err.write("amc: a flow file changed: running again\n")
    except KeyboardInterrupt:
        io.err.write("amc: interrupted\n")
        return EXIT_INTERRUPTED


def run_test(args: argparse.Namespace, io: Streams) -> int:
    try:
        plan = _plan(args, io)
    except ConfigError as exc:
        io.err.write(f"amc: error: {exc}\n")
        return EXIT_USAGE
    if plan.continuous:
        return _watch(plan, io)
    return _run_once(plan, io)
