"""The settle asks the device's own idle signal (issue 42): on a static screen a step costs one
idle query more than with the settle off and never a second page source, counted where the phone
sees them (each face's counters); after a page change no step is judged settled before the device's
transition is over, on every backend; and each face answers its idle signal after the last change,
never sooner."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from amc.actions.settle import SettleConfig, signature
from amc.core.models import PlannedStep, Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.base import Driver
from amc.drivers.simulated import SimDriver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.session import Session
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.sim.adb_face import AdbFace
from amc.sim.appium_face import AppiumFace
from amc.sim.device import REALISTIC, SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.wda_face import WdaFace

BACKENDS = ("sim", "u2", "wda", "appium-android", "appium-ios")
APPS: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
PAGE: dict[Platform, str] = {"android": "Network & internet", "ios": "General"}
# The page source and idle routes as each face counts them (None: not a request of its own).
ROUTES: dict[str, tuple[str, str | None]] = {
    "u2": ("rpc:dumpWindowHierarchy", "rpc:waitForIdle"),
    "wda": ("source", "settings"),
    "appium-android": ("source", "get_settings"),
    "appium-ios": ("source", "get_settings"),
}


class _CountedSim(SimDriver):
    def __init__(self, device: SimDevice) -> None:
        super().__init__(device.platform, device=device)
        self.counts = {"observe": 0, "wait_idle": 0}

    def observe(self):  # type: ignore[no-untyped-def]
        self.counts["observe"] += 1
        return super().observe()

    def wait_idle(self, timeout: float) -> bool:
        self.counts["wait_idle"] += 1
        return super().wait_idle(timeout)


@dataclass
class Phone:
    backend: str
    device: SimDevice
    driver: Driver
    faults: FaultInjector

    def counted(self) -> tuple[int, int]:
        """(page sources, idle queries) the phone has seen so far."""
        if isinstance(self.driver, _CountedSim):
            return self.driver.counts["observe"], self.driver.counts["wait_idle"]
        source, idle = ROUTES[self.backend]
        return self.faults.count(source), self.faults.count(idle) if idle else 0

    def session(self, settle: SettleConfig) -> Session:
        runner = TaskRunner(
            self.driver, ScriptedPlanner([]), config=TaskRunnerConfig(settle=settle, semantic=False)
        )
        return runner.session("settle")

    def still(self) -> None:
        """Wait until the phone has been still for Android's quiet time (a step starts from idle)."""
        while self.device.idle_left(REALISTIC.android_idle_quiet) > 0:
            time.sleep(0.02)


