"""What the harness costs per step on top of the device: ``TaskRunner`` against a loop calling the driver.

Both sides make the same device calls per step (one tap, one observation). The loop taps fixed
coordinates; the task loop plans the step, resolves its selector on the latest Scene, executes it,
observes, names the page (semantic enrichment), folds the step into the world model and records it.
The difference of the two, measured interleaved in the same run, is the harness's overhead.

Four devices: the simulated phone as ``SimDriver`` ships, on Android and iOS, whose observation is
its platform's real source text (uiautomator XML, WebDriverAgent XML) parsed by
``drivers.hierarchy.parse_source`` as for a real phone (the direct loop reads the text and parses
nothing, as a client library's user gets it); and the same phones handing over a ready-made Scene
(``SceneSimDriver``), which shows the harness's cost without the parse.

A second, instrumented run times each seam (timing wrappers around the driver, the planner, the
enricher, the executor and the world model) to split the step; the wrappers add about a microsecond
each. Then the same comparison with 100 ms of device latency per call shows the overhead as a
share of a step's wall time.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from amc.core.models import PlannedStep, Platform, Scene, StepResult
from amc.core.selectors import Selector, tap_point
from amc.core.steps import StepRecord
from amc.drivers.base import Driver
from amc.drivers.hierarchy import parse_source
from amc.drivers.simulated import SimDriver
from amc.runtime.executor import Executor, Screen
from amc.runtime.planner import Planner, ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.models import Observation, SemanticScene
from amc.sim.render_android import render_hierarchy
from amc.sim.render_wda import render_xml, wda_tree
from amc.world.model import WorldModel
from amc.world.models import WorldState

from benchmarks.common import SceneSimDriver, Table, interleaved, median

__all__ = ["FLOWS", "SourceSimDriver", "run"]

Clock = defaultdict[str, float]

# Per platform: the app, and the selectors of a step that opens a sub-page and one that comes back.
FLOWS: dict[Platform, tuple[str, dict[str, str], dict[str, str]]] = {
    "android": ("com.android.settings", {"text": "Network & internet"}, {"label": "Navigate up"}),
    "ios": ("com.apple.Preferences", {"text": "General"}, {"id": "BackButton"}),
}


class SourceSimDriver(SimDriver):
    """``SimDriver``'s observation (its platform's real source, parsed by ``parse_source``) split in two:
    ``source()`` is the device's work, the parse the harness's (timed in ``parse_seconds``)."""

    backend = "sim"

    def __init__(self, platform: Platform, **kwargs: object) -> None:
        super().__init__(platform, **kwargs)  # type: ignore[arg-type]
        self.parse_seconds = 0.0

    def _snapshot(self) -> tuple[str, str, str | None]:
        self._call()
        dev = self.device
        with dev._lock:  # as SimDriver.observe: one snapshot of tree, foreground and activity
            tree = dev.tree()
            foreground = dev.foreground()
            activity = dev.foreground_activity() if dev.platform == "android" else None
        if dev.platform == "android":
            return render_hierarchy(tree), foreground, activity
        return render_xml(wda_tree(tree, bundle_id=tree.package)), foreground, activity

    def source(self) -> str:
        """The screen as the platform's source text: what a client library hands its user."""
        return self._snapshot()[0]

    def observe(self) -> Scene:
        started = time.perf_counter()
        source, foreground, activity = self._snapshot()
        dev = self.device
        parsing = time.perf_counter()
        scene = parse_source(source, platform=dev.platform, device_id=dev.device_id, backend=self.backend)
        self.parse_seconds += time.perf_counter() - parsing
        return dataclasses.replace(
            scene,
            foreground_app=scene.foreground_app or foreground,
            activity=activity,
            capture_duration=time.perf_counter() - started,
        )


# --- timing wrappers around the seams ----------------------------------------------------------


class _TimedDriver:
    """Delegates to a driver, adding the time of observations and of actions to ``clock``."""

    def __init__(self, inner: SimDriver, clock: Clock) -> None:
        self.inner, self.clock = inner, clock
        self.backend = inner.backend

    @property
    def device_id(self) -> str:
        return self.inner.device_id

    @property
    def platform(self) -> Platform:
        return self.inner.platform

    def _act(self, call: Callable[[], None]) -> None:
        started = time.perf_counter()
        call()
        self.clock["device action"] += time.perf_counter() - started

    def observe(self) -> Scene:
        started = time.perf_counter()
        scene = self.inner.observe()
        self.clock["observe"] += time.perf_counter() - started
        return scene

    def tap(self, x: int, y: int) -> None:
        self._act(lambda: self.inner.tap(x, y))

    def launch_app(self, app_id: str) -> None:
        self._act(lambda: self.inner.launch_app(app_id))

    def terminate_app(self, app_id: str) -> None:
        self._act(lambda: self.inner.terminate_app(app_id))

    def current_app(self) -> str | None:
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
        return self.inner.screenshot()

    def close(self) -> None:
        self.inner.close()


