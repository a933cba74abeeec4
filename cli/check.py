"""``amc check PATH...``: validate flow files and folders of either format without a device.

Every file is read as ``amc run`` reads it (the project's format or Maestro's, told apart by
shape; every flow it runs; a folder's ``*.yaml`` / ``*.yml``, or a Maestro workspace's flows by its
``config.yaml``), and every problem is printed with its file, line and column. With ``--device``
(a spec, never connected) or ``--platform``, the steps that cannot run there are problems too, as
``amc run`` finds them before it starts. One line per file: ``ok`` or ``FAIL`` with its problems;
notes (what Maestro reads differently, steps skipped) after ``note:``. Exit 0 when every file is
fine, 2 otherwise.
"""

from __future__ import annotations

import argparse
import os

from .. import connect as connect_module
from ..connect.kinds import spec_kind
from ..core.errors import ConfigError, FlowError
from ..flows import FlowValidationError, load_flow
from ..flows.capabilities import platform_problems
from .common import EXIT_OK, EXIT_USAGE, Streams
from .selection import collect, parse_env, workspace_notes

__all__ = ["backend_of", "run_check", "setup_check", "target_of"]

_BACKENDS = {"sim": "sim", "sim+adb": "u2", "sim+wda": "wda", "sim+appium": "appium", "android": "u2"}
_BACKENDS.update({"ios": "wda", "appium": "appium"})


def setup_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="flow files and folders (either format)")
    parser.add_argument(
        "--device",
        action="append",
        metavar="SPEC",
        help="also check that every step can run on this device's backend (not connected; repeatable)",
    )
    parser.add_argument(
        "--platform", choices=("android", "ios"), action="append", help="also check for this platform"
    )
    parser.add_argument("--env", action="append", metavar="KEY=VALUE", help="a ${KEY} value for the flows")


def backend_of(spec: str) -> tuple[str, str]:
    """(platform, backend) a device spec drives, without connecting; ``ConfigError`` otherwise."""
    scheme, target = connect_module.parse_spec(spec)
    backend = _BACKENDS.get(scheme)
    if backend is None:
        raise ConfigError(f"--device {spec!r}: unknown kind of device {scheme!r}")
    if scheme.startswith("sim"):
        platform = connect_module.parse_sim_target(scheme, target).platform
    elif scheme == "appium":
        platform = "ios" if "platform=ios" in target.lower() else "android"
    else:
        platform = "ios" if scheme == "ios" else "android"
    return platform, backend


def target_of(spec: str) -> tuple[str, str, str]:
    """(platform, backend, kind) a device spec drives, without connecting: the kind (an iOS
    Simulator or a device) by the rule ``amc run`` reads too (:func:`amc.connect.kinds.spec_kind`)."""
    platform, backend = backend_of(spec)
    scheme, target = connect_module.parse_spec(spec)
    return platform, backend, spec_kind(scheme, target, platform)


def run_check(args: argparse.Namespace, io: Streams) -> int:
    given = parse_env(args.env)
    env = {**os.environ, **given}
    targets: list[tuple[str, str | None, str]] = [target_of(spec) for spec in args.device or ()]
    targets += [(platform, None, "device") for platform in args.platform or ()]
    candidates = collect(args.paths)
    for note in workspace_notes(candidates):
        io.out.write(f"note: {note}\n")
    bad = 0
    for candidate in candidates:
        problems: list[FlowError] = []
        notes: list[FlowError] = []
        summary = ""
        try:
            flow = load_flow(candidate.path, environ=env, params=given)
        except FlowValidationError as exc:
            problems.extend(exc.problems)
        except FlowError as exc:
            problems.append(exc)
        else:
            notes.extend(flow.notes)
            kind = "Maestro" if flow.dialect == "maestro" else "amc"
            # how many steps a run executes when the file fixes it; with conditions or retries the
            # flow decides as it runs (its condition checks are steps too), and no count is claimed
            steps = f"{flow.total} steps" if flow.total is not None else "steps decided as it runs"
            summary = f" ({kind} flow {flow.name!r}, {steps})"
            every: list[tuple[str, str | None, str]] = [("android", None, "device"), ("ios", None, "device")]
            for platform, backend, device_kind in targets or every:
                found, said = platform_problems(flow, platform, backend, device_kind)
                if targets:
                    problems.extend(found)
                    notes.extend(said)
                else:  # no device named: what no backend can run is a note
                    notes.extend(found + said)
        problems = list({str(p): p for p in problems}.values())
        notes = list({str(n): n for n in notes}.values())
        if problems:
            bad += 1
            io.out.write(f"FAIL {candidate.path}: {len(problems)} problem(s)\n")
            for problem in problems:
                io.out.write(f"  {problem}\n")
        else:
            io.out.write(f"ok   {candidate.path}{summary}\n")
        for note in notes:
            io.out.write(f"  note: {note}\n")
    io.err.write(f"amc check: {len(candidates) - bad} of {len(candidates)} file(s) ok\n")
    return EXIT_OK if not bad else EXIT_USAGE
