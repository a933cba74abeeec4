"""What waiting for the screen to settle costs, by three rules in the same run, interleaved: the
device's own idle signal then one look (``idle``, the default), two looks in a row that agree
(``looks``, the rule before it) and Maestro's (``maestro``: two equal hierarchies in a row, as
maestro-client's ``ScreenshotUtils.waitForAppToSettle`` reads them), each on the simulated device in
process and over the WebDriverAgent and adb (uiautomator2) faces with a phone's latency.

- **A static screen**: a tap where nothing reacts; page sources and idle queries after the tap,
  counted where the phone sees them (the faces' ``FaultInjector``; the in-process driver's own
  calls), and the time per step against the same step with the settle off.
- **Timed transitions**: taps that open a page and ``back`` on the simulated phone's realistic
  timing (a page slides in over 100-400 ms); each step's time against the least it can take: until
  the device's transition is over (read from the simulated device), then one look. A step whose
  settled look was taken before the slide's end, or shows the page being left, settled too early.

Run: ``python benchmarks/settle.py`` (``--quick`` for a smoke run); ``python -m benchmarks`` runs it
as the ``settle`` suite.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from amc.actions.settle import SETTLE_RULES, SettleConfig, signature  # noqa: E402
from amc.core.models import PlannedStep, Platform, Scene  # noqa: E402
from amc.drivers.base import Driver  # noqa: E402
from amc.drivers.simulated import SimDriver  # noqa: E402
from amc.drivers.u2 import U2Config, U2Driver  # noqa: E402
from amc.drivers.wda import WdaDriver  # noqa: E402
from amc.runtime.planner import ScriptedPlanner  # noqa: E402
from amc.runtime.session import Session  # noqa: E402
from amc.runtime.task import TaskRunner, TaskRunnerConfig  # noqa: E402
from amc.sim.adb_face import AdbFace  # noqa: E402
from amc.sim.device import REALISTIC, SimDevice  # noqa: E402
from amc.sim.wda_face import WdaFace  # noqa: E402

from benchmarks.common import RouteLatency, Table, interleaved, keep_off_real_adb, rotations  # noqa: E402

__all__ = ["BACKENDS", "PHONE_LATENCY", "run"]

PHONE_LATENCY = 0.2  # seconds per device request, as a phone's page source takes
BACKENDS = ("simulated device", "WebDriverAgent face", "adb face (uiautomator2)")
OFF = "settle off"
APPS: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
PAGE: dict[Platform, str] = {"android": "Network & internet", "ios": "General"}
BACK: dict[Platform, PlannedStep] = {
    "android": PlannedStep("press", {"key": "back"}),
    "ios": PlannedStep("tap", {"id": "BackButton"}),
}


class _Counted(SimDriver):
    """The simulated device in process, its page sources and idle queries counted."""

    def __init__(self, device: SimDevice, latency: float) -> None:
        super().__init__(device.platform, device=device, latency=latency)
        self.looks = self.idles = 0

    def observe(self) -> Scene:
        self.looks += 1
        return super().observe()

    def wait_idle(self, timeout: float) -> bool:
        self.idles += 1
        return super().wait_idle(timeout)


@dataclass
class Rig:
    """One backend: its simulated phone, the driver over it, and how to count what the phone saw."""

    name: str
    device: SimDevice
    driver: Driver
    counts: Callable[[], tuple[int, int]]  # (page sources, idle queries) so far
    latency: Callable[[float], None]
    sessions: dict[str, Session] = field(default_factory=dict)
    acted_after: float = 0.0  # seconds from a step's start until its action reaches the phone

    def session(self, rule: str) -> Session:
        """The rule's own task on this phone (``settle off`` for the baseline)."""
        if rule not in self.sessions:
            settle = SettleConfig(timeout=0) if rule == OFF else SettleConfig(rule=rule)
            config = TaskRunnerConfig(settle=settle, semantic=False)
            runner = TaskRunner(self.driver, ScriptedPlanner([]), config=config)
            self.sessions[rule] = runner.session(f"settle: {rule}")
            self.sessions[rule].look()
        return self.sessions[rule]


