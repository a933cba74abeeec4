"""Maestro's integration cases (``tests/fixtures/maestro/integration/cases.yaml``): reading them,
running one through ``amc run`` against the layout it names, and matching Maestro's events.

A case runs as a user runs a flow: ``amc run FLOW --device sim:ios --env K=V`` in process, with
``drivers.connect.connect`` answering that spec with a :class:`LayoutDriver` playing the case's
layout (the one seam), so the flow is read, checked (``amc check``'s rules refuse before the run)
and run through the real loop (``FlowPlanner`` + ``TaskRunner``), and written to a run folder. The
waits of the run (a lookup's 17 s, a settle's timeout) pass on a virtual clock, as Maestro's test
swaps ``MaestroTimer`` for a ``FakeTimer`` and gives ``Orchestra`` lookup timeouts of 0.

How Maestro's events meet this harness's driver calls (:func:`matches`): ``Tap``, ``LongPress``,
``InputText``, ``LaunchApp``, ``StopApp``, ``ClearState``, ``OpenLink``, ``SetLocation``,
``HideKeyboard``, ``TakeScreenshot`` and ``Swipe`` are the calls of the same name; ``BackPress``
and ``PressKey(BACK)`` are both a press of ``back`` (this harness has one back key);
``PressKey(BACKSPACE)`` is ``erase_text(1)`` (as this harness's reader writes it); ``Scroll``
(``scrollVertical``) is a swipe up from the screen's centre; ``SwipeWithDirection`` is a swipe
that way over that duration; ``SwipeElementWithDirection`` is a swipe that way, over that
duration, starting at or centred on the element's point. The rest (``KillApp``,
``ClearKeychain``, ``SetPermissions``, recording, ``AddMedia``, launch arguments) are calls this
harness's ``Driver`` does not have yet; :class:`LayoutDriver` records them under the names the
branches adding them are expected to use.
"""

from __future__ import annotations

import io
import math
import re
import time
import types
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from amc import connect as connect_module
from amc.actions import scroll_until_visible, settle, waiting
from amc.cli import main
from amc.core.models import Platform
from amc.runtime import cancel as cancel_module
from amc.storage.timeline import read_timeline

from .layout_driver import SCREEN, Event, LayoutDriver, build_layout

__all__ = ["CASES", "CORPUS", "Case", "Run", "load_cases", "matches", "run_case", "virtual_clock"]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "maestro"
CORPUS = FIXTURES / "corpus" / "mobile-dev-inc__maestro" / "maestro-test" / "src" / "test" / "resources"
SNAPSHOT = FIXTURES / "integration" / "flows"
CASES = FIXTURES / "integration" / "cases.yaml"

# What each of Maestro's expected exceptions is here: the error kind of the first failed step.
OUTCOMES = {
    "AssertionFailure": "AssertionFailed",
    "ElementNotFound": "TargetNotFound",
    "UnableToLaunchApp": "AppNotInstalled",
}


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    data: Mapping[str, Any]

    @property
    def flow(self) -> Path:
        folder = SNAPSHOT if self.data.get("source") == "snapshot" else CORPUS
        return folder / str(self.data["flow"])


def load_cases() -> list[Case]:
    raw = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    return [Case(str(c["id"]), str(c["title"]), c) for c in raw]


@dataclass(frozen=True)
class Run:
    """What ``amc run`` did with a case: its exit code, stderr, the steps of its timeline, and
    the events the driver recorded."""

    code: int
    out: str
    err: str
    steps: list[dict[str, Any]]
    events: list[Event]
    typed: str
    files: tuple[str, ...] = ()  # the names of the files the run wrote, anywhere under --out

    @property
    def failed_kind(self) -> str | None:
        for step in self.steps:
            if step["status"] == "failed":
                return str(step["result"]["error_kind"])
        return None

    @property
    def failed_error(self) -> str | None:
        for step in self.steps:
            if step["status"] == "failed":
                return str(step["result"]["error"])
        return None

    @property
    def logs(self) -> list[str]:
        out: list[str] = []
        for step in self.steps:
            output = (step.get("result") or {}).get("output") or {}
            out += [str(line) for line in output.get("logs", ())] if isinstance(output, dict) else []
        return out


@contextmanager
def virtual_clock() -> Iterator[None]:
    """The loop's waits on a clock that a pause moves on at once (``MaestroTimer`` → ``FakeTimer``)."""
    now = [1000.0]
    clock = types.SimpleNamespace(monotonic=lambda: now[0], time=time.time, sleep=lambda s: None)
    modules = (waiting, settle, scroll_until_visible)
    saved = [m.time for m in modules]
    pause = cancel_module.Cancel.pause

    def fast_pause(
        self: cancel_module.Cancel, seconds: float, where: str = "while waiting for the screen"
    ) -> None:
        now[0] += max(0.0, seconds)
        self.check(where)

    try:
        for m in modules:
            m.time = clock  # type: ignore[attr-defined]
        cancel_module.Cancel.pause = fast_pause  # type: ignore[method-assign]
        yield
    finally:
        for m, original in zip(modules, saved, strict=True):
            m.time = original  # type: ignore[attr-defined]
        cancel_module.Cancel.pause = pause  # type: ignore[method-assign]


