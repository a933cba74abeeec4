"""WorldModel.observe(): every update rule of the seeds and of the history change (004)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from amc.core.models import PlannedStep, StepResult
from amc.semantic.models import SemanticScene
from amc.world.config import WorldConfig
from amc.world.model import WorldModel

from tests.unit.fakes import scene


def _seen(scene: Any, semantic: Any = None) -> tuple[Any, Any]:
    """A look's two halves as the loop passes them to ``observe(scene, semantic_scene, step,
    result)``; tests put malformed values inside them on purpose."""
    return scene, semantic


OK = StepResult(success=True)
FAILED = StepResult(success=False, error="boom", error_kind="DeviceTimeout")


def test_page_follows_the_semantic_scene() -> None:
    model = WorldModel()
    model.observe(*_seen(scene("a"), SemanticScene(page="Settings")), PlannedStep("describe_screen"), OK)
    assert model.state.current_page == "Settings"


def test_page_is_unchanged_without_a_semantic_scene() -> None:
    model = WorldModel()
    model.observe(*_seen(scene("a"), SemanticScene(page="Settings")), PlannedStep("describe_screen"), OK)
    model.observe(*_seen(scene("b")), PlannedStep("describe_screen"), OK)
    assert model.state.current_page == "Settings"


@pytest.mark.parametrize("key", ["app_id", "bundle_id", "package"])
def test_successful_launch_sets_current_app(key: str) -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("launch_app", {key: "com.android.settings"}), OK)
    assert model.state.current_app == "com.android.settings"


def test_failed_launch_and_other_actions_leave_current_app_alone() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.b"}), FAILED)
    model.observe(*_seen(scene()), PlannedStep("tap", {"x": 1, "y": 2}), OK)
    assert model.state.current_app == "com.a"


def test_terminate_clears_current_app_only_when_it_names_it() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    model.observe(*_seen(scene()), PlannedStep("terminate_app", {"app_id": "com.other"}), OK)
    assert model.state.current_app == "com.a"
    model.observe(*_seen(scene()), PlannedStep("terminate_app", {"bundle_id": "com.a"}), FAILED)
    assert model.state.current_app == "com.a"
    model.observe(*_seen(scene()), PlannedStep("terminate_app", {"package": "com.a"}), OK)
    assert model.state.current_app is None


def test_clear_state_stops_the_app_and_a_link_moves_the_front() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    model.observe(*_seen(scene()), PlannedStep("clear_state", {"app_id": "com.other"}), OK)
    assert model.state.current_app == "com.a"
    model.observe(*_seen(scene()), PlannedStep("clear_state", {"app_id": "com.a"}), OK)
    assert model.state.current_app is None  # clearing an app's data stops it, as pm clear does
    model.observe(*_seen(scene()), PlannedStep("open_link", {"url": "x://y", "app_id": "com.b"}), OK)
    assert model.state.current_app == "com.b"
    model.observe(*_seen(scene()), PlannedStep("open_link", {"url": "https://example.com"}), OK)
    assert model.state.current_app is None  # any app may have taken the link: unknown
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    model.observe(*_seen(scene()), PlannedStep("open_link", {"url": "x://y"}), FAILED)
    assert model.state.current_app == "com.a"


def test_launch_without_an_app_id_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    with caplog.at_level(logging.WARNING, logger="amc.world.model"):
        model.observe(*_seen(scene()), PlannedStep("launch_app", {"name": "Settings"}), OK)
    assert model.state.current_app == "com.a"
    assert "without app_id" in caplog.text


def test_observed_app_follows_the_scene_and_ignores_scenes_that_do_not_say() -> None:
    model = WorldModel()
    model.observe(*_seen(scene(app="com.android.settings")), PlannedStep("describe_screen"), OK)
    assert model.state.observed_app == "com.android.settings"
    model.observe(*_seen(scene(app=None)), PlannedStep("describe_screen"), OK)
    assert model.state.observed_app == "com.android.settings"
    model.observe(None, None, PlannedStep("describe_screen"), OK)
    assert model.state.observed_app == "com.android.settings"


def test_remember_merges_variables() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("describe_screen", {"remember": {"user": "qa"}}), OK)
    model.observe(*_seen(scene()), PlannedStep("describe_screen", {"remember": {"order": 42}}), OK)
    assert model.state.variables == {"user": "qa", "order": 42}


def test_variables_are_unchanged_without_remember_or_with_a_bad_one() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("describe_screen", {"remember": {"user": "qa"}}), OK)
    model.observe(*_seen(scene()), PlannedStep("tap", {"x": 1, "y": 1}), OK)
    model.observe(*_seen(scene()), PlannedStep("tap", {"remember": ["not", "a", "mapping"]}), OK)
    assert model.state.variables == {"user": "qa"}


def test_secret_remember_is_kept_for_the_planner_but_hidden_in_dumps() -> None:
    model = WorldModel()
    step = PlannedStep("describe_screen", {"remember": {"token": "s3cr3t"}, "secret": True})
    model.observe(*_seen(scene()), step, OK)
    assert model.state.variables["token"] == "s3cr3t"
    assert "s3cr3t" not in repr(model.state.to_dict())


def test_history_records_every_step_with_its_planner_fields() -> None:
    model = WorldModel()
    step = PlannedStep(
        "tap",
        {"x": 10, "y": 20},
        rationale="open it",
        thinking="row two",
        purpose="reach Wi-Fi",
        expected_outcome="Wi-Fi page",
    )
    model.observe(*_seen(scene(), SemanticScene(page="Settings")), step, OK)
    model.observe(*_seen(scene()), PlannedStep("tap", {"x": 1, "y": 1}), FAILED)
    first, second = model.state.history
    assert (first.action, first.args, first.success, first.page) == (
        "tap",
        {"x": 10, "y": 20},
        True,
        "Settings",
    )
    assert (first.rationale, first.thinking) == ("open it", "row two")
    assert (first.purpose, first.expected_outcome) == ("reach Wi-Fi", "Wi-Fi page")
    assert second.success is False and second.error == "boom"
    assert second.rationale is None and second.page == "Settings"


def test_history_page_is_none_while_no_page_is_known() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("describe_screen"), OK)
    assert model.state.history[0].page is None


def test_history_is_bounded_by_the_config() -> None:
    model = WorldModel(WorldConfig(history_size=2))
    for i in range(5):
        model.observe(*_seen(scene()), PlannedStep("tap", {"x": i, "y": i}), OK)
    assert [e.args["x"] for e in model.state.history] == [3, 4]


def test_typed_secrets_never_reach_the_history() -> None:
    model = WorldModel()
    model.observe(*_seen(scene()), PlannedStep("type_text", {"text": "hunter2", "secret": True}), OK)
    assert model.state.history[0].args["text"] == "***"
    assert "hunter2" not in repr(model.state.to_dict())


def test_each_update_makes_a_new_state_and_an_old_one_never_changes() -> None:
    model = WorldModel()
    before = model.state
    model.observe(*_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    assert model.state is not before
    assert (before.current_app, before.history) == (None, ())
    assert model.state.current_app == "com.a" and len(model.state.history) == 1


def test_a_look_without_a_step_updates_the_screen_fields_only() -> None:
    model = WorldModel()
    model.see(*_seen(scene(app="com.android.settings"), SemanticScene(page="Settings", alert="Allow?")))
    state = model.state
    assert (state.observed_app, state.current_page, state.overlay) == (
        "com.android.settings",
        "Settings",
        "Allow?",
    )
    assert (state.current_app, state.history, dict(state.variables)) == (None, (), {})
    model.see(*_seen(scene(app="com.android.settings"), SemanticScene(page="Settings")))
    assert model.state.overlay is None


class _Exploding:
    @property
    def action(self) -> str:
        raise RuntimeError("exploding step")


@pytest.mark.parametrize(
    "inputs",
    [
        (None, None, None),
        (_seen(object(), object()), object(), object()),
        (_seen(scene(), SemanticScene(page="P")), _Exploding(), OK),
        (_seen(scene(), "not a semantic scene"), PlannedStep("launch_app", {"app_id": 5}), OK),
        (_seen(scene()), PlannedStep("launch_app", {"app_id": "com.a"}), "not a result"),
        (_seen(None, None), PlannedStep("tap", {"remember": {1: "x", "ok": [1, {"a": 2}]}}), OK),
    ],
)
def test_observe_never_raises_whatever_is_inside_its_arguments(inputs: tuple[Any, Any, Any]) -> None:
    look, step, result = inputs
    model = WorldModel()
    model.observe(*(look or (None, None)), step, result)
    model.see(*(look or (None, None)))
    assert len(model.state.history) <= 1
    model.state.to_dict()
