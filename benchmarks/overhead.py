"""What the harness costs per step on top of the device, measured from inside a real ``TaskRunner`` step.

A task of taps found by their selectors (alternately opening a sub-page and coming back) runs through
``TaskRunner`` with the run timeline attached, as ``amc run`` runs it; every seam the loop already
has is wrapped in a timer on one :class:`PhaseClock` (``perf_counter_ns``): the driver (its
observation and its actions), the parse inside the observation, the enricher, the planner, the
executor, the world model and the timeline listener. The clock charges each nanosecond to exactly
one phase, the innermost open one (a parse inside an observation is the parse's, a device action
inside the executor is the device's), and whatever no seam covers (the session's records, the
observer, the loop itself) to ``loop & records``. So

    harness overhead per step = everything but the device's own time (its observation and actions),

read off one clock in one run, not the difference of two noisy totals.

Four devices: the simulated phone as ``SimDriver`` ships, on Android and iOS, whose observation is its
platform's real source text (uiautomator XML, WebDriverAgent XML) parsed by
``drivers.hierarchy.parse_source`` as for a real phone; and the same phones handing over a ready-made
Scene (``SceneSimDriver``), which shows the harness without the parse. The four run interleaved in
rotating blocks, the allocator trimmed before each run (:func:`benchmarks.common.interleaved`). Then
the same task on a device answering each call in 100 ms gives the overhead's share of a real step.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from amc.actions import Screen
from amc.connect.simulated import SimDriver
from amc.core.models import PlannedStep, Platform, Scene, StepResult
from amc.core.steps import StepRecord
from amc.drivers.base import Driver
from amc.runtime.context import TaskContext
from amc.runtime.executor import Executor
from amc.runtime.planner import Planner, ScriptedPlanner
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.models import Observation, SemanticScene
from amc.storage.timeline import RunInfo, TimelineWriter
from amc.world.model import WorldModel
from amc.world.models import WorldState

from benchmarks.common import SceneSimDriver, Stats, Table, interleaved

__all__ = ["DEVICE", "FLOWS", "HARNESS", "PHASES", "PhaseClock", "SourceSimDriver", "measure", "run"]

# Per platform: the app, and the selectors of a step that opens a sub-page and one that comes back.
FLOWS: dict[Platform, tuple[str, dict[str, str], dict[str, str]]] = {
    "android": ("com.android.settings", {"text": "Network & internet"}, {"label": "Navigate up"}),
    "ios": ("com.apple.Preferences", {"text": "General"}, {"id": "BackButton"}),
}

DEVICE = ("device: observe", "device: action")
HARNESS = ("parse", "enrich", "plan", "execute", "world hook", "timeline", "loop & records")
PHASES = DEVICE + HARNESS
ROOT = "loop & records"


class PhaseClock:
    """Exclusive nanoseconds per phase: each moment is charged to the innermost open phase.

    ``enter(name)`` / ``leave()`` nest; between ``start()`` and ``stop()`` any moment inside no
    phase is the root's (``loop & records``). Costs two ``perf_counter_ns`` calls per seam."""

    def __init__(self) -> None:
        self.totals: dict[str, int] = dict.fromkeys(PHASES, 0)
        self._stack: list[str] = []
        self._since = 0

    def start(self) -> None:
        self._stack = [ROOT]
        self._since = time.perf_counter_ns()

    def stop(self) -> None:
        self.leave()
        if self._stack:
            raise RuntimeError(f"phases left open: {self._stack}")

    def enter(self, name: str) -> None:
        now = time.perf_counter_ns()
        if self._stack:
            self.totals[self._stack[-1]] += now - self._since
        self._stack.append(name)
        self._since = now

    def leave(self) -> None:
        now = time.perf_counter_ns()
        self.totals[self._stack.pop()] += now - self._since
        self._since = now

    def phase(self, name: str) -> _Phase:
        """``with clock.phase(name):`` enters ``name`` and leaves it however the block ends."""
        return _Phase(self, name)


class _Phase:
    __slots__ = ("clock", "name")

    def __init__(self, clock: PhaseClock, name: str) -> None:
        self.clock, self.name = clock, name

    def __enter__(self) -> None:
        self.clock.enter(self.name)

    def __exit__(self, *exc: object) -> None:
        self.clock.leave()