class _TimedPlanner:
    def __init__(self, inner: Planner, clock: Clock) -> None:
        self.inner, self.clock = inner, clock

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        started = time.perf_counter()
        planned = self.inner.plan(goal=goal, observation=observation, world=world, steps=steps)
        self.clock["plan"] += time.perf_counter() - started
        return planned


class _TimedEnricher:
    def __init__(self, clock: Clock) -> None:
        self.inner, self.clock = DefaultEnricher(), clock

    def enrich(self, scene: Scene) -> SemanticScene | None:
        started = time.perf_counter()
        semantic = self.inner.enrich(scene)
        self.clock["enrich"] += time.perf_counter() - started
        return semantic


class _TimedExecutor(Executor):
    """The executor's own time: the step's wall time minus the device action inside it."""

    def __init__(self, driver: Driver, clock: Clock) -> None:
        super().__init__(driver)
        self.clock = clock

    def execute(self, step: PlannedStep, screen: Screen) -> StepResult:
        device_before = self.clock["device action"]
        started = time.perf_counter()
        result = super().execute(step, screen)
        inside = self.clock["device action"] - device_before
        self.clock["execute"] += time.perf_counter() - started - inside
        return result


class _TimedWorld(WorldModel):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def observe(self, observation: Observation | None, step: PlannedStep, result: StepResult) -> None:
        started = time.perf_counter()
        super().observe(observation, step, result)
        self.clock["world hook"] += time.perf_counter() - started


# --- the two ways ------------------------------------------------------------------------------


def _steps(platform: Platform, n: int) -> list[PlannedStep]:
    _app, forward, back = FLOWS[platform]
    return [PlannedStep("tap", forward if k % 2 == 0 else back) for k in range(n)]


def _fresh(driver: SimDriver) -> None:
    """Settings in front on its first screen (straight on the device: no driver call)."""
    app = FLOWS[driver.platform][0]
    driver.device.terminate(app)
    driver.device.launch(app)


def _points(driver: SimDriver) -> tuple[tuple[int, int], tuple[int, int]]:
    """The coordinates the direct loop taps: the forward row, then the back button."""
    _app, forward, back = FLOWS[driver.platform]
    _fresh(driver)
    first = driver.observe()
    there = tap_point(Selector.from_mapping(forward).resolve(first), first.window)
    driver.tap(*there)
    second = driver.observe()
    home = tap_point(Selector.from_mapping(back).resolve(second), second.window)
    _fresh(driver)
    return there, home


def _direct(driver: SimDriver, n: int, points: tuple[tuple[int, int], tuple[int, int]]) -> Callable[[], int]:
    """Tap fixed points and read the screen as the client library gives it: a Scene for the in-process
    phone, the source text (not parsed) for the phone that answers with source."""
    look: Callable[[], object] = driver.source if isinstance(driver, SourceSimDriver) else driver.observe

    def run() -> int:
        _fresh(driver)
        look()
        for k in range(n):
            driver.tap(*points[k % 2])
            look()
        return n

    return run


def _runner(driver: SimDriver, n: int) -> Callable[[], int]:
    config = TaskRunnerConfig(max_steps=n + 1)

    def run() -> int:
        _fresh(driver)
        result = TaskRunner(driver, ScriptedPlanner(_steps(driver.platform, n)), config=config).run("bench")
        assert result.succeeded and len(result.steps) == n, result.error
        return n

    return run


def _instrumented(driver: SimDriver, n: int, rounds: int) -> dict[str, float]:
    """Median seconds per step of each part of the loop, over ``rounds`` instrumented runs."""
    per_round: list[dict[str, float]] = []
    config = TaskRunnerConfig(max_steps=n + 1)
    for _ in range(rounds):
        _fresh(driver)
        clock: Clock = defaultdict(float)
        timed = _TimedDriver(driver, clock)
        parse_before = getattr(driver, "parse_seconds", 0.0)
        runner = TaskRunner(
            timed,
            _TimedPlanner(ScriptedPlanner(_steps(driver.platform, n)), clock),
            _TimedExecutor(timed, clock),
            config,
            _TimedWorld(clock),
            enricher=_TimedEnricher(clock),
        )
        started = time.perf_counter()
        result = runner.run("bench")
        total = time.perf_counter() - started
        assert result.succeeded, result.error
        parse = getattr(driver, "parse_seconds", 0.0) - parse_before
        parts = dict(clock)
        parts["parse"] = parse
        parts["observe"] = clock["observe"] - parse
        parts["loop & records"] = total - sum(parts.values())
        parts["total"] = total
        per_round.append({k: v / n for k, v in parts.items()})
    return {key: median([r[key] for r in per_round]) for key in per_round[0]}


