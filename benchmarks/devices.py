"""Several devices at once through ``runtime.pool.DevicePool``: throughput against one device.

1, 2, 4, 8 and 16 simulated phones, served over the adb face (one adb server in front of all the Android
phones, the real uiautomator2 client per phone through ``U2Driver``) and over the WebDriverAgent face
(one WDA server per iPhone, ``WdaDriver``), with 50 ms added to every request that reaches a phone.
The same flow runs on every device at once, one task per device: a tap on the first row of Settings
found by its text, then back, for ``steps`` steps. Throughput is executed steps per second of wall
time; the speedup is against the one-device run of the same backend, in the same run.

The faces run in this process, so their work (building each screen and its source) competes with the
harness's for the same interpreter lock: the figures are a floor for what separate phones allow.
``connections`` counts the TCP connections the faces accepted during the measured rounds, per
request that reached a phone: over adb each shell command and uiautomator2 RPC is its own adb
connection (1.00), over WebDriverAgent the drivers keep theirs alive (close to 0).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

from amc.core.models import PlannedStep, Platform
from amc.drivers.base import Driver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.planner import Planner, ScriptedPlanner
from amc.runtime.pool import DevicePool, PoolTask
from amc.runtime.task import TaskRunnerConfig
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

from benchmarks.common import RouteLatency, Table, median

__all__ = ["run"]

LATENCY = 0.05
COUNTS = (1, 2, 4, 8, 16)
APP: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
FORWARD: dict[Platform, dict[str, str]] = {
    "android": {"text": "Network & internet"},
    "ios": {"text": "General"},
}
BACK: dict[Platform, dict[str, str]] = {"android": {"label": "Navigate up"}, "ios": {"id": "BackButton"}}


Fleet = tuple[list[Driver], list[SimDevice], Callable[[], tuple[int, int]]]


@contextmanager
def _adb(n: int) -> Iterator[Fleet]:
    devices = [SimDevice("android", f"emulator-{5554 + 2 * k}") for k in range(n)]
    faults = RouteLatency(LATENCY, ("rpc:", "adb:shell", "adb:sync"))
    with ExitStack() as stack:
        face = stack.enter_context(AdbFace(devices, faults=faults))
        config = U2Config(adb_host=face.host, adb_port=face.port, timeout=30.0)
        drivers: list[Driver] = []
        for device in devices:
            driver = U2Driver(device.device_id, config).connect()
            stack.callback(driver.close)
            drivers.append(driver)

        def counts() -> tuple[int, int]:  # connections accepted, requests that reached a phone
            return face.connections, face.requests("rpc:") + face.requests("adb:shell")

        yield drivers, devices, counts


@contextmanager
def _wda(n: int) -> Iterator[Fleet]:
    devices = [SimDevice("ios", f"SIM-IPHONE-{k}") for k in range(n)]
    with ExitStack() as stack:
        drivers: list[Driver] = []
        faces: list[WdaFace] = []
        for device in devices:
            face = stack.enter_context(WdaFace(device, faults=RouteLatency(LATENCY, ("",))))
            faces.append(face)
            driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=30.0).connect()
            stack.callback(driver.close)
            drivers.append(driver)

        def counts() -> tuple[int, int]:
            return sum(f.connections for f in faces), sum(f.faults.count() for f in faces)

        yield drivers, devices, counts


def _flow(platform: Platform, steps: int) -> Callable[[Driver], Planner]:
    plan = [PlannedStep("tap", FORWARD[platform] if k % 2 == 0 else BACK[platform]) for k in range(steps)]
    return lambda driver: ScriptedPlanner(plan)


def _round(drivers: list[Driver], devices: list[SimDevice], steps: int) -> float:
    for device in devices:  # Settings on its first screen, straight on the phone
        device.terminate(APP[device.platform])
        device.launch(APP[device.platform])
    config = TaskRunnerConfig(max_steps=steps)
    tasks = [
        PoolTask(f"flow on {d.device_id}", _flow(d.platform, steps), platform=d.platform, config=config)
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


def run(*, steps: int = 10, rounds: int = 3) -> list[Table]:
    rows: list[list[object]] = []
    builders = {"adb face + U2Driver (Android)": _adb, "WDA faces + WdaDriver (iOS)": _wda}
    for name, build in builders.items():
        base: float | None = None
        for n in COUNTS:
            with build(n) as (drivers, devices, counts):
                _round(drivers, devices, 2)  # warm-up: sessions, caches
                connections, requests = counts()
                took = median([_round(drivers, devices, steps) for _ in range(rounds)])
                connections, requests = (
                    a - b for a, b in zip(counts(), (connections, requests), strict=True)
                )
            throughput = n * steps / took
            base = throughput if base is None else base
            rows.append(
                [
                    name,
                    n,
                    n * steps,
                    f"{took:.2f}",
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
                f"median of {rounds} rounds after a warm-up round.",
                "The simulated phones and their servers run in the benchmark's own process and share its "
                "interpreter lock with the harness, so these figures are a floor.",
                "connections per request: TCP connections the faces accepted in the measured rounds, per "
                "request that reached a phone (adb serves one command or RPC per connection; the "
                "WebDriverAgent drivers keep one connection alive each).",
            ],
        )
    ]


if __name__ == "__main__":
    for table in run(steps=6, rounds=1):
        print(table.render())