def run_case(case: Case, out: Path, monkeypatch: Any, platform: Platform = "ios") -> Run:
    """``amc run`` of the case's flow on a :class:`LayoutDriver` playing its layout (an iPhone, as
    FakeDriver.deviceInfo() says, unless ``platform`` says otherwise)."""
    layout = build_layout(case.data.get("layout") or ())
    driver = LayoutDriver(layout, case.data.get("installed") or (), platform=platform)
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: driver)
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])
    argv = ["run", str(case.flow), "--device", "sim:ios", "--out", str(out), "--screenshots", "never"]
    for key, value in (case.data.get("env") or {}).items():
        argv += ["--env", f"{key}={value}"]
    stdout, stderr = io.StringIO(), io.StringIO()
    with virtual_clock():
        code = main(argv, out=stdout, err=stderr)
    folders = [p for p in out.iterdir() if p.is_dir()] if out.exists() else []
    steps = list(read_timeline(folders[0]).steps) if folders else []
    written = tuple(sorted(p.name for p in out.rglob("*") if p.is_file())) if out.exists() else ()
    return Run(code, stdout.getvalue(), stderr.getvalue(), steps, list(driver.events), driver.typed, written)


# -- Maestro's events against the recorded ones --------------------------------------------------


def _direction(event: Event) -> str | None:
    x1, y1, x2, y2, _ms = event.args
    dx, dy = x2 - x1, y2 - y1
    if dx == dy == 0:
        return None
    if abs(dx) >= abs(dy):
        return "RIGHT" if dx > 0 else "LEFT"
    return "DOWN" if dy > 0 else "UP"


def matches(expected: Any, got: Event) -> bool:
    """Whether the recorded ``got`` is Maestro's ``expected`` (a name, or ``{name: args}``)."""
    if isinstance(expected, str):
        name, args = expected, []
    else:
        ((name, value),) = expected.items()
        args = value if isinstance(value, list) else [value]
    if name in ("BackPress",) or (name == "PressKey" and args == ["BACK"]):
        return got == Event("BackPress")
    if name == "PressKey" and args == ["BACKSPACE"]:
        return got == Event("EraseText", (1,))
    if name == "Scroll":
        return (
            got.name == "Swipe"
            and got.args[:2] == (SCREEN[0] // 2, SCREEN[1] // 2)
            and _direction(got) == "UP"
        )
    if name == "SwipeWithDirection":
        return got.name == "Swipe" and _direction(got) == args[0] and got.args[4] == args[1]
    if name == "SwipeElementWithDirection":
        if got.name != "Swipe" or _direction(got) != args[2] or got.args[4] != args[3]:
            return False
        x1, y1, x2, y2, _ = got.args
        point = (args[0], args[1])
        return (x1, y1) == point or ((x1 + x2) // 2, (y1 + y2) // 2) == point
    if name == "SetLocation":
        return got.name == name and all(
            math.isclose(a, b, abs_tol=1e-9) for a, b in zip(got.args, args, strict=True)
        )
    return got.name == name and list(got.args) == args


def contains_in_order(expected: Sequence[Any], events: Sequence[Event]) -> bool:
    """``assertThat(events).containsAtLeastElementsIn(expected).inOrder()``."""
    at = 0
    for want in expected:
        while at < len(events) and not matches(want, events[at]):
            at += 1
        if at == len(events):
            return False
        at += 1
    return True


def check_events(case: Case, run: Run) -> list[str]:
    """Each of the case's event assertions that the run does not meet, said in Maestro's terms."""
    data, events = case.data, run.events
    shown = ", ".join(map(str, events)) or "none"
    problems: list[str] = []
    if data.get("no_interaction") and events:
        problems.append(f"expected no interaction, got {shown}")
    for wanted in data.get("events_in_order") or ():
        if not contains_in_order(wanted, events):
            problems.append(f"expected in order {wanted}, got {shown}")
    for wanted in data.get("has") or ():
        if not any(matches(wanted, e) for e in events):
            problems.append(f"expected event {wanted}, got {shown}")
    for unwanted in data.get("lacks") or ():
        if any(matches(unwanted, e) for e in events):
            problems.append(f"expected no event {unwanted}, got {shown}")
    for entry in data.get("counts") or ():
        n = sum(matches(entry["event"], e) for e in events)
        if n != entry["count"]:
            problems.append(f"expected {entry['event']} {entry['count']} times, got {n}: {shown}")
    if "typed" in data and run.typed != data["typed"]:
        problems.append(f"expected the text input {data['typed']!r}, got {run.typed!r}")
    inputs = [str(e.args[0]) for e in events if e.name == "InputText"]
    if "inputs_all" in data and not (inputs and all(re.search(data["inputs_all"], t) for t in inputs)):
        problems.append(f"expected every input to match {data['inputs_all']!r}, got {inputs}")
    for pattern in data.get("inputs_any") or ():
        if not any(re.search(pattern, t) for t in inputs):
            problems.append(f"expected an input matching {pattern!r}, got {inputs}")
    for name in data.get("files") or ():
        # Maestro writes the file in its working folder; here it is kept in the run folder. A
        # recording may be any video or animated picture: its name without the suffix is compared.
        stem = name.rsplit(".", 1)[0] if name.endswith(".mp4") else None
        if not any(f == name or (stem is not None and f.rsplit(".", 1)[0] == stem) for f in run.files):
            problems.append(f"expected a file {name!r}, the run wrote {list(run.files)}")
    if "logs" in data and run.logs != list(data["logs"]):
        problems.append(f"expected the logs {data['logs']}, got {run.logs}")
    return problems


def check_outcome(case: Case, run: Run) -> list[str]:
    """Maestro's outcome: the flow passes (exit 0), or fails (exit 1) at a step of the error kind
    Maestro's exception is here."""
    want = str(case.data["outcome"])
    said = run.failed_error or (run.err.strip() or run.out.strip())[-400:]
    where = f"exit {run.code}, first failure {run.failed_kind}: {said}"
    if want == "passes":
        return [] if run.code == 0 else [f"expected the flow to pass, got {where}"]
    kind = OUTCOMES[want]
    if run.code == 1 and run.failed_kind == kind:
        return []
    return [f"expected {want} (a step failing with {kind}), got {where}"]
