"""What waiting for the screen to settle costs: on a screen that does not change, and on the
simulated phone's timed transitions, against what the device itself takes.

After an action that changes the screen the loop looks until two looks in a row agree
(:mod:`amc.actions.settle`, 0.2 s apart by default, as Maestro's reads are). Two tables:

- **A static screen**: a tap on the simulated Settings app (instant screens, the screen the same
  after it) with the settle on and off, interleaved; looks per step and time per step. The aim is
  one extra look, and the time it costs is the interval between the two looks.
- **Timed transitions**: taps that open a page on the simulated phone's realistic timing (the new
  page takes 100-400 ms to slide in); the step's time with the settle next to the device's own
  transition time read from the simulated device, per step and in total.

Run: ``python benchmarks/settle.py`` (``--quick`` for a smoke run); ``python -m benchmarks`` runs it
as the ``settle`` suite.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from amc.actions.settle import SettleConfig  # noqa: E402
from amc.connect.simulated import SimDriver  # noqa: E402
from amc.core.models import PlannedStep  # noqa: E402
from amc.runtime.planner import ScriptedPlanner  # noqa: E402
from amc.runtime.task import TaskRunner, TaskRunnerConfig  # noqa: E402
from amc.sim.device import REALISTIC, SimDevice  # noqa: E402

from benchmarks.common import Table, interleaved  # noqa: E402

__all__ = ["PHONE_LATENCY", "run"]

PHONE_LATENCY = 0.2  # seconds per device call, as a phone's page source takes


class _PhoneLike(SimDriver):
    """The simulated device with instant screens that says it animates, as a phone's adapter does:
    the loop waits for its screen to settle, which it always already has."""

    @property
    def animates(self) -> bool:
        return True


def _static_step(settle: SettleConfig, latency: float = 0.0) -> tuple[float, int]:
    """One tap on an unchanging screen, every device call taking ``latency`` seconds: (seconds,
    looks after the action)."""
    driver = _PhoneLike("android", latency=latency)
    driver.launch_app("com.android.settings")
    config = TaskRunnerConfig(settle=settle, semantic=False)
    runner = TaskRunner(driver, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 1})]), config=config)
    started = time.perf_counter()
    result = runner.run("tap")
    took = time.perf_counter() - started
    return took, 1 + result.steps[0].settle_looks


def _static_table(blocks: int) -> Table:
    on, off = SettleConfig(), SettleConfig(timeout=0)
    rows: list[list[object]] = []
    for latency in (0.0, PHONE_LATENCY):
        contenders = {
            "settle on (default)": lambda latency=latency: _static_step(on, latency),
            "settle off": lambda latency=latency: _static_step(off, latency),
        }
        looks = {name: int(run()[1]) for name, run in contenders.items()}  # type: ignore[index]
        stats = interleaved(contenders, blocks=blocks)
        base = stats["settle off"]
        for name, s in stats.items():
            per_call = "none (in process)" if latency == 0 else f"{latency * 1000:.0f} ms"
            rows.append(
                [per_call, name, looks[name], f"{s.median * 1000:.1f}", f"{s.median / base.median:.2f}x"]
            )
    return Table(
        "Settling on a screen that does not change (a tap on the simulated Settings app, instant screens)",
        ["device call latency", "loop", "looks after the tap", "ms per task (median)", "vs settle off"],
        rows,
        [
            f"{blocks} interleaved blocks per latency; a task is its first look, the tap and the looks "
            "after it.",
            "The second look starts one settle interval (0.2 s) after the first; a look that itself takes "
            f"that long is followed at once: with {PHONE_LATENCY * 1000:.0f} ms per device call (a real "
            "phone's page source takes 100-500 ms) the extra look costs what one look costs.",
        ],
    )


def _transition_rows(rounds: int) -> list[list[object]]:
    rows: list[list[object]] = []
    steps_s: list[float] = []
    device_s: list[float] = []
    looks: list[int] = []
    for n in range(rounds):
        device = SimDevice("android", device_id=f"bench-{n}", timing=REALISTIC)
        driver = SimDriver("android", device=device)
        driver.launch_app("com.android.settings")
        time.sleep(0.5)  # the launch's own transition is over
        steps = [PlannedStep("tap", {"text": "Network & internet"}), PlannedStep("press", {"key": "back"})]
        planner = ScriptedPlanner(steps)
        runner = TaskRunner(driver, planner, config=TaskRunnerConfig(semantic=False))
        session = runner.session("open and close a page")
        session.look()
        for step in steps:  # each action timed with its settle, beside the device's transition
            started = time.perf_counter()
            outcome = session.run_step(step)
            took = time.perf_counter() - started
            own = _last_transition(device)
            steps_s.append(took)
            device_s.append(own)
            looks.append(1 + outcome.record.settle_looks)
    total_steps, total_device = sum(steps_s), sum(device_s)
    rows.append(
        [
            f"{len(steps_s)} page changes",
            f"{statistics.median(device_s) * 1000:.0f}",
            f"{statistics.median(steps_s) * 1000:.0f}",
            f"{statistics.median(looks):.0f} ({min(looks)}-{max(looks)})",
            f"{total_steps / total_device:.2f}x",
        ]
    )
    return rows


def _last_transition(device: SimDevice) -> float:
    """The length of the simulated phone's last transition (its slide's start to its end)."""
    return device.last_transition


def _transition_table(rounds: int) -> Table:
    return Table(
        "Settling on the simulated phone's timed transitions (a page slides in over 100-400 ms)",
        [
            "steps",
            "device's transition, ms (median)",
            "step with settle, ms (median)",
            "looks after the action (median, range)",
            "steps' total vs the transitions'",
        ],
        _transition_rows(rounds),
        [
            "Each step: the action, then looks 0.2 s apart until two agree; the device's time is its own "
            "transition, read from the simulated device.",
        ],
    )


def run(*, blocks: int = 20, rounds: int = 10) -> list[Table]:
    return [_static_table(blocks), _transition_table(rounds)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    tables = run(blocks=3, rounds=2) if args.quick else run()
    print("\n".join(t.render() for t in tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
