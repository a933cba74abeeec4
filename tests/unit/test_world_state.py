"""WorldState and WorldEvent: construction, to_dict, bounded history (seed tasks 2.x, change 004)."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

import pytest
from amc.world.models import REDACTED, WorldEvent, WorldState


def _event(i: int) -> WorldEvent:
    return WorldEvent(action="tap", args={"x": i, "y": i}, success=True, page=f"page-{i}")


def test_empty_state_has_nothing_and_a_bounded_history() -> None:
    state = WorldState.empty(history_size=3)
    assert state.current_app is None
    assert state.current_page is None
    assert state.observed_app is None
    assert state.variables == {}
    assert list(state.history) == []
    assert state.history_size == 3
    assert state.last_event is None


def test_history_evicts_the_oldest_and_stays_at_the_bound() -> None:
    state = WorldState.empty(history_size=3)
    for i in range(5):
        state = dataclasses.replace(state, history=state.with_event(_event(i)))
    assert len(state.history) == 3
    assert [e.args["x"] for e in state.history] == [2, 3, 4]
    assert state.last_event is not None and state.last_event.page == "page-4"


def test_event_keeps_the_record_fields_of_the_history_change() -> None:
    event = WorldEvent(
        action="tap",
        args={"x": 10, "y": 20},
        success=False,
        page="Settings",
        rationale="open Wi-Fi",
        thinking="the row is near the top",
        purpose="reach the Wi-Fi page",
        expected_outcome="Wi-Fi page is shown",
        error="no element",
    )
    data = event.to_dict()
    assert data["action"] == "tap"
    assert data["args"] == {"x": 10, "y": 20}
    assert data["success"] is False
    assert data["page"] == "Settings"
    assert data["rationale"] == "open Wi-Fi"
    assert data["thinking"] == "the row is near the top"
    assert data["purpose"] == "reach the Wi-Fi page"
    assert data["expected_outcome"] == "Wi-Fi page is shown"
    assert data["scene_summary"] is None  # optional, not required for new records
    assert datetime.fromisoformat(data["timestamp"]).tzinfo is not None


def test_state_to_dict_is_json_and_hides_secret_variables() -> None:
    state = WorldState(
        current_app="com.android.settings",
        variables={"user": "qa", "password": "hunter2"},
        secret_variables=frozenset({"password"}),
        history=(_event(1),),
        history_size=2,
    )
    text = json.dumps(state.to_dict())
    assert "hunter2" not in text
    data = json.loads(text)
    assert data["variables"] == {"user": "qa", "password": REDACTED}
    assert data["current_app"] == "com.android.settings"
    assert len(data["history"]) == 1
    assert state.variables["password"] == "hunter2"  # the planner still has the value


def test_a_state_and_everything_in_it_is_read_only() -> None:
    state = WorldState(variables={"user": "qa", "cart": [1, {"sku": "a"}]}, history=(_event(1),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.current_app = "com.evil"  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.variables["user"] = "mallory"  # type: ignore[index]
    with pytest.raises(TypeError):
        state.variables["cart"][1]["sku"] = "b"
    with pytest.raises(AttributeError):
        state.variables["cart"].append(2)
    with pytest.raises(TypeError, match="read-only"):
        state.history.append(_event(2))
    with pytest.raises(TypeError):
        state.history[0].args["x"] = 99  # type: ignore[index]
    assert state.to_dict()["variables"] == {"user": "qa", "cart": [1, {"sku": "a"}]}


def test_a_history_longer_than_its_bound_keeps_the_newest() -> None:
    state = WorldState(history=tuple(_event(i) for i in range(5)), history_size=2)
    assert [e.args["x"] for e in state.history] == [3, 4]
    with pytest.raises(ValueError, match="history_size"):
        WorldState(history_size=0)
