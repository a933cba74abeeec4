"""The ``amc`` command.

Subcommands are registered in :data:`COMMANDS` (name -> (setup, handler)); each handler returns
the process exit code: 0 passed, 1 a task or flow failed, 2 bad usage or input, 3 device error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from core.errors import ConfigError, DeviceError, HarnessError
from core.models import PlannedStep
from drivers.sim import DEMO_APP, SimDriver
from runtime.context import StepRecord, TaskContext
from runtime.planner import ScriptedPlanner
from runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus

__all__ = ["COMMANDS", "EXIT_DEVICE", "EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_DEVICE = 0, 1, 2, 3

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SUBPAGE = {"android": "Network & internet", "ios": "General"}


def _demo_steps(platform: str) -> list[PlannedStep]:
    settings = SETTINGS[platform]
    return [
        PlannedStep("launch_app", {"app_id": settings}, rationale="start from the Settings app",
                    expected_outcome="Settings is in front"),
        PlannedStep("tap", {"text": SUBPAGE[platform]}, rationale=f"open {SUBPAGE[platform]}",
                    expected_outcome=f"the {SUBPAGE[platform]} page"),
        PlannedStep("describe_screen", rationale="read the sub-page"),
        PlannedStep("terminate_app", {"app_id": settings}, rationale="leave the device as it was"),
        PlannedStep("launch_app", {"app_id": DEMO_APP}, rationale="open the demo login app"),
        PlannedStep("type_text", {"text": "qa", "target": {"id": "username"}}, rationale="enter the user"),
        PlannedStep("type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True},
                    rationale="enter the password"),
        PlannedStep("tap", {"text": "Sign in"}, rationale="sign in", expected_outcome="the Welcome page"),
        PlannedStep("assert_visible", {"text": "Signed in as qa"}, rationale="check the sign-in worked"),
        PlannedStep("terminate_app", {"app_id": DEMO_APP}, rationale="clean up"),
    ]


def _print_step(out: TextIO) -> Callable[[StepRecord, TaskContext], None]:
    def listener(record: StepRecord, context: TaskContext) -> None:
        result = record.result
        verdict = "ok" if result.success else f"FAILED {result.error_kind}: {result.error}"
        args = record.step.to_dict()["args"]
        if record.step.args.get("secret") is True:
            args = {k: ("***" if k == "text" else v) for k, v in args.items()}
        world = context.world
        where = f"app={world.current_app} page={world.current_page} observed={world.observed_app}" if world else ""
        out.write(
            f"[{record.index + 1:>2}] {record.step.action:<15} {json.dumps(args, ensure_ascii=False):<55} "
            f"{verdict:<6} {result.duration * 1000:7.1f} ms  {where}\n"
        )
        out.flush()

    return listener


def _setup_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--platform", choices=("android", "ios"), default="android",
                        help="which simulated device to drive (default: android)")


def _run_demo(args: argparse.Namespace, out: TextIO) -> int:
    driver = SimDriver(args.platform)
    out.write(f"simulated {args.platform} device {driver.device_id}: running the example task\n")
    runner = TaskRunner(
        driver,
        ScriptedPlanner(_demo_steps(args.platform)),
        config=TaskRunnerConfig.from_env(),
        listeners=[_print_step(out)],
    )
    result = runner.run("open a Settings sub-page, then sign in to the demo app")
    out.write(f"\ntask {result.status.value} in {result.duration:.3f} s, {len(result.steps)} steps\n")
    if result.error:
        out.write(f"error: {result.error}\n")
    if result.world is not None:
        out.write("world state:\n" + json.dumps(result.world.to_dict(), indent=2, ensure_ascii=False) + "\n")
    driver.close()
    return {TaskStatus.SUCCEEDED: EXIT_OK, TaskStatus.DEVICE_ERROR: EXIT_DEVICE}.get(result.status, EXIT_FAILED)


Setup = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace, TextIO], int]
COMMANDS: dict[str, tuple[str, Setup, Handler]] = {
    "demo": ("run the example task on the simulated device", _setup_demo, _run_demo),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="amc", description="Drive iOS and Android devices (or a simulated one).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (summary, setup, _handler) in COMMANDS.items():
        setup(sub.add_parser(name, help=summary, description=summary))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    stream = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_USAGE if exc.code else EXIT_OK
    _summary, _setup, handler = COMMANDS[args.command]
    try:
        return handler(args, stream)
    except ConfigError as exc:
        sys.stderr.write(f"amc: error: {exc}\n")
        return EXIT_USAGE
    except DeviceError as exc:
        sys.stderr.write(f"amc: device error: {exc}\n")
        return EXIT_DEVICE
    except HarnessError as exc:
        sys.stderr.write(f"amc: error: {exc}\n")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
