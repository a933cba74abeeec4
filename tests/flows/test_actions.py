"""The executor actions flows added: long_press, assert_not_visible, assert_app, remember, skip."""

from __future__ import annotations

import pytest
from amc.actions import ACTIONS
from amc.core.models import PlannedStep, Scene
from amc.core.steps import REDACTED, describe_step
from amc.runtime.executor import Executor
from amc.world.model import WorldModel

from tests.unit.fakes import FakeDriver, SeenScreen, scene

APP = "com.example.app"


def _context(driver: FakeDriver, first: Scene) -> SeenScreen:
    """What the executor sees: ``first`` on screen; any further look goes to ``driver``."""
    return SeenScreen(driver, first)


def test_the_table_has_every_flow_action_with_its_keys() -> None:
    for name in ("long_press", "assert_not_visible", "assert_app", "remember", "skip"):
        assert name in ACTIONS
    assert ACTIONS["long_press"].idempotent is False
    assert {"timeout", "interval", "text"} <= ACTIONS["assert_not_visible"].keys
    assert ACTIONS["skip"].idempotent and ACTIONS["remember"].idempotent


def test_long_press_holds_the_centre_of_the_target_for_the_duration() -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(
        PlannedStep("long_press", {"target": {"text": "hold me"}, "duration": 2.0}),
        _context(driver, scene("hold me")),
    )
    assert result.success, result.error
    assert driver.calls == [("long_press", (540, 294, 2.0))]


def test_long_press_rejects_a_zero_duration_before_touching_the_device() -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(
        PlannedStep("long_press", {"x": 1, "y": 2, "duration": 0}), _context(driver, scene())
    )
    assert not result.success and result.error_kind == "StepArgumentError"
    assert driver.calls == []


def test_assert_not_visible_passes_once_the_element_is_gone() -> None:
    driver = FakeDriver(scenes=[scene("Loading…"), scene("Done")])
    result = Executor(driver).execute(
        PlannedStep("assert_not_visible", {"text": "Loading…", "timeout": 5, "interval": 0.01}),
        _context(driver, scene("Loading…")),
    )
    assert result.success, result.error
    assert result.output == {"absent": True, "polls": 2}


def test_assert_not_visible_fails_while_the_element_stays() -> None:
    driver = FakeDriver(scenes=[scene("Sign-in failed")])
    result = Executor(driver).execute(
        PlannedStep("assert_not_visible", {"text": "Sign-in failed", "timeout": 0}),
        _context(driver, scene("Sign-in failed")),
    )
    assert not result.success
    assert result.error_kind == "AssertionFailed" and result.error_category == "assertion"
    assert "expected text='Sign-in failed' to be gone" in (result.error or "")
    assert driver.count("observe") == 0  # timeout 0: the latest Scene decides, no device request


def test_assert_visible_failure_says_what_the_screen_shows() -> None:
    result = Executor(FakeDriver()).execute(
        PlannedStep("assert_visible", {"text": "Welcome", "timeout": 0}),
        _context(FakeDriver(), scene("Sign-in failed", "OK")),
    )
    assert result.error_kind == "AssertionFailed"
    assert "screen shows: 'Sign-in failed', 'OK'" in (result.error or "")


def test_assert_app_compares_the_scenes_foreground_app() -> None:
    ok = Executor(FakeDriver()).execute(
        PlannedStep("assert_app", {"app_id": APP}), _context(FakeDriver(), scene(app=APP))
    )
    assert ok.success and ok.output == {"app": APP, "polls": 0}
    bad = Executor(FakeDriver()).execute(
        PlannedStep("assert_app", {"app_id": "com.other"}), _context(FakeDriver(), scene(app=APP))
    )
    assert bad.error_kind == "AssertionFailed"
    assert bad.error is not None and bad.error.startswith(
        f"expected com.other in front, but the device shows {APP}"
    )


def test_assert_app_asks_the_device_when_the_scene_does_not_say() -> None:
    driver = FakeDriver(foreground=APP)
    result = Executor(driver).execute(
        PlannedStep("assert_app", {"app_id": APP}), _context(driver, scene(app=None))
    )
    assert result.success
    assert driver.count("current_app") == 1


def test_assert_app_polls_until_the_app_comes_to_the_front() -> None:
    driver = FakeDriver(scenes=[scene(app="com.android.launcher3"), scene(app=APP)])
    result = Executor(driver).execute(
        PlannedStep("assert_app", {"app_id": APP, "timeout": 5, "interval": 0.01}),
        _context(driver, scene(app="com.android.launcher3")),
    )
    assert result.success and result.output["polls"] == 2


def test_remember_stores_variables_through_the_world_model_and_hides_secret_ones() -> None:
    world = WorldModel()
    context = SeenScreen(FakeDriver(), scene(), world=world.state)
    executor = Executor(FakeDriver())
    for step in (
        PlannedStep("remember", {"remember": {"user": "qa", "tries": 3}}),
        PlannedStep("remember", {"remember": {"token": "abc-123"}, "secret": True}),
    ):
        result = executor.execute(step, context)
        assert result.success
        assert "abc-123" not in repr(result.output)
        world.observe(scene(), None, step, result)
    assert world.state.variables == {"user": "qa", "tries": 3, "token": "abc-123"}
    shown = world.state.to_dict()
    assert shown["variables"] == {"user": "qa", "tries": 3, "token": REDACTED}
    assert "abc-123" not in repr(shown)


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"remember": {}},
        {"remember": ["a"]},
        {"remember": {"": 1}},
        {"remember": {"a": 1}, "secret": "yes"},
    ],
)
def test_remember_rejects_bad_arguments(args: dict[str, object]) -> None:
    result = Executor(FakeDriver()).execute(PlannedStep("remember", args), _context(FakeDriver(), scene()))
    assert not result.success and result.error_kind == "StepArgumentError"


def test_skip_records_a_reason_without_any_device_call() -> None:
    driver = FakeDriver()
    result = Executor(driver).execute(
        PlannedStep("skip", {"reason": "already there", "skipped": "launch_app"}), _context(driver, scene())
    )
    assert result.success and result.output == {"skipped": "launch_app", "reason": "already there"}
    assert driver.calls == []
    assert not Executor(driver).execute(PlannedStep("skip", {}), _context(driver, scene())).success


def test_describe_step_never_shows_a_secret() -> None:
    assert (
        describe_step("type_text", {"text": "hunter2", "secret": True, "target": {"id": "pw"}})
        == "'***' into id='pw'"
    )
    assert describe_step("type_text", {"text": "qa"}) == "'qa'"
    assert describe_step("remember", {"remember": {"token": "x"}, "secret": True}) == "token (secret)"
    assert describe_step("launch_app", {"app_id": APP}) == APP
    assert describe_step("swipe", {"direction": "up"}) == "up"
    assert describe_step("skip", {"reason": "r", "skipped": "launch_app"}) == "launch_app skipped: r"
