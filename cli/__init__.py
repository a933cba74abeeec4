"""The ``amc`` command.

Subcommands are registered in :data:`COMMANDS` (name -> (summary, setup, handler)); each handler
returns the process exit code: 0 passed, 1 a task or flow failed, 2 bad usage or a bad flow
(nothing was executed), 3 a device error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import TextIO, cast

from ..core.errors import ConfigError, DeviceError, FlowError, HarnessError, StepArgumentError
from ..flows import FlowValidationError
from ..storage.redaction import Redactor
from .agent import run_agent, setup_agent
from .check import run_check, setup_check
from .common import EXIT_DEVICE, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, Handler, Setup, Streams
from .demo import run_demo, setup_demo
from .devices import run_devices, setup_devices
from .doctor import run_doctor, setup_doctor
from .inspect import run_inspect, setup_inspect
from .maestro_options import hoist
from .mcp import run_mcp, setup_mcp
from .run import run_flows, run_report, setup_report, setup_run
from .terminal import VisibleStream
from .test import run_test, setup_test

__all__ = ["COMMANDS", "EXIT_DEVICE", "EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

URL_VARIABLES = ("WDA_URL", "APPIUM_URL")  # the URLs amc doctor and discovery read

COMMANDS: dict[str, tuple[str, Setup, Handler]] = {
    "run": ("run flow files on a device (the simulated one by default)", setup_run, run_flows),
    "test": (
        "run flows with Maestro's `maestro test` command line (its options, reports and exit codes)",
        setup_test,
        run_test,
    ),
    "check": (
        "check flow files and folders (this project's format or Maestro's) without a device",
        setup_check,
        run_check,
    ),
    "report": ("render the HTML report of a run folder", setup_report, run_report),
    "devices": ("list attached devices", setup_devices, run_devices),
    "inspect": (
        "print the current screen of a device, or serve a live inspector page (--serve)",
        setup_inspect,
        run_inspect,
    ),
    "doctor": ("check adb, WebDriverAgent and Appium, with a fix for each problem", setup_doctor, run_doctor),
    "demo": ("run the example task on the simulated device", setup_demo, run_demo),
    "mcp": ("serve a device to an MCP client over stdio (needs the agent extra)", setup_mcp, run_mcp),
    "agent": (
        "run a goal with a language model planning each step (needs the agent extra)",
        setup_agent,
        run_agent,
    ),
}


DISTRIBUTION = "agentic-mobile-control"


def _version() -> str:
    """The installed distribution's version (its metadata), or a note when it is not installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return f"(not installed: no {DISTRIBUTION} distribution metadata found)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="amc", description="Drive iOS and Android devices (or a simulated one)."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (summary, setup, _handler) in COMMANDS.items():
        setup(sub.add_parser(name, help=summary, description=summary))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    # every line printed hides the command's secrets and shows control characters instead of
    # obeying them (cli/terminal.py)
    redactor = Redactor()
    io = Streams(
        cast(TextIO, VisibleStream(out or sys.stdout, redactor)),
        cast(TextIO, VisibleStream(err or sys.stderr, redactor)),
        redactor,
    )
    parser = build_parser()
    try:
        # `amc test` reads Maestro's order too: `--device X test FLOW --format junit` (maestro_options)
        args = parser.parse_args(hoist(sys.argv[1:] if argv is None else list(argv)))
    except SystemExit as exc:  # argparse already printed the usage error (or --help, --version)
        return EXIT_USAGE if exc.code else EXIT_OK
    for url in _urls(args):  # a password or key in a URL given (--device, --llm-url …) is a secret
        redactor.add_url(url)
    _summary, _setup, handler = COMMANDS[args.command]
    try:
        return handler(args, io)
    except FlowValidationError as exc:
        for problem in exc.problems:
            io.err.write(f"amc: bad flow: {problem}\n")
        io.err.write("amc: nothing was run\n")
        return EXIT_USAGE
    except (ConfigError, FlowError, StepArgumentError) as exc:
        io.err.write(f"amc: error: {exc}\n")
        return EXIT_USAGE
    except DeviceError as exc:
        io.err.write(f"amc: device error: {exc}\n")
        return EXIT_DEVICE
    except HarnessError as exc:
        io.err.write(f"amc: error: {exc}\n")
        return EXIT_FAILED
    except KeyboardInterrupt:  # before (or after) a run: nothing half-written to report
        io.err.write("amc: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of our output went away (`amc … | head`)
        return EXIT_FAILED


def _urls(args: argparse.Namespace) -> list[str]:
    """Every URL the command line and the harness's URL variables name."""
    values: list[object] = [os.environ.get(name) for name in URL_VARIABLES]
    for value in vars(args).values():
        values.extend(value if isinstance(value, list) else [value])
    return [v for v in values if isinstance(v, str) and "://" in v]


if __name__ == "__main__":
    sys.exit(main())
