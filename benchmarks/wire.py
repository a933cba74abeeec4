"""Requests and wall time per user action: the harness's adapters against each client used directly.

First, what one ``launch_app`` (Settings from the home screen) and one ``type_text`` (into a
focused field) cost each way, counted at the faces: the harness's launch checks that the app came
to the front (one request the clients do not send), its typing is one request. The contenders are
built in :mod:`benchmarks.contenders`.

The action: on Settings' first screen, tap the row found by its text (``Network & internet`` on
Android, ``General`` on iOS), which opens a sub-page. The harness does it its way, observe once and
tap by a selector resolved on that Scene (``Executor`` with a ``PlannedStep("tap", {"text": …})``);
each client its usual way: facebook-wda ``client(name=…).click()``, uiautomator2
``d(text=…).click()`` and ``d.xpath(…).click()``, Appium ``find_element(…).click()``.

Requests are counted where a phone would see them: at the simulated device's faces (their
``FaultInjector`` counters). On the adb face a request is one that reaches the phone (an RPC to the
uiautomator2 server, a shell command); the adb server's own work on the computer (``host:version``,
``host:transport`` and opening the ``tcp:9008`` stream) is shown apart as adb hops. Every contender has
its own face and phone, so sessions never interfere, and contenders run interleaved round by round.

Then a 20-step flow each way (the row, then back, ten times) with 50 ms added to every request: the
harness through ``TaskRunner`` (which observes after every step: that Scene is the step's outcome and
the next step's input), the clients as 20 element clicks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from amc.core.models import PlannedStep
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.sim.catalog import DEMO_APP
from amc.sim.device import SimDevice

from benchmarks.common import Table, median
from benchmarks.contenders import APPS, BACK, BUILDERS, LATENCY, SUBPAGE, Contender, contenders

__all__ = [
    "BUILDERS",
    "FLOW_STEPS",
    "ActionResult",
    "CallResult",
    "FlowResult",
    "measure_actions",
    "measure_calls",
    "measure_flows",
    "run",
]

FLOW_STEPS = 20


# --- measuring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionResult:
    backend: str
    way: str
    code: str
    harness: bool
    requests: int
    hops: int
    seconds: float
    seconds_latency: float


def _one_action(contender: Contender) -> tuple[int, int, float]:
    contender.reset_screen()
    contender.faults.reset_counts()
    started = time.perf_counter()
    contender.forward()
    took = time.perf_counter() - started
    if not contender.on_subpage():
        raise RuntimeError(f"{contender.way} did not open the sub-page")
    return contender.device_requests(), contender.hops(), took


def measure_actions(backend: str, rounds: int, latency_rounds: int) -> list[ActionResult]:
    """Per contender: requests and hops of one action, and its median wall time without and with
    ``LATENCY`` per request, contenders interleaved round by round."""
    with contenders(backend) as made:
        counts: dict[str, set[tuple[int, int]]] = {c.way: set() for c in made}
        plain: dict[str, list[float]] = {c.way: [] for c in made}
        slow: dict[str, list[float]] = {c.way: [] for c in made}
        for _ in range(rounds):
            for c in made:
                requests, hops, took = _one_action(c)
                counts[c.way].add((requests, hops))
                plain[c.way].append(took)
        for c in made:
            c.set_latency(LATENCY)
        for _ in range(latency_rounds):
            for c in made:
                slow[c.way].append(_one_action(c)[2])
        out = []
        for c in made:
            (requests, hops), *others = sorted(counts[c.way])
            if others:
                raise RuntimeError(f"{c.way}: the request count varied: {sorted(counts[c.way])}")
            out.append(
                ActionResult(
                    c.backend,
                    c.way,
                    c.code,
                    c.harness,
                    requests,
                    hops,
                    median(plain[c.way]),
                    median(slow[c.way]),
                )
            )
        return out


@dataclass(frozen=True)
class FlowResult:
    backend: str
    way: str
    harness: bool
    steps: int
    requests: int
    seconds: float


def _flow(contender: Contender, steps: int) -> tuple[int, float]:
    contender.reset_screen()
    contender.faults.reset_counts()
    started = time.perf_counter()
    if contender.harness:
        assert contender.driver is not None
        platform = contender.platform
        plan = [
            PlannedStep("tap", {"text": SUBPAGE[platform][1]} if k % 2 == 0 else BACK[platform])
            for k in range(steps)
        ]
        config = TaskRunnerConfig(max_steps=steps)
        result = TaskRunner(contender.driver, ScriptedPlanner(plan), config=config).run("20 steps")
        if not result.succeeded or len(result.steps) != steps:
            raise RuntimeError(f"the harness's flow failed: {result.error}")
    else:
        for k in range(steps):
            (contender.forward if k % 2 == 0 else contender.back)()
    return contender.device_requests(), time.perf_counter() - started


def measure_flows(backend: str, steps: int, rounds: int, latency: float = LATENCY) -> list[FlowResult]:
    """Per contender: requests of a ``steps``-step flow and its median wall time, ``latency`` per request."""
    with contenders(backend) as made:
        for c in made:
            c.set_latency(latency)
        seen: dict[str, list[tuple[int, float]]] = {c.way: [] for c in made}
        for _ in range(rounds):
            for c in made:
                seen[c.way].append(_flow(c, steps))
        return [
            FlowResult(
                c.backend,
                c.way,
                c.harness,
                steps,
                max(r for r, _ in seen[c.way]),
                median([s for _, s in seen[c.way]]),
            )
            for c in made
        ]


@dataclass(frozen=True)
class CallResult:
    """Requests of one ``launch_app`` (Settings from the home screen) and one ``type_text`` ("qa"
    into a focused field, after one unmeasured call) for one way."""

    backend: str
    way: str
    harness: bool
    launch_code: str
    launch_requests: int
    typing_code: str
    typing_requests: int
    first_typing_requests: int


def _focus_user_name(device: SimDevice) -> None:
    """The demo app's sign-in screen, its user name field focused, straight on the phone."""
    device.launch(DEMO_APP)
    node = next(n for n in device.tree().iter() if n.ref == "widget:username")
    device.tap(*node.bounds.center)
    if not device.keyboard_shown():
        raise RuntimeError("the demo app's user name field did not take the focus")