@contextmanager
def rig(name: str, latency: float) -> Iterator[Rig]:
    """A backend on a phone of realistic timing, every request to the phone ``latency`` s late."""
    platform: Platform = "ios" if name.startswith("WebDriverAgent") else "android"
    device = SimDevice(platform, device_id=f"settle-{platform}", timing=REALISTIC)
    if name == "simulated device":
        sim = _Counted(device, latency)

        def set_sim(seconds: float) -> None:
            sim.latency = seconds

        yield Rig(name, device, sim, lambda: (sim.looks, sim.idles), set_sim)
        return
    faults = RouteLatency(latency, ("",) if platform == "ios" else ("rpc:", "adb:shell", "adb:sync"))
    if platform == "ios":
        face: WdaFace | AdbFace = WdaFace(device, faults=faults).start()
        driver: Driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=30.0).connect()
        routes = ("source", "settings")
    else:
        face = AdbFace([device], faults=faults).start()
        driver = U2Driver(device.device_id, U2Config(adb_host=face.host, adb_port=face.port, timeout=30.0))
        driver = driver.connect()  # type: ignore[attr-defined]
        routes = ("rpc:dumpWindowHierarchy", "rpc:waitForIdle")

    def set_face(seconds: float) -> None:
        faults.route_latency = seconds

    try:
        yield Rig(name, device, driver, lambda: (faults.count(routes[0]), faults.count(routes[1])), set_face)
    finally:
        driver.close()
        face.stop()


def _ready(r: Rig) -> None:
    """Settings in front on its first screen, the last change long enough ago for any idle signal."""
    app = APPS[r.device.platform]
    if r.device.foreground() != app or r.device.current_run() is None:
        r.device.launch(app)
    while r.device.idle_left(REALISTIC.android_idle_quiet) > 0:
        time.sleep(0.02)


# --- a static screen ---------------------------------------------------------------------------


def _static_step(r: Rig, rule: str) -> tuple[int, int]:
    """One tap where nothing reacts, with ``rule``'s settle: (page sources, idle queries) after it."""
    session = r.session(rule)
    looks, idles = r.counts()
    session.run_step(PlannedStep("tap", {"x": 1, "y": 1}))
    after = r.counts()
    return after[0] - looks, after[1] - idles


def _static_rows(r: Rig, latency: float, blocks: int) -> list[list[object]]:
    r.latency(latency)
    _ready(r)
    rules = (*SETTLE_RULES, OFF)
    for rule in rules:  # a session's first step (WebDriverAgent and Appium read their settings once)
        _static_step(r, rule)
    counted = {rule: _static_step(r, rule) for rule in rules}
    stats = interleaved({rule: lambda rule=rule: _static_step(r, rule) for rule in rules}, blocks=blocks)
    base = stats[OFF]
    per_call = "none (in process)" if latency == 0 else f"{latency * 1000:.0f} ms"
    return [
        [
            r.name,
            per_call,
            rule,
            counted[rule][0],
            counted[rule][1],
            f"{stats[rule].median * 1000:.1f}",
            f"{stats[rule].median / base.median:.2f}x",
        ]
        for rule in rules
    ]


def _static_table(rigs: list[Rig], blocks: int) -> Table:
    rows: list[list[object]] = []
    for r in rigs:
        latencies = (0.0, PHONE_LATENCY) if r.name == "simulated device" else (PHONE_LATENCY,)
        for latency in latencies:
            rows += _static_rows(r, latency, blocks)
    return Table(
        "Settling on a screen that does not change (a tap where nothing reacts, on a phone's timing)",
        [
            "backend",
            "device request latency",
            "rule",
            "page sources after the tap",
            "idle queries after the tap",
            "ms per step (median)",
            "vs settle off",
        ],
        rows,
        [
            f"{blocks} interleaved blocks per backend and latency (the order rotating); a step is the "
            "tap and what its rule asks after it; the counts are the phone's (the faces' counters), "
            "after each session's first step.",
            "idle: uiautomator2's waitForIdle RPC (one request), WebDriverAgent's source that waits "
            "for quiescence itself (no request: its cool-off setting is read once per session), the "
            "simulated device's own answer (one call). looks: a second page source 0.2 s after the "
            "first. maestro: a second page source at once.",
        ],
    )


# --- timed transitions -------------------------------------------------------------------------


