"""Several devices at once through ``runtime.pool.DevicePool``: throughput against one device.

1, 2, 4, 8 and 16 simulated phones, served over the adb face (the real uiautomator2 client per phone
through ``U2Driver``) and over the WebDriverAgent face (one WDA server per iPhone, ``WdaDriver``), with
50 ms added to every request that reaches a phone. The same flow runs on every device at once, one
task per device: a tap on the first row of Settings found by its text, then back, for ``steps``
steps. Throughput is executed steps per second of wall time; the speedup is against one device of
the same backend, measured in the same run.

Where the phones run: in child processes the benchmark starts (:mod:`benchmarks.phones`),
:data:`PER_PROCESS` phones each (over adb one adb face per group, as one adb server serves the
phones plugged into one computer; over WebDriverAgent one face per iPhone), while the harness's
drivers, the pool and the task loop run in the benchmark's own process. A real phone is not inside
the harness's interpreter; with the faces in the same process their work (building each screen and
its source, answering each connection) competed with the harness's for one interpreter lock and the
figures measured that contention, not the harness. One fleet of 16 phones per backend serves every
row: a row with n devices drives the first n, and the rows are interleaved round by round (1, 2, 4,
8, 16, then the next round starting one row later), so the one-device baseline is measured the
same way, in the same processes, at the same time as its contenders.

``connections`` counts the TCP connections the faces accepted during the measured rounds, per
request that reached a phone: over adb each shell command and uiautomator2 RPC is its own adb
connection (1.00), over WebDriverAgent the drivers keep theirs alive (close to 0).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from amc.core.models import PlannedStep, Platform
from amc.drivers.base import Driver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.planner import Planner, ScriptedPlanner
from amc.runtime.pool import DevicePool, PoolTask
from amc.runtime.task import TaskRunnerConfig

from benchmarks.common import Table, median
from benchmarks.phones import Group, start

__all__ = ["run"]

LATENCY = 0.05
COUNTS = (1, 2, 4, 8, 16)
PER_PROCESS = 4  # phones per child process
APP: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
FORWARD: dict[Platform, dict[str, str]] = {
    "android": {"text": "Network & internet"},
    "ios": {"text": "General"},
}
BACK: dict[Platform, dict[str, str]] = {"android": {"label": "Navigate up"}, "ios": {"id": "BackButton"}}


@dataclass
class Fleet:
    """Phones in child processes and the harness's drivers for them, in this process."""

    platform: Platform
    groups: list[Group]
    drivers: list[Driver]

    def reset(self) -> None:
        for group in self.groups:
            group.ask("reset")

    def counts(self) -> tuple[int, int]:
        """Connections the faces accepted, requests that reached a phone (all groups)."""
        pairs = [group.ask("counts") for group in self.groups]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def _serials(platform: Platform, n: int) -> list[str]:
    return [f"emulator-{5554 + 2 * k}" if platform == "android" else f"SIM-IPHONE-{k}" for k in range(n)]


@contextmanager
def _fleet(platform: Platform, n: int) -> Iterator[Fleet]:
    serials = _serials(platform, n)
    with ExitStack() as stack:
        groups: list[Group] = []
        for k in range(0, n, PER_PROCESS):
            group = start(platform, serials[k : k + PER_PROCESS], LATENCY, APP[platform])
            stack.callback(group.stop)
            groups.append(group)
        drivers: list[Driver] = []
        for group in groups:
            for k, serial in enumerate(group.serials):
                driver: Driver
                if platform == "android":
                    host, port = group.addresses[0].rsplit(":", 1)
                    config = U2Config(adb_host=host, adb_port=int(port), timeout=30.0)
                    driver = U2Driver(serial, config).connect()
                else:
                    driver = WdaDriver.from_url(group.addresses[k], device_id=serial, timeout=30.0).connect()
                stack.callback(driver.close)
                drivers.append(driver)
        yield Fleet(platform, groups, drivers)


def _flow(platform: Platform, steps: int) -> Callable[[Driver], Planner]:
    plan = [PlannedStep("tap", FORWARD[platform] if k % 2 == 0 else BACK[platform]) for k in range(steps)]
    return lambda driver: ScriptedPlanner(plan)


def _round(fleet: Fleet, n: int, steps: int) -> float:
    fleet.reset()  # Settings on its first screen, straight on each phone
    drivers = fleet.drivers[:n]
    config = TaskRunnerConfig(max_steps=steps)
    tasks = [
        PoolTask(
            f"flow on {d.device_id}", _flow(fleet.platform, steps), platform=fleet.platform, config=config
        )
        for d in drivers
    ]
    with DevicePool(drivers) as pool:
        started = time.perf_counter()
        results = pool.run_all(tasks)
        took = time.perf_counter() - started
    for result in results:
        if not result.succeeded or len(result.steps) != steps:
            raise RuntimeError(f"{result.goal}: {result.status.value}: {result.error}")
    return took


def run(*, steps: int = 10, rounds: int = 5) -> list[Table]:
    rows: list[list[object]] = []
    backends: dict[str, Platform] = {
        "adb face + U2Driver (Android)": "android",
        "WDA faces + WdaDriver (iOS)": "ios",
    }
    for name, platform in backends.items():
        with _fleet(platform, max(COUNTS)) as fleet:
            _round(fleet, max(COUNTS), 2)  # warm-up: sessions, caches, every driver
            took: dict[int, list[float]] = {n: [] for n in COUNTS}
            wire: dict[int, tuple[int, int]] = dict.fromkeys(COUNTS, (0, 0))
            for r in range(rounds):
                for n in COUNTS[r % len(COUNTS) :] + COUNTS[: r % len(COUNTS)]:
                    before = fleet.counts()
                    took[n].append(_round(fleet, n, steps))
                    after = fleet.counts()
                    wire[n] = (wire[n][0] + after[0] - before[0], wire[n][1] + after[1] - before[1])
        base = steps / median(took[1])
        for n in COUNTS:
            wall = median(took[n])
            throughput = n * steps / wall
            connections, requests = wire[n]
            rows.append(
                [
                    name,
                    n,
                    n * steps,
                    f"{wall:.2f}",
                    f"{throughput:.1f}",
                    f"**{throughput / base:.2f}x**",
                    f"{throughput / base / n:.0%}",
                    f"{connections / requests:.2f}",
                ]
            )
    return [
        Table(
            f"Several devices at once through DevicePool, {LATENCY * 1e3:.0f} ms per request",
            [
                "backend",
                "devices",
                "steps",
                "wall s (median)",
                "steps/s",
                "speedup vs 1 device",
                "efficiency",
                "connections per request",
            ],
            rows,
            notes=[
                f"One task per device, all at once; each task {steps} steps "
                "(tap a row by its text, then back), "
                f"each step a tap and an observation (2 requests, {2 * LATENCY * 1e3:.0f} ms of latency); "
                f"median of {rounds} rounds after a warm-up round, the rows interleaved round by round.",
                f"The simulated phones and their servers run in child processes ({PER_PROCESS} phones each), "
                "the harness's drivers in the benchmark's process, as with real phones.",
                "connections per request: TCP connections the faces accepted in the measured rounds, per "
                "request that reached a phone (adb serves one command or RPC per connection; the "
                "WebDriverAgent drivers keep one connection alive each).",
            ],
        )
    ]


if __name__ == "__main__":
    for table in run(steps=6, rounds=1):
        print(table.render())
