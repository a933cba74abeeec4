"""The executor: table dispatch, argument checks, selectors from the latest Scene, never raising."""

from __future__ import annotations

import pytest
from amc.actions import ACTIONS
from amc.core.errors import AppNotInstalled, DeviceTimeout
from amc.core.models import PlannedStep
from amc.core.selectors import Selector
from amc.runtime.executor import Executor

from tests.unit.fakes import FakeDriver, SeenScreen, scene

_DRIVER = FakeDriver()


def _context(*texts: str, driver: FakeDriver = _DRIVER) -> SeenScreen:
    return SeenScreen(driver, scene(*texts, title="Settings") if texts else None)


def test_unknown_action_is_a_failed_step_naming_the_known_ones() -> None:
    result = Executor(FakeDriver()).execute(PlannedStep("fly"), _context())
    assert not result.success
    assert result.error_kind == "StepArgumentError"
    assert "unknown action 'fly'" in (result.error or "")
    assert "launch_app" in (result.error or "")


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (PlannedStep("launch_app"), "app_id, bundle_id, package"),
        (PlannedStep("launch_app", {"app_id": ""}), "app_id"),
        (PlannedStep("tap", {"x": "ten", "y": 2}), "'x' must be a number"),
        (PlannedStep("tap", {"x": True, "y": 2}), "'x' must be a number"),
        (PlannedStep("tap", {"x": float("nan"), "y": 2}), "'x' must be a finite number"),
        (PlannedStep("tap", {"x": 1e308, "y": 2}), "'x' must be from 0 to 100000, got 1e+308"),
        (PlannedStep("tap", {"x": 5, "y": -5}), "'y' must be from 0 to 100000, got -5"),
        (PlannedStep("tap", {"x": 10**400, "y": 2}), "'x' must be from 0 to 100000, got 1000"),
        (
            PlannedStep("long_press", {"x": 1080, "y": 2}),
            "'x' (1080) is outside the screen, which is 1080 wide",
        ),
        (PlannedStep("swipe", {"x1": 0, "y1": 0, "x2": 1, "y2": 9e9}), "'y2' must be from 0 to 100000"),
        (PlannedStep("swipe", {"x1": 0, "y1": 0, "x2": 1, "y2": 2400}), "'y2' (2400) is outside the screen"),
        (PlannedStep("scroll_until_visible", {"text": "x", "max_swipes": 10**400}), "must be from 0 to 50"),
        (PlannedStep("tap", {}), "either x and y"),
        (PlannedStep("tap", {"x": 1, "y": 2, "force": 3}), "does not take argument(s) force"),
        (PlannedStep("swipe", {"direction": "sideways"}), "direction"),
        (PlannedStep("swipe", {"x1": 0, "y1": 0, "x2": 1, "y2": 1, "duration": 999}), "duration"),
        (PlannedStep("press", {"key": 7}), "'key' must be a string"),
        (PlannedStep("type_text", {}), "type_text needs argument 'text'"),
        (PlannedStep("tap", {"target": {"colour": "red"}}), "unknown selector field"),
        (PlannedStep("wait_for", {"text": "x", "timeout": -1}), "timeout"),
    ],
)
def test_bad_arguments_fail_the_step_with_a_clear_message(step: PlannedStep, message: str) -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(step, _context("a"))
    assert not result.success
    assert result.error_kind == "StepArgumentError", result.error
    assert message in (result.error or "")
    assert [name for name, _ in driver.calls] == []  # nothing reached the device


def test_tap_by_selector_uses_the_latest_scene_and_costs_one_device_call() -> None:
    driver = FakeDriver()
    screen = _context("Wi-Fi", "Bluetooth")
    result = Executor(driver).execute(PlannedStep("tap", {"text": "Bluetooth"}), screen)
    assert result.success, result.error
    assert driver.calls == [("tap", (540, 462))]
    assert screen.latest is not None
    bluetooth = screen.latest.scene.find(Selector(text="Bluetooth"))
    assert bluetooth is not None
    # The step records what it acted on: the element's bounds and the window they are in.
    window = list(screen.latest.scene.window_size)
    assert result.output == {
        "x": 540,
        "y": 462,
        "found": "Bluetooth",
        "bounds": bluetooth.bounds.to_dict(),
        "window": window,
    }


def test_a_tap_on_a_point_and_typing_into_a_target_say_what_they_acted_on() -> None:
    screen = _context("Wi-Fi", "Bluetooth")
    point = Executor(FakeDriver()).execute(PlannedStep("tap", {"x": 5, "y": 6}), screen)
    assert point.output == {"x": 5, "y": 6}  # no element: nothing to outline
    typed = Executor(FakeDriver()).execute(
        PlannedStep("type_text", {"text": "hi", "target": {"text": "Wi-Fi"}}), screen
    )
    assert typed.success and typed.output["length"] == 2
    assert typed.output["bounds"]["top"] < typed.output["bounds"]["bottom"]