@dataclass(frozen=True)
class _Row:
    name: str
    parts: dict[str, float]
    runner: float
    direct: float


PARTS = ("observe", "parse", "enrich", "plan", "execute", "device action", "world hook", "loop & records")
HARNESS = ("parse", "enrich", "plan", "execute", "world hook", "loop & records")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f}"


def run(
    *, steps: int = 200, rounds: int = 7, latency_steps: int = 10, latency_rounds: int = 3
) -> list[Table]:
    """The overhead tables: per step split and overhead without latency; share with 100 ms latency."""
    rows: list[_Row] = []
    devices: list[tuple[str, SimDriver]] = [
        ("sim Android: uiautomator XML, parsed", SourceSimDriver("android")),
        ("sim iOS: WDA XML, parsed", SourceSimDriver("ios")),
        ("sim Android: a ready Scene (no parse)", SceneSimDriver("android")),
        ("sim iOS: a ready Scene (no parse)", SceneSimDriver("ios")),
    ]
    for name, driver in devices:
        points = _points(driver)
        _runner(driver, 10)()  # warm caches (selector regexes, xpath views, the parser per thread)
        times = interleaved(
            {"runner": _runner(driver, steps), "direct": _direct(driver, steps, points)}, blocks=rounds
        )
        parts = _instrumented(driver, steps, rounds)
        rows.append(_Row(name, parts, times["runner"].median / steps, times["direct"].median / steps))
    split = Table(
        "Harness overhead per step, no device latency (µs per step, median)",
        ["device", *PARTS, "task loop total", "direct loop", "**harness overhead**"],
        [
            [
                r.name,
                *(_us(r.parts.get(p, 0.0)) for p in PARTS),
                _us(r.runner),
                _us(r.direct),
                f"**{_us(r.runner - r.direct)}**",
            ]
            for r in rows
        ],
        notes=[
            f"{steps} steps per run (a tap found by its selector, alternately opening a sub-page and coming "
            f"back), {rounds} rounds, task loop and direct loop interleaved; overhead = task loop total "
            "minus the direct loop (same device calls: one tap and one observation per step).",
            "observe and device action are the simulated device's own work (building its screen and its "
            "source text); parse, "
            "enrich, plan, execute (dispatch, argument checks, selector resolution), world hook and loop & "
            "records (context, step records, retries bookkeeping) are the harness's, from an instrumented "
            "run whose wrappers add about 1 µs per seam.",
        ],
    )
    share = _latency_share({r.name: r.runner - r.direct for r in rows}, latency_steps, latency_rounds)
    return [split, share]


def _latency_share(overheads: dict[str, float], steps: int, rounds: int) -> Table:
    driver = SourceSimDriver("android", latency=0.1)
    points = _points(driver)
    times = interleaved(
        {"runner": _runner(driver, steps), "direct": _direct(driver, steps, points)}, blocks=rounds
    )
    runner, direct = times["runner"].median / steps, times["direct"].median / steps
    rows: list[list[object]] = [
        ["direct loop (tap + read the source), sim Android", f"{direct * 1e3:,.1f}", ""],
        ["task loop, same device", f"{runner * 1e3:,.1f}", ""],
        ["difference, measured", f"{(runner - direct) * 1e3:,.2f}", f"{(runner - direct) / runner:.2%}"],
    ]
    for name, overhead in overheads.items():
        rows.append(
            [
                f"harness overhead measured without latency: {name}",
                f"{overhead * 1e3:,.2f}",
                f"**{overhead / runner:.2%}**",
            ]
        )
    return Table(
        "Harness overhead with 100 ms device latency per call",
        ["", "ms per step", "share of the step"],
        rows,
        notes=[
            f"{steps} steps per run (plus the first observation), {rounds} rounds, interleaved. Each step "
            "makes two device calls (the tap and the observation), so it cannot take less than 200 ms; the "
            "measured difference is within the jitter of the sleeps, so the shares divide the overhead "
            "measured without latency (table above) by the measured step.",
        ],
    )


if __name__ == "__main__":
    for table in run(steps=50, rounds=3, latency_steps=4, latency_rounds=1):
        print(table.render())