@dataclass
class _Steps:
    took: list[float] = field(default_factory=list)
    least: list[float] = field(default_factory=list)
    transition: list[float] = field(default_factory=list)
    early: int = 0


def _one_look(r: Rig) -> float:
    """The median time of one page source over this backend, on a still screen."""
    _ready(r)
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        r.driver.observe()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def _transition_step(r: Rig, rule: str, step: PlannedStep, look: float, out: _Steps) -> None:
    session = r.session(rule)
    started = time.perf_counter()
    outcome = session.run_step(step)
    took = time.perf_counter() - started
    sliding = r.device.transition_left() > 0  # the settled look was taken before the slide's end
    ended_at = _slide_end(r, started)
    out.took.append(took)
    out.least.append(ended_at - started + look)
    out.transition.append(r.device.last_transition)
    record = outcome.record
    left = record.scene is None or (
        record.acted_on is not None and signature(record.scene) == signature(record.acted_on)
    )
    if sliding or left or not record.result.success:
        out.early += 1
    time.sleep(max(0.0, ended_at - time.perf_counter()))
    _ready(r)


def _slide_end(r: Rig, started: float) -> float:
    """When the device's last transition ended, on the benchmark's clock: the simulated device's
    slide runs ``last_transition`` from when the action reached it, which is the step's start plus
    the action's own request (the latency before the phone acts on it)."""
    left = r.device.transition_left()
    if left > 0:  # still sliding now
        return time.perf_counter() + left
    return started + r.acted_after + r.device.last_transition


def _transition_table(rigs: list[Rig], rounds: int) -> Table:
    rows: list[list[object]] = []
    for r in rigs:
        r.latency(0.0 if r.name == "simulated device" else PHONE_LATENCY)
        look = _one_look(r)
        r.acted_after = 0.0 if r.name == "simulated device" else PHONE_LATENCY
        platform = r.device.platform
        steps = (PlannedStep("tap", {"text": PAGE[platform]}), BACK[platform])
        results = {rule: _Steps() for rule in SETTLE_RULES}
        for order in rotations(SETTLE_RULES, rounds):
            for rule in order:
                for step in steps:
                    _transition_step(r, rule, step, look, results[rule])
        for rule, s in results.items():
            rows.append(
                [
                    r.name,
                    "none (in process)" if r.name == "simulated device" else f"{PHONE_LATENCY * 1000:.0f} ms",
                    rule,
                    len(s.took),
                    f"{statistics.median(s.transition) * 1000:.0f}",
                    f"{statistics.median(s.least) * 1000:.0f}",
                    f"{statistics.median(s.took) * 1000:.0f}",
                    f"{sum(s.took) / sum(s.least):.2f}x",
                    s.early,
                ]
            )
    return Table(
        "Settling on the simulated phone's timed transitions (a page slides in over 100-400 ms, then back)",
        [
            "backend",
            "device request latency",
            "rule",
            "steps",
            "device's transition, ms (median)",
            "least step, ms (median)",
            "step, ms (median)",
            "steps' total vs the least",
            "steps settled too early",
        ],
        rows,
        [
            f"{rounds} rounds, the rules' order rotating; each round a tap that opens a page and a "
            "step back, per rule. The least step: from the step's start until the device's "
            "transition is over (the action's request, then the slide, read from the simulated "
            "device), then one page source (its median on a still screen over the same backend).",
            "Too early: the step's settled look was taken before the device's transition was over, "
            "or it is the page the step acted on (the page being left).",
            "Between steps the benchmark waits until the phone has been still for 0.5 s (outside the "
            "timed step), so every step starts from an idle phone.",
        ],
    )


def run(*, blocks: int = 5, rounds: int = 6) -> list[Table]:
    keep_off_real_adb()
    with (
        rig(BACKENDS[0], 0.0) as sim,
        rig(BACKENDS[1], PHONE_LATENCY) as wda,
        rig(BACKENDS[2], PHONE_LATENCY) as u2,
    ):
        rigs = [sim, wda, u2]
        return [_static_table(rigs, blocks), _transition_table(rigs, rounds)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    tables = run(blocks=2, rounds=1) if args.quick else run()
    print("\n".join(t.render() for t in tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