class SourceSimDriver(SimDriver):
    """``SimDriver``'s observation (its platform's real source, parsed by ``parse_source``) split in two:
    ``source()`` is the device's work, the parse (charged to ``clock``'s ``parse``) the harness's."""

    backend = "sim"

    def __init__(self, platform: Platform, **kwargs: object) -> None:
        super().__init__(platform, **kwargs)  # type: ignore[arg-type]
        self.clock: PhaseClock | None = None

    def source(self) -> str:
        """The screen as the platform's source text: what a client library hands its user."""
        return self._snapshot()[0]

    def observe(self) -> Scene:
        started = time.perf_counter()
        snapshot = self._snapshot()
        if self.clock is not None:
            self.clock.enter("parse")
        try:
            return self._scene(*snapshot, started)
        finally:
            if self.clock is not None:
                self.clock.leave()


# --- timers at the seams the loop already has ----------------------------------------------------


class _TimedDriver:
    """Delegates to a driver; its observations and actions are the device's phases."""

    def __init__(self, inner: SimDriver, clock: PhaseClock) -> None:
        self.inner, self.clock = inner, clock
        self.backend = inner.backend

    @property
    def device_id(self) -> str:
        return self.inner.device_id

    @property
    def platform(self) -> Platform:
        return self.inner.platform

    def _act(self, call: Callable[[], None]) -> None:
        with self.clock.phase("device: action"):
            call()

    def observe(self) -> Scene:
        with self.clock.phase("device: observe"):
            return self.inner.observe()

    def tap(self, x: int, y: int) -> None:
        self._act(lambda: self.inner.tap(x, y))

    def launch_app(self, app_id: str) -> None:
        self._act(lambda: self.inner.launch_app(app_id))

    def terminate_app(self, app_id: str) -> None:
        self._act(lambda: self.inner.terminate_app(app_id))

    def current_app(self) -> str | None:
        with self.clock.phase("device: action"):
            return self.inner.current_app()

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        self._act(lambda: self.inner.long_press(x, y, duration))

    def type_text(self, text: str) -> None:
        self._act(lambda: self.inner.type_text(text))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        self._act(lambda: self.inner.swipe(x1, y1, x2, y2, duration))

    def press(self, key: str) -> None:
        self._act(lambda: self.inner.press(key))

    def screenshot(self) -> bytes:
        with self.clock.phase("device: action"):
            return self.inner.screenshot()

    def close(self) -> None:
        self.inner.close()


class _TimedPlanner:
    def __init__(self, inner: Planner, clock: PhaseClock) -> None:
        self.inner, self.clock = inner, clock

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        with self.clock.phase("plan"):
            return self.inner.plan(goal=goal, observation=observation, world=world, steps=steps)


class _TimedEnricher:
    def __init__(self, clock: PhaseClock) -> None:
        self.inner, self.clock = DefaultEnricher(), clock

    def enrich(self, scene: Scene) -> SemanticScene | None:
        with self.clock.phase("enrich"):
            return self.inner.enrich(scene)


class _TimedExecutor(Executor):
    def __init__(self, driver: Driver, clock: PhaseClock) -> None:
        super().__init__(driver)
        self.clock = clock

    def execute(self, step: PlannedStep, screen: Screen) -> StepResult:
        with self.clock.phase("execute"):
            return super().execute(step, screen)


class _TimedWorld(WorldModel):
    def __init__(self, clock: PhaseClock) -> None:
        super().__init__()
        self.clock = clock

    def see(self, scene: Scene | None, semantic_scene: SemanticScene | None = None) -> None:
        with self.clock.phase("world hook"):
            super().see(scene, semantic_scene)

    def observe(
        self,
        scene: Scene | None,
        semantic_scene: SemanticScene | None,
        step: PlannedStep,
        result: StepResult,
    ) -> None:
        with self.clock.phase("world hook"):
            super().observe(scene, semantic_scene, step, result)


class _TimedListener:
    def __init__(self, inner: TimelineRecorder, clock: PhaseClock) -> None:
        self.inner, self.clock = inner, clock

    def __call__(self, record: StepRecord, context: TaskContext) -> None:
        with self.clock.phase("timeline"):
            self.inner(record, context)


