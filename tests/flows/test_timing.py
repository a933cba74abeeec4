"""The simulated device in time, and flows that wait for it: over every protocol face.

With realistic timing a screen change shows the old screen for 100-400 ms, the demo app shows
"Signing in…" for about a second, and a `loads_late` list shows a progress indicator before its
rows; the waits of the flow steps are what make the flows pass.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from amc.core.errors import ConfigError
from amc.drivers.connect import connect, sim_timing
from amc.sim.device import INSTANT, REALISTIC, SimDevice

from .helpers import EXAMPLES, amc


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _a_phones_settle_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """Realistic screens take 100-400 ms to change: settle as on a phone (the default 0.2 s apart),
    not at the unit tests' instant pace."""
    monkeypatch.delenv("AMC_SETTLE_INTERVAL", raising=False)


def _texts(device: SimDevice) -> set[str]:
    return {n.text or n.label or "" for n in device.tree().iter()} - {""}


def test_a_screen_change_shows_the_old_screen_for_a_moment_then_the_new_one() -> None:
    clock = Clock()
    device = SimDevice("android", timing=REALISTIC, clock=clock)
    device.launch("com.android.settings")
    assert device.foreground() == "com.android.launcher3"  # the home screen still shows
    clock.now += 0.4
    assert device.foreground() == "com.android.settings" and "Network & internet" in _texts(device)
    row = next(n for n in device.tree().iter() if n.text == "Network & internet")
    device.tap(*row.bounds.center)
    assert "Network & internet" in _texts(device) and "Internet" not in _texts(device)
    clock.now += 0.4  # the page is there, but its list loads late: a progress indicator first
    shown = [n.type for n in device.tree().iter()]
    assert "android.widget.ProgressBar" in shown and "Internet" not in _texts(device)
    clock.now += 0.6
    assert "Internet" in _texts(device)


def test_a_tap_while_the_screen_changes_is_dropped_and_a_stopped_app_goes_at_once() -> None:
    clock = Clock()
    device = SimDevice("android", timing=REALISTIC, clock=clock)
    device.launch("com.android.settings")
    clock.now += 0.4
    row = next(n for n in device.tree().iter() if n.text == "Network & internet")
    assert device.tap(*row.bounds.center) == "widget:network"
    assert device.tap(*row.bounds.center) is None  # the old page still shows: the touch is dropped
    assert len(device.current_run().stack) == 2  # type: ignore[union-attr]
    device.terminate("com.android.settings")
    assert device.foreground() == "com.android.launcher3"  # no transition shows a stopped app


def test_the_demo_sign_in_shows_a_progress_indicator_for_about_a_second() -> None:
    clock = Clock()
    device = SimDevice("ios", timing=REALISTIC, clock=clock)
    device.launch("com.example.amc.demo")
    clock.now += 0.5
    run = device.current_run()
    assert run is not None
    run.values.update({"username": "qa", "password": "secret123"})
    button = next(n for n in device.tree().iter() if n.label == "Sign in")
    device.tap(*button.bounds.center)
    clock.now += 0.5
    nodes = list(device.tree().iter())
    assert any(n.type == "XCUIElementTypeActivityIndicator" for n in nodes)
    assert "Signing in…" in _texts(device) and "Signed in as qa" not in _texts(device)
    clock.now += 0.6
    assert "Signed in as qa" in _texts(device)


def test_instant_timing_changes_at_once() -> None:
    device = SimDevice("android", timing=INSTANT)
    device.launch("com.android.settings")
    assert device.foreground() == "com.android.settings"


def test_the_timing_switch_in_the_spec_and_the_environment() -> None:
    assert sim_timing({}, {}) == REALISTIC  # on by default, as on a phone
    assert sim_timing({}, {"AMC_SIM_TIMING": "instant"}) == INSTANT
    assert sim_timing({"timing": "realistic"}, {"AMC_SIM_TIMING": "instant"}) == REALISTIC
    with pytest.raises(ConfigError, match="AMC_SIM_TIMING='slow' is not a timing"):
        sim_timing({}, {"AMC_SIM_TIMING": "slow"})
    driver = connect("sim:android?timing=realistic")
    try:
        assert driver.device.timing == REALISTIC  # type: ignore[attr-defined]
    finally:
        driver.close()
    with pytest.raises(ConfigError, match="unknown key 'speed'"):
        connect("sim:android?speed=fast")