def test_tap_on_a_missing_target_is_target_not_found() -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(PlannedStep("tap", {"target": {"text": "Nope"}}), _context("Wi-Fi"))
    assert not result.success and result.error_kind == "TargetNotFound"
    assert "text='Nope'" in (result.error or "")
    assert driver.calls == []


def test_type_text_into_a_target_taps_it_first() -> None:
    driver = FakeDriver()
    step = PlannedStep("type_text", {"text": "qa", "target": {"text": "Wi-Fi"}})
    assert Executor(driver).execute(step, _context("Wi-Fi")).success
    assert [name for name, _ in driver.calls] == ["tap", "type_text"]


def test_device_errors_become_failed_results_with_kind_category_and_retryability() -> None:
    driver = FakeDriver(
        errors={"launch_app": [DeviceTimeout("no answer in 5 s")], "tap": [DeviceTimeout("x")]}
    )
    executor = Executor(driver)
    launch = executor.execute(PlannedStep("launch_app", {"app_id": "com.a"}), _context())
    assert (launch.success, launch.error_kind, launch.error_category, launch.retryable) == (
        False,
        "DeviceTimeout",
        "device",
        True,
    )
    tap = executor.execute(PlannedStep("tap", {"x": 1, "y": 1}), _context())
    assert tap.error_kind == "DeviceTimeout" and tap.retryable is False  # a tap is not safe to repeat


def test_app_errors_are_never_retryable() -> None:
    driver = FakeDriver(errors={"launch_app": [AppNotInstalled("com.nope is not installed")]})
    result = Executor(driver).execute(PlannedStep("launch_app", {"package": "com.nope"}), _context())
    assert (result.error_kind, result.error_category, result.retryable) == ("AppNotInstalled", "app", False)


def test_an_unexpected_driver_exception_is_contained() -> None:
    class Broken(FakeDriver):
        def press(self, key: str) -> None:
            raise KeyError(key)

    result = Executor(Broken()).execute(PlannedStep("press", {"key": "home"}), _context())
    assert not result.success and result.error_kind == "KeyError" and result.error_category == "internal"


def test_wait_for_polls_fresh_observations_until_the_target_shows() -> None:
    driver = FakeDriver(scenes=[scene("loading"), scene("loading"), scene("Done")])
    screen = _context("loading", driver=driver)
    result = Executor(driver).execute(
        PlannedStep("wait_for", {"text": "Done", "timeout": 5, "interval": 0.01}), screen
    )
    assert result.success, result.error
    assert driver.count("observe") == 3
    latest = screen.latest
    assert latest is not None and "Done" in latest.scene.texts()


def test_wait_for_gives_up_at_its_bound() -> None:
    driver = FakeDriver(scenes=[scene("loading")])
    step = PlannedStep("wait_for", {"text": "Done", "timeout": 0.2, "interval": 0.05})
    result = Executor(driver).execute(step, _context("loading", driver=driver))
    assert not result.success and result.error_kind == "TargetNotFound"
    assert "did not appear within 0.2 s" in (result.error or "")


def test_assert_visible_checks_the_latest_scene_without_a_request() -> None:
    driver = FakeDriver()
    assert (
        Executor(driver).execute(PlannedStep("assert_visible", {"text": "Wi-Fi"}), _context("Wi-Fi")).success
    )
    assert driver.calls == []


def test_describe_screen_and_screenshot() -> None:
    driver = FakeDriver()
    executor = Executor(driver)
    described = executor.execute(PlannedStep("describe_screen"), _context("Wi-Fi"))
    assert described.success and "'Wi-Fi'" in described.output
    shot = executor.execute(PlannedStep("screenshot"), _context())
    assert shot.success and shot.output.startswith(b"\x89PNG")


def test_every_action_in_the_table_declares_its_idempotence() -> None:
    assert ACTIONS["launch_app"].idempotent and not ACTIONS["tap"].idempotent
    assert all(isinstance(a.idempotent, bool) for a in ACTIONS.values())


@pytest.mark.parametrize(
    ("step", "named"),
    [
        (PlannedStep("tap", {"x": 5000, "y": 10}), "'x' (5000) is outside the screen, which is 1080 wide"),
        (PlannedStep("tap", {"x": 10, "y": 2400}), "'y' (2400) is outside the screen, which is 2400 high"),
        (PlannedStep("long_press", {"x": 10, "y": 99999}), "'y'"),
        (PlannedStep("swipe", {"x1": 0, "y1": 0, "x2": 1080, "y2": 5}), "'x2' (1080) is outside"),
        (PlannedStep("tap", {"x": 1e308, "y": 2}), "'x' must be from 0 to 100000"),
        (PlannedStep("tap", {"x": -5, "y": 2}), "'x' must be from 0 to 100000"),
    ],
)
def test_a_point_outside_the_screen_is_refused_before_the_device_is_touched(
    step: PlannedStep, named: str
) -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(step, _context("a"))
    assert result.error_kind == "StepArgumentError" and named in (result.error or ""), result.error
    assert [n for n, _ in driver.calls if n != "observe"] == []