# --- one instrumented task ----------------------------------------------------------------------


def _steps(platform: Platform, n: int) -> list[PlannedStep]:
    _app, forward, back = FLOWS[platform]
    return [PlannedStep("tap", forward if k % 2 == 0 else back) for k in range(n)]


def _fresh(driver: SimDriver) -> None:
    """Settings in front on its first screen (straight on the device: no driver call)."""
    app = FLOWS[driver.platform][0]
    driver.device.terminate(app)
    driver.device.launch(app)


def _folder() -> Path:
    """Where the timelines go: tmpfs when there is one, so a shared disk's fsync does not drown the
    harness (each step fsyncs its page source, the folder and its timeline line)."""
    memory = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix="amc-bench-overhead-", dir=memory if memory.is_dir() else None))


def measure(driver: SimDriver, steps: int, out: Path) -> dict[str, float]:
    """One task of ``steps`` taps through ``TaskRunner`` with every seam timed: seconds per step
    of each phase (``PHASES``) and ``total`` (the task loop's wall time, from the same clock)."""
    clock = PhaseClock()
    if isinstance(driver, SourceSimDriver):
        driver.clock = clock
    _fresh(driver)
    timed = _TimedDriver(driver, clock)
    writer = TimelineWriter(Path(tempfile.mkdtemp(dir=out)))
    writer.start(RunInfo("bench", "bench", driver.device_id, driver.platform, driver.backend))
    runner = TaskRunner(
        timed,
        _TimedPlanner(ScriptedPlanner(_steps(driver.platform, steps)), clock),
        _TimedExecutor(timed, clock),
        TaskRunnerConfig(max_steps=steps),
        _TimedWorld(clock),
        enricher=_TimedEnricher(clock),
        listeners=[_TimedListener(TimelineRecorder(writer, timed, screenshots="failure"), clock)],
    )
    clock.start()
    result = runner.run("bench")
    clock.stop()
    writer.finish(result.status.value)
    writer.close()
    if isinstance(driver, SourceSimDriver):
        driver.clock = None
    if not result.succeeded or len(result.steps) != steps:
        raise RuntimeError(f"the benchmark task did not run: {result.status.value}: {result.error}")
    per_step = {name: ns / 1e9 / steps for name, ns in clock.totals.items()}
    per_step["total"] = sum(clock.totals.values()) / 1e9 / steps
    return per_step


def clock_cost(rounds: int = 20_000) -> float:
    """Seconds one timed seam adds (an ``enter`` and a ``leave`` through ``phase()``)."""
    clock = PhaseClock()
    clock.start()
    started = time.perf_counter_ns()
    for _ in range(rounds):
        with clock.phase("plan"):
            pass
    took = time.perf_counter_ns() - started
    clock.stop()
    return took / rounds / 1e9


@dataclass(frozen=True)
class Measured:
    """The per-step phases of one device over the runs (seconds), with their minimum and median."""

    name: str
    runs: tuple[dict[str, float], ...]

    def stats(self, key: str) -> Stats:
        return Stats.of([run[key] for run in self.runs])

    def harness(self, *, timeline: bool = True) -> Stats:
        parts = HARNESS if timeline else tuple(p for p in HARNESS if p != "timeline")
        return Stats.of([sum(run[p] for p in parts) for run in self.runs])

    def device(self) -> Stats:
        return Stats.of([sum(run[p] for p in DEVICE) for run in self.runs])

    def share(self) -> Stats:
        """The harness's part of each run's step (the timeline included)."""
        return Stats.of([sum(run[p] for p in HARNESS) / run["total"] for run in self.runs])


def _measure_all(
    devices: Sequence[tuple[str, SimDriver]], steps: int, blocks: int, out: Path
) -> list[Measured]:
    seen: dict[str, list[dict[str, float]]] = {name: [] for name, _ in devices}

    def contender(name: str, driver: SimDriver) -> Callable[[], object]:
        def go() -> object:
            seen[name].append(measure(driver, steps, out))
            return None

        return go

    interleaved({name: contender(name, driver) for name, driver in devices}, blocks=blocks, warmup=0.0)
    # The first call of each is the untimed warm-up (caches: selector regexes, xpath views, parsers).
    return [Measured(name, tuple(seen[name][-blocks:])) for name, _ in devices]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f}"