@contextmanager
def phone(backend: str) -> Iterator[Phone]:
    platform: Platform = "ios" if backend in ("wda", "appium-ios") else "android"
    device = SimDevice(platform, device_id=f"idle-{backend}", timing=REALISTIC)
    device.launch(APPS[platform])
    faults = FaultInjector()
    if backend == "sim":
        yield Phone(backend, device, _CountedSim(device), faults)
        return
    face: AdbFace | WdaFace | AppiumFace
    driver: Driver
    if backend == "u2":
        face = AdbFace([device], faults=faults).start()
        config = U2Config(adb_host=face.host, adb_port=face.port, timeout=10.0)
        driver = U2Driver(device.device_id, config).connect()
    elif backend == "wda":
        face = WdaFace(device, faults=faults).start()
        driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=10.0).connect()
    else:
        face = AppiumFace(device, faults=faults).start()
        driver = AppiumDriver(face.url, options_for(platform, udid=device.device_id), timeout=10.0).connect()
    try:
        yield Phone(backend, device, driver, faults)
    finally:
        driver.close()
        face.stop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_on_a_static_screen_the_settle_asks_the_idle_signal_and_takes_no_second_page_source(
    monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.delenv("AMC_SETTLE_INTERVAL", raising=False)
    with phone(backend) as p:
        sessions = {rule: p.session(SettleConfig(rule=rule)) for rule in ("idle", "looks")}
        sessions["off"] = p.session(SettleConfig(timeout=0))
        for s in sessions.values():
            s.look()
        p.still()
        sessions["idle"].run_step(PlannedStep("tap", {"x": 1, "y": 1}))  # the session's one settings read
        costs: dict[str, tuple[int, int]] = {}
        for rule, s in sessions.items():
            p.still()
            before = p.counted()
            outcome = s.run_step(PlannedStep("tap", {"x": 1, "y": 1}))  # where nothing reacts
            after = p.counted()
            assert outcome.record.result.success
            costs[rule] = (after[0] - before[0], after[1] - before[1])
    assert costs["off"] == (1, 0)
    assert costs["looks"] == (2, 0)  # today's rule: a second page source
    idle_queries = 1 if backend in ("sim", "u2") else 0  # WDA and Appium: their source waits itself
    assert costs["idle"] == (1, idle_queries)


@pytest.mark.parametrize("backend", BACKENDS)
def test_after_a_page_change_no_step_is_settled_before_the_transition_is_over(
    monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.delenv("AMC_SETTLE_INTERVAL", raising=False)
    with phone(backend) as p:
        platform = p.device.platform
        session = p.session(SettleConfig())
        p.still()
        session.look()
        back = (
            PlannedStep("press", {"key": "back"})
            if platform == "android"
            else PlannedStep("tap", {"id": "BackButton"})
        )
        for _ in range(2):
            for depth, step in ((2, PlannedStep("tap", {"text": PAGE[platform]})), (1, back)):
                p.still()
                outcome = session.run_step(step)
                record = outcome.record
                assert record.result.success, record.result.error
                run = p.device.current_run()
                assert run is not None and len(run.stack) == depth
                assert p.device.transition_left() == 0  # the look came after the slide's end
                assert record.settled is True
                assert record.scene is not None and record.acted_on is not None
                assert signature(record.scene) != signature(record.acted_on)  # not the page being left
                if backend in ("sim", "u2"):
                    assert record.settle_idle is True


def test_each_face_answers_idle_after_the_last_change_never_sooner() -> None:
    """uiautomator2's waitForIdle answers once Android's 500 ms without a change have passed after
    the slide's end; WebDriverAgent's source waits for the slide's end; at the timeout, the answer
    comes at the timeout (and says nothing: the RPC is void)."""
    device = SimDevice("android", device_id="idle-face", timing=REALISTIC)
    device.launch(APPS["android"])
    faults = FaultInjector()
    with AdbFace([device], faults=faults) as face:
        config = U2Config(adb_host=face.host, adb_port=face.port, timeout=10.0)
        driver = U2Driver(device.device_id, config).connect()
        try:
            while device.idle_left(0.5) > 0:
                time.sleep(0.02)
            started = time.monotonic()
            assert driver.wait_idle(2.0) is True
            assert time.monotonic() - started < 0.4  # still for long: at once
            x, y = _row(device, PAGE["android"])
            driver.tap(round(x), round(y))  # Network & internet: a page slides in
            slide = device.transition_left()
            assert slide > 0
            started = time.monotonic()
            assert driver.wait_idle(3.0) is True
            assert time.monotonic() - started >= slide + 0.5 - 0.05  # never before the quiet time
            device.press("back")
            assert driver.wait_idle(0.2) is False  # still sliding: the timeout, told by the time
        finally:
            driver.close()
    ios = SimDevice("ios", device_id="idle-wda", timing=REALISTIC)
    ios.launch(APPS["ios"])
    with WdaFace(ios, faults=FaultInjector()) as wda_face:
        wda = WdaDriver.from_url(wda_face.url, device_id=ios.device_id, timeout=10.0).connect()
        try:
            assert wda.wait_idle(1.0) is True
            time.sleep(0.5)
            ios.tap(*_row(ios, PAGE["ios"]))
            assert ios.transition_left() > 0
            wda.observe()
            assert ios.transition_left() == 0  # the source waited for the slide's end
        finally:
            wda.close()


def _row(device: SimDevice, text: str) -> tuple[float, float]:
    from amc.sim import layout

    node = next(n for n in layout.build(device).iter() if n.text == text or n.label == text)
    return node.bounds.center
