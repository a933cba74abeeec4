"""``amc demo``: the example task on the simulated device, printing each step and the world state."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TextIO

from ..connect.simulated import SimDriver
from ..core.models import PlannedStep
from ..core.steps import StepRecord, describe_step
from ..runtime.context import TaskContext
from ..runtime.planner import ScriptedPlanner
from ..runtime.task import TaskRunner, TaskRunnerConfig
from ..sim import DEMO_APP
from .common import Streams, exit_code

__all__ = ["run_demo", "setup_demo"]

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SUBPAGE = {"android": "Network & internet", "ios": "General"}


def _demo_steps(platform: str) -> list[PlannedStep]:
    settings = SETTINGS[platform]
    sub = SUBPAGE[platform]
    return [
        PlannedStep(
            "launch_app",
            {"app_id": settings},
            rationale="start from the Settings app",
            expected_outcome="Settings is in front",
        ),
        PlannedStep("tap", {"text": sub}, rationale=f"open {sub}", expected_outcome=f"the {sub} page"),
        PlannedStep("describe_screen", rationale="read the sub-page"),
        PlannedStep("terminate_app", {"app_id": settings}, rationale="leave the device as it was"),
        PlannedStep("launch_app", {"app_id": DEMO_APP}, rationale="open the demo login app"),
        PlannedStep("type_text", {"text": "qa", "target": {"id": "username"}}, rationale="enter the user"),
        PlannedStep(
            "type_text",
            {"text": "secret123", "target": {"id": "password"}, "secret": True},
            rationale="enter the password",
        ),
        PlannedStep("tap", {"text": "Sign in"}, rationale="sign in", expected_outcome="the Welcome page"),
        PlannedStep("assert_visible", {"text": "Signed in as qa"}, rationale="check the sign-in worked"),
        PlannedStep("terminate_app", {"app_id": DEMO_APP}, rationale="clean up"),
    ]


def _print_step(out: TextIO) -> Callable[[StepRecord, TaskContext], None]:
    def listener(record: StepRecord, context: TaskContext) -> None:
        result = record.result
        verdict = "ok" if result.success else f"FAILED {result.error_kind}: {result.error}"
        world = context.world
        where = (
            f"app={world.current_app} page={world.current_page} observed={world.observed_app}"
            if world
            else ""
        )
        target = describe_step(record.step.action, record.step.args)
        out.write(
            f"[{record.index + 1:>2}] {record.step.action:<15} {target:<45} "
            f"{verdict:<6} {result.duration * 1000:7.1f} ms  {where}\n"
        )
        out.flush()

    return listener


def setup_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--platform",
        choices=("android", "ios"),
        default="android",
        help="which simulated device to drive (default: android)",
    )


def run_demo(args: argparse.Namespace, io: Streams) -> int:
    out = io.out
    driver = SimDriver(args.platform)
    out.write(f"simulated {args.platform} device {driver.device_id}: running the example task\n")
    runner = TaskRunner(
        driver,
        ScriptedPlanner(_demo_steps(args.platform)),
        config=TaskRunnerConfig.from_env(),
        listeners=[_print_step(out)],
    )
    try:
        result = runner.run("open a Settings sub-page, then sign in to the demo app")
    finally:
        driver.close()
    out.write(f"\ntask {result.status.value} in {result.duration:.3f} s, {len(result.steps)} steps\n")
    if result.error:
        out.write(f"error: {result.error}\n")
    if result.world is not None:
        out.write("world state:\n" + json.dumps(result.world.to_dict(), indent=2, ensure_ascii=False) + "\n")
    return exit_code(result.status)