def run(
    *, steps: int = 200, rounds: int = 7, latency_steps: int = 20, latency_rounds: int = 5
) -> list[Table]:
    """The overhead tables: every phase per step without latency, and the share with 100 ms latency."""
    devices: list[tuple[str, SimDriver]] = [
        ("sim Android: uiautomator XML, parsed", SourceSimDriver("android")),
        ("sim iOS: WDA XML, parsed", SourceSimDriver("ios")),
        ("sim Android: a ready Scene (no parse)", SceneSimDriver("android")),
        ("sim iOS: a ready Scene (no parse)", SceneSimDriver("ios")),
    ]
    out = _folder()
    try:
        measured = _measure_all(devices, steps, rounds, out)
        slow = _measure_all(
            [("sim Android, 100 ms per call", SourceSimDriver("android", latency=0.1))],
            latency_steps,
            latency_rounds,
            out,
        )[0]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    seam = clock_cost()
    split = Table(
        "Harness overhead per step, no device latency (µs per step, median of the runs)",
        [
            "device",
            *PHASES,
            "task loop total",
            "**harness overhead**",
            "without the timeline",
            "min of the runs",
            "harness share of the step",
        ],
        [
            [
                m.name,
                *(_us(m.stats(p).median) for p in PHASES),
                _us(m.stats("total").median),
                f"**{_us(m.harness().median)}**",
                _us(m.harness(timeline=False).median),
                _us(m.harness().min),
                f"{m.share().median:.1%}",
            ]
            for m in measured
        ],
        notes=[
            f"{steps} steps per task (a tap found by its selector, alternately opening a sub-page and coming "
            f"back; one tap and one observation each), {rounds} tasks per device, the four devices "
            "interleaved in rotating blocks after trimming the allocator "
            "(`python -m benchmarks --only overhead`).",
            "Read off one clock inside the loop: `device: observe` and `device: action` are the simulated "
            "phone's own work (building its screen and its source text, acting); everything else is the "
            "harness's: parse (the source into a Scene), enrich (naming the page), plan, execute (dispatch, "
            "argument checks, selector resolution), world hook, timeline (the run timeline as `amc run` "
            "writes it, on tmpfs: a disk adds its fsyncs) and loop & records (the observer, the step "
            "records, the session's bookkeeping: whatever no seam covers). "
            f"**harness overhead** = their sum; each timed seam adds about {seam * 1e9:,.0f} ns.",
        ],
    )
    total = slow.stats("total").median
    harness = slow.harness().median
    device = slow.device().median
    without = slow.harness(timeline=False).median
    share = Table(
        "Harness overhead with 100 ms device latency per call (sim Android, uiautomator XML parsed)",
        ["", "ms per step", "% of the step", "vs the device's own time"],
        [
            ["the step (task loop total)", f"{total * 1e3:,.1f}", "100%", f"{total / device:.4f}x"],
            [
                "the device's own time (2 calls of 100 ms, and their work)",
                f"{device * 1e3:,.1f}",
                f"{device / total:.2%}",
                "1x",
            ],
            ["**harness overhead**", f"**{harness * 1e3:,.2f}**", f"**{harness / total:.2%}**", ""],
            ["harness overhead without the timeline", f"{without * 1e3:,.2f}", f"{without / total:.2%}", ""],
        ],
        notes=[
            f"{latency_steps} steps per task, {latency_rounds} tasks, each phase timed as above; medians.",
            "`vs the device's own time`: the step's two clocks compared in the same steps (what the "
            "harness makes a step cost over the phone's own time). The `%` column divides the absolute "
            "time of the harness's work after each wait by the step's 200 ms of waiting: like every "
            "absolute time it follows the machine's state (it has moved by more than 10% from one set "
            "of runs to the next where the same work back to back agreed within 1%: "
            "benchmarks/README.md), so it is not one of the ratios `python -m benchmarks.agree` holds "
            "to 10%.",
        ],
    )
    return [split, share]


if __name__ == "__main__":
    for table in run(steps=50, rounds=3, latency_steps=4, latency_rounds=1):
        print(table.render())