def measure_calls(backend: str) -> list[CallResult]:
    """Per way (the uiautomator2 client once): the requests of a launch and of typing."""
    out: list[CallResult] = []
    with contenders(backend) as made:
        for c in made:
            if c.launch is None or c.typing is None or any(r.launch_code == c.launch_code for r in out):
                continue
            app = APPS[c.platform]
            c.device.home()
            c.faults.reset_counts()
            c.launch(app)
            launched = c.device_requests()
            if c.device.foreground() != app:
                raise RuntimeError(f"{c.way}: {app} is not in front after the launch")
            _focus_user_name(c.device)
            c.faults.reset_counts()
            c.typing("q")  # the first call: it may select an input method or open a session
            first = c.device_requests()
            c.faults.reset_counts()
            c.typing("qa")
            typed = c.device_requests()
            run = c.device.current_run()
            if run is None or not run.values.get("username", "").endswith("qa"):
                raise RuntimeError(f"{c.way}: the field holds {run and run.values.get('username')!r}")
            way = c.way if c.harness else c.way.split(" (")[0]  # uiautomator2's calls: one row
            out.append(
                CallResult(c.backend, way, c.harness, c.launch_code, launched, c.typing_code, typed, first)
            )
    return out


def _difference(more: int) -> str:
    return "level" if more == 0 else f"harness {more:+d}"


def _verdict(mine: float, theirs: float) -> str:
    if mine < theirs:
        return "ahead"
    return "level" if mine == theirs else "**behind**"