FACES = {
    "sim:android": ("demo_session.yaml",),
    "sim:ios": ("demo_session.yaml",),
    "sim+adb:android": ("demo_session.yaml", "settings_scroll.yaml"),
    "sim+wda:ios": ("demo_session.yaml", "settings_scroll.yaml"),
}


@pytest.mark.parametrize("spec", sorted(FACES))
def test_the_examples_pass_on_realistic_timing_because_their_steps_wait(spec: str, tmp_path: Path) -> None:
    flows = [EXAMPLES / name for name in FACES[spec]]
    started = time.monotonic()
    result = amc("run", *flows, "--device", f"{spec}?timing=realistic", "--out", tmp_path)
    assert result.code == 0, result.out + result.err
    assert f"{len(flows)} flow(s): {len(flows)} passed" in result.out
    assert time.monotonic() - started > 1.0  # the sign-in alone takes about a second: time passed
    if spec.endswith("ios") and "wda" in spec:  # a Simulator's data is cleared through simctl
        assert "clear_state" in result.out and " warning " not in result.out


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_examples_pass_over_appium_on_realistic_timing(platform: str, tmp_path: Path) -> None:
    # The session flow uses mobile: hideKeyboard, deepLink and clearApp on the way.
    flow = EXAMPLES / "demo_session.yaml"
    result = amc("run", flow, "--device", f"sim+appium:{platform}?timing=realistic", "--out", tmp_path)
    assert result.code == 0, result.out + result.err


def test_a_tap_waits_for_a_row_that_a_list_shows_late_each_poll_one_observation() -> None:
    from amc.core.models import PlannedStep
    from amc.runtime.planner import ScriptedPlanner
    from amc.runtime.task import TaskRunner, TaskStatus

    driver = connect("sim:android?timing=realistic")
    steps = [
        PlannedStep("launch_app", {"app_id": "com.android.settings"}),
        PlannedStep("tap", {"text": "Network & internet", "timeout": 5}),
        PlannedStep("tap", {"text": "Internet", "timeout": 5, "interval": 0.1}),
    ]
    try:
        result = TaskRunner(driver, ScriptedPlanner(steps)).run("open Internet")
    finally:
        driver.close()
    assert result.status is TaskStatus.SUCCEEDED, result.error
    waited = result.steps[2].result
    assert waited.output["found"] == "Internet"
    # The list loaded late: between the look that found the Network page settled (its progress
    # indicator still, twice) and the rows, the tap polled; every look went through the task's
    # observer, so the loop counted more looks than one per step and one per settle.
    settles = sum(record.settle_looks for record in result.steps)
    assert result.steps[1].settled and result.context.observations > 1 + len(steps) + settles


def test_scroll_until_visible_gives_a_list_that_loads_late_its_time() -> None:
    from amc.connect.simulated import SimDriver
    from amc.core.models import PlannedStep
    from amc.runtime.planner import ScriptedPlanner
    from amc.runtime.task import TaskRunner, TaskStatus
    from amc.sim.catalog import AppSpec, Screen, Widget

    app = "com.example.longlist"
    rows = tuple(Widget("row", f"row{n}", f"Row {n}") for n in range(40))
    spec = AppSpec(app, "Long list", "list", {"list": Screen("list", "Long list", rows, loads_late=True)})
    device = SimDevice("android", apps={app: spec}, timing=REALISTIC)
    steps = [
        PlannedStep("launch_app", {"app_id": app}),
        PlannedStep(
            "scroll_until_visible", {"target": {"text": "Row 30"}, "max_swipes": 10, "interval": 0.2}
        ),
    ]
    result = TaskRunner(SimDriver("android", device=device), ScriptedPlanner(steps)).run("scroll")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    scrolled = result.steps[1].result.output
    assert scrolled["found"] == "Row 30" and 1 <= scrolled["swipes"] <= 10
