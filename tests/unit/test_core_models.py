"""Core values: validation when built, geometry, iteration, to_dict, selectors."""

from __future__ import annotations

import json

import pytest
from amc.core.errors import (
    AppNotInstalled,
    ConfigError,
    DeviceTimeout,
    HarnessError,
    SceneParseError,
    TargetNotFound,
)
from amc.core.models import Bounds, PlannedStep, Scene, StepResult, UIElement
from amc.core.selectors import Selector, tap_point

from tests.unit.fakes import scene


def test_bounds_geometry() -> None:
    b = Bounds(10, 20, 110, 220)
    assert (b.width, b.height, b.center) == (100, 200, (60, 120))
    assert Bounds(5, 5, 5, 50).is_empty()
    assert b.intersection(Bounds(100, 200, 300, 300)) == Bounds(100, 200, 110, 220)
    assert b.intersection(Bounds(500, 500, 600, 600)) is None
    assert Bounds.from_rect(1.4, 2.6, 10, 10) == Bounds(1, 3, 11, 13)


@pytest.mark.parametrize("action", ["", "   ", None, 3])
def test_planned_step_refuses_an_empty_or_non_string_action(action: object) -> None:
    with pytest.raises(ValueError, match="action"):
        PlannedStep(action)  # type: ignore[arg-type]


@pytest.mark.parametrize("args", [["x", 1], "x=1", 5])
def test_planned_step_refuses_non_mapping_args(args: object) -> None:
    with pytest.raises(ValueError, match="args"):
        PlannedStep("tap", args)  # type: ignore[arg-type]


def test_planned_step_copies_its_args_and_only_action_is_required() -> None:
    args = {"x": 1, "y": 2}
    step = PlannedStep("tap", args)
    args["x"] = 99
    assert step.args == {"x": 1, "y": 2}
    assert PlannedStep("describe_screen").args == {}
    assert StepResult(success=True).error is None


def test_step_result_to_dict_summarises_bytes() -> None:
    data = StepResult(success=True, output=b"\x89PNG" * 10).to_dict()
    assert data["output"] == "<40 bytes>"
    json.dumps(data)


def test_errors_share_one_root_and_name_their_kind() -> None:
    for exc in (
        AppNotInstalled("x"),
        DeviceTimeout("t"),
        SceneParseError("bad", format="wda-xml", position="3:4"),
    ):
        assert isinstance(exc, HarnessError)
    assert AppNotInstalled("x").kind == "AppNotInstalled"
    assert DeviceTimeout("t").transient and not AppNotInstalled("x").transient
    assert "format wda-xml, at 3:4" in str(SceneParseError("bad", format="wda-xml", position="3:4"))


def test_scene_iterates_depth_first_and_finds() -> None:
    s = scene("Wi-Fi", "Bluetooth", title="Settings")
    assert s.texts() == ["Settings", "Wi-Fi", "Bluetooth"]
    assert len(s) == 5
    found = s.find(Selector(text="Bluetooth"))
    assert found is not None and found.text == "Bluetooth"
    assert s.find(lambda el: el.text == "nope") is None
    assert [e.text for e in s.find_all(Selector(text_contains="i"))] == ["Settings", "Wi-Fi"]
    json.dumps(s.to_dict())


def test_scene_refuses_an_unknown_platform() -> None:
    with pytest.raises(ValueError, match="platform"):
        Scene("d", "windows", UIElement("root"))  # type: ignore[arg-type]


def test_selector_id_matches_with_or_without_the_package_prefix() -> None:
    el = UIElement("android.widget.Button", identifier="com.app:id/login", bounds=Bounds(0, 0, 10, 10))
    assert Selector(id="login").matches(el)
    assert Selector(id="com.app:id/login").matches(el)
    assert not Selector(id="other_login").matches(el)
    assert Selector(type="Button").matches(el)
    assert Selector(type="android.widget.Button").matches(el)


def test_selector_refuses_bad_fields() -> None:
    with pytest.raises(ConfigError, match="at least one"):
        Selector()
    with pytest.raises(ConfigError, match="regex"):
        Selector(text_regex="(")
    with pytest.raises(ConfigError, match="index"):
        Selector(text="a", index=-1)
    with pytest.raises(ConfigError, match="unknown selector field"):
        Selector.from_mapping({"txt": "a"})


def test_tap_point_clips_to_the_window_and_refuses_unusable_targets() -> None:
    window = Bounds(0, 0, 100, 100)
    partly = UIElement("v", bounds=Bounds(50, 80, 150, 120))
    assert tap_point(partly, window) == (75, 90)
    with pytest.raises(TargetNotFound, match="zero size"):
        tap_point(UIElement("v", bounds=Bounds(10, 10, 10, 50)), window)
    with pytest.raises(TargetNotFound, match="off screen"):
        tap_point(UIElement("v", bounds=Bounds(10, 200, 50, 250)), window)


def test_a_huge_selector_value_is_cut_in_messages() -> None:
    with pytest.raises(TargetNotFound) as caught:
        Selector(text="x" * 1_000_000).resolve(scene("a"))
    assert len(str(caught.value)) < 500 and "chars" in str(caught.value)