def run(*, rounds: int = 15, latency_rounds: int = 5, flow_rounds: int = 3) -> list[Table]:
    calls = [r for backend in BUILDERS for r in measure_calls(backend)]
    actions = [r for backend in BUILDERS for r in measure_actions(backend, rounds, latency_rounds)]
    flows = [r for backend in BUILDERS for r in measure_flows(backend, FLOW_STEPS, flow_rounds)]
    action_rows: list[list[object]] = []
    for r in actions:
        mine = next(a for a in actions if a.backend == r.backend and a.harness)
        verdict = "" if r.harness else f"harness {_verdict(mine.requests, r.requests)}"
        action_rows.append(
            [
                r.backend,
                r.way,
                f"`{r.code}`",
                f"**{r.requests}**",
                r.hops if r.hops else "",
                f"{r.seconds * 1e3:.2f}",
                f"{r.seconds_latency * 1e3:.1f}",
                verdict,
            ]
        )
    flow_rows: list[list[object]] = []
    for f in flows:
        ours = next(g for g in flows if g.backend == f.backend and g.harness)
        verdict = "" if f.harness else f"harness {_verdict(ours.requests, f.requests)}"
        flow_rows.append(
            [
                f.backend,
                f.way,
                f.requests,
                f"{f.requests / f.steps:.2f}",
                f"{f.seconds:.2f}",
                f"{f.seconds / f.steps * 1e3:.0f}",
                verdict,
            ]
        )
    call_rows: list[list[object]] = []
    for r in calls:
        ours = next(g for g in calls if g.backend == r.backend and g.harness)
        call_rows.append(
            [
                r.backend,
                r.way,
                f"`{r.launch_code}`",
                f"**{r.launch_requests}**",
                "" if r.harness else _difference(ours.launch_requests - r.launch_requests),
                f"`{r.typing_code}`",
                f"**{r.typing_requests}**",
                "" if r.harness else _difference(ours.typing_requests - r.typing_requests),
                r.first_typing_requests,
                "" if r.harness else _difference(ours.first_typing_requests - r.first_typing_requests),
            ]
        )
    return [
        Table(
            "Requests per call: launch an app, type into a field",
            [
                "backend",
                "way",
                "launch",
                "requests",
                "vs client",
                "type",
                "requests",
                "vs client",
                "first type",
                "vs client (first)",
            ],
            call_rows,
            notes=[
                'launch: Settings from the home screen; type: "qa" into the demo app\'s focused user '
                "name field, after one call counted apart (first type: a driver's or client's first "
                "call; over uiautomator2 it makes AdbKeyboard the phone's current input method, "
                "which it is not when the phone starts).",
                "The harness's launch is the launch and one check that the app came to the front (the "
                "clients send the launch alone and check nothing): one request more, the one "
                "verification. Its typing over uiautomator2 is one AdbKeyboard broadcast whose "
                "answer says a field took the text; uiautomator2's send_keys also asks whether "
                "AdbKeyboard is installed and current and hides the keyboard afterwards.",
            ],
        ),
        Table(
            "Requests and wall time per user action: tap an element found by its text",
            [
                "backend",
                "way",
                "code",
                "requests",
                "adb hops",
                "ms, no latency",
                f"ms, {LATENCY * 1e3:.0f} ms/request",
                "requests vs harness",
            ],
            action_rows,
            notes=[
                f"Median of {rounds} rounds (no latency) and {latency_rounds} rounds (with latency), "
                "contenders interleaved; each on its own face and phone, after one unmeasured action.",
                "The harness's action is a full observation (the page source, parsed into a Scene) plus "
                "the tap: the Scene is kept, so the next step's selectors (and the world model) need no "
                "further request. A client's element lookup answers one question and keeps nothing.",
                "adb hops: requests the adb server answers on the computer (host:version, host:transport, "
                "opening the tcp:9008 stream); the stock adbutils client asks host:version before every "
                "command, the harness's client once per connection.",
            ],
        ),
        Table(
            f"A {FLOW_STEPS}-step flow with {LATENCY * 1e3:.0f} ms per request "
            "(the row, then back, ten times)",
            ["backend", "way", "requests", "per step", "wall s", "ms per step", "requests vs harness"],
            flow_rows,
            notes=[
                f"Median wall time of {flow_rounds} runs. The harness runs the flow through TaskRunner, "
                "which observes once before the first step and after every step (the step's outcome, "
                "kept in the run timeline, and the next step's input): 1 + 20 x (tap + observe).",
            ],
        ),
    ]


if __name__ == "__main__":
    for table in run(rounds=3, latency_rounds=1, flow_rounds=1):
        print(table.render())
