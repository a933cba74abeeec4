"""After an action that changes the screen, the next look waits until the screen has settled.

Measured on the code before this: in examples/flows/settings_android.yaml on a phone's timing, step
8 (`assert_visible: Network & internet` right after `press: back`) passed on the page being left,
whose title has the same text. Now the loop looks until two looks in a row agree (clocks,
percentages, progress values and focus ignored), bounded, and records how many looks it took.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from amc.actions.settle import MAX_SETTLE_LOOKS, SettleConfig, signature
from amc.core.models import Bounds, PlannedStep, Scene, UIElement
from amc.drivers.connect import connect
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus

from tests.unit.fakes import FakeDriver, scene

from .helpers import EXAMPLES, amc


class _Animating(FakeDriver):
    """A scripted phone whose screen may move on after an action: the loop waits for it."""

    animates = True


def _steps(run_dir: Path) -> list[dict[str, object]]:
    lines = (run_dir / "timeline.jsonl").read_text(encoding="utf-8").splitlines()
    return [record for record in map(json.loads, lines) if record.get("type") == "step"]


def test_no_step_passes_on_the_screen_being_left(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AMC_SETTLE_INTERVAL", raising=False)  # a phone's pace: 0.2 s between looks
    flow = EXAMPLES / "settings_android.yaml"
    result = amc("run", flow, "--device", "sim:android?timing=realistic", "--out", tmp_path)
    assert result.code == 0, result.out + result.err
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    steps = _steps(run_dir)
    network_page = steps[4]["world"]["current_page"]  # type: ignore[index]
    back, check = steps[6], steps[7]
    assert back["action"] == "press" and check["action"] == "assert_visible"
    # settled by the device's idle signal (then one look), or by two looks that agree
    settle = back["settle"]
    assert settle["settled"] is True  # type: ignore[index]
    assert settle.get("idle") is True or settle["looks"] >= 2  # type: ignore[index,union-attr]
    assert check["world"]["current_page"] != network_page  # type: ignore[index]
    assert check["world"]["current_page"] == steps[2]["world"]["current_page"]  # type: ignore[index]


def test_a_static_screen_costs_one_more_look_and_a_screen_that_never_moves_none() -> None:
    driver = _Animating()
    steps = [PlannedStep("tap", {"x": 1, "y": 2}), PlannedStep("describe_screen")]
    result = TaskRunner(driver, ScriptedPlanner(steps)).run("tap once")
    assert result.status is TaskStatus.SUCCEEDED
    tap, described = result.steps
    assert (tap.settle_looks, tap.settled) == (1, True)
    assert (described.settle_looks, described.settled) == (0, None)  # it changes nothing: no wait
    assert [n for n, _ in driver.calls] == ["observe", "tap", "observe", "observe", "observe"]
    still = FakeDriver()  # says nothing of animating (a test's scripted fake): one look per step
    result = TaskRunner(still, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 2})])).run("tap")
    assert (result.steps[0].settle_looks, result.steps[0].settled) == (0, None)
    assert [n for n, _ in still.calls] == ["observe", "tap", "observe"]


def test_a_step_can_turn_the_wait_off_and_a_task_can_bound_it() -> None:
    driver = _Animating()
    result = TaskRunner(driver, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 2, "settle": 0})])).run("t")
    assert result.steps[0].settled is True and result.steps[0].settle_looks == 0
    assert driver.count("observe") == 2
    off = TaskRunnerConfig(settle=SettleConfig(timeout=0))
    driver = _Animating()
    TaskRunner(driver, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 2})]), config=off).run("t")
    assert driver.count("observe") == 2


class _Restless(_Animating):
    """A screen that never stops moving: a spinner's row slides a pixel each look."""

    def observe(self) -> Scene:
        self._record("observe")
        n = self.count("observe")
        moving = UIElement("android.widget.TextView", text="Loading", bounds=Bounds(n, 0, n + 100, 50))
        return Scene(
            "fake-1", "android", UIElement("hierarchy", bounds=Bounds(0, 0, 1080, 2400), children=(moving,))
        )


def test_a_screen_that_never_settles_ends_the_wait_at_its_bound_and_the_step_goes_on() -> None:
    driver = _Restless()
    config = TaskRunnerConfig(settle=SettleConfig(timeout=5.0, interval=0.001))
    result = TaskRunner(driver, ScriptedPlanner([PlannedStep("tap", {"x": 1, "y": 2})]), config=config).run(
        "t"
    )
    assert result.status is TaskStatus.SUCCEEDED
    record = result.steps[0]
    assert record.settled is False and record.settle_looks == MAX_SETTLE_LOOKS


def test_what_changes_by_itself_is_not_a_change() -> None:
    def screen(clock: str, progress: str, focused: bool) -> Scene:
        row = UIElement(
            "android.widget.EditText", text="qa", focused=focused, bounds=Bounds(0, 100, 500, 200)
        )
        bar = UIElement("android.widget.ProgressBar", value=progress, bounds=Bounds(0, 300, 500, 320))
        time = UIElement("android.widget.TextView", text=clock, bounds=Bounds(0, 0, 100, 50))
        root = UIElement("hierarchy", bounds=Bounds(0, 0, 1080, 2400), children=(time, row, bar))
        return Scene("fake-1", "android", root, foreground_app="com.a")

    assert signature(screen("12:00", "40%", True)) == signature(screen("12:01", "45%", False))
    assert signature(screen("12:00", "40%", True)) != signature(scene("other"))
    assert signature(scene("Wi-Fi")) != signature(scene("Wi-Fi", "Bluetooth"))


@pytest.mark.parametrize("spec", ["sim+adb:android?timing=realistic", "sim+wda:ios?timing=realistic"])
def test_over_the_faces_a_tap_that_opens_a_page_settles_on_it(
    monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    monkeypatch.delenv("AMC_SETTLE_INTERVAL", raising=False)
    platform = spec.split(":")[1].split("?")[0]
    app, row = (
        ("com.android.settings", "Network & internet")
        if platform == "android"
        else ("com.apple.Preferences", "General")
    )
    driver = connect(spec)
    try:
        steps = [PlannedStep("launch_app", {"app_id": app}), PlannedStep("tap", {"text": row})]
        result = TaskRunner(driver, ScriptedPlanner(steps)).run("open a page")
    finally:
        driver.close()
    assert result.status is TaskStatus.SUCCEEDED, result.error
    tapped = result.steps[1]
    assert tapped.settled is True and (tapped.settle_idle is True or tapped.settle_looks >= 1)
    assert tapped.page is not None and tapped.page != result.steps[0].page


def test_a_flow_sets_the_settle_for_itself_and_a_step_for_itself(tmp_path: Path) -> None:
    from amc.flows import load_flow

    path = tmp_path / "f.yaml"
    path.write_text(
        "defaults: {settle: 1.5}\n"
        "steps:\n"
        "  - tap: OK\n"
        "  - tap: {text: Later, settle: 0}\n"
        "  - press: back\n"
        "    settle: 4\n"
        "  - assert_visible: OK\n",
        encoding="utf-8",
    )
    steps = load_flow(path, environ={}).planned_steps("android")
    assert [s.args.get("settle") for s in steps] == [1.5, 0, 4, None]  # an assert changes nothing
    bad = tmp_path / "bad.yaml"
    bad.write_text("steps:\n  - tap: OK\n    settle: 99\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"bad.yaml:3:13: settle must be .* at most 60"):
        load_flow(bad, environ={})
