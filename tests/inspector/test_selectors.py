"""Unique selectors: each one the inspector offers finds the element and only it, on the same
Scene, and is a selector the flow loader accepts as written."""

from __future__ import annotations

import pytest
from amc.connect.simulated import SimDriver
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector
from amc.flows import parse_flow
from amc.inspector import flow_yaml, unique_selectors

from tests.parsers.support import FIXTURES, parse_fixture


def _screens() -> list[tuple[str, Scene]]:
    out: list[tuple[str, Scene]] = []
    for platform, app in (("android", "com.android.settings"), ("ios", "com.apple.Preferences")):
        driver = SimDriver("android" if platform == "android" else "ios")
        out.append((f"sim {platform} home", driver.observe()))
        driver.launch_app(app)
        out.append((f"sim {platform} settings", driver.observe()))
        driver.launch_app("com.example.amc.demo")
        out.append((f"sim {platform} demo", driver.observe()))
    for path in sorted(FIXTURES.iterdir()):
        out.append((path.name, parse_fixture(path.name)))
    return out


SCREENS = _screens()


def _loaded(fields: dict[str, object]) -> Selector:
    """The selector as a flow file written with it gives it to the executor."""
    flow = parse_flow(f"steps:\n  - tap: {flow_yaml(fields)}\n", environ={})
    return Selector.from_mapping(flow.steps[0].args["target"])


@pytest.mark.parametrize(("name", "scene"), SCREENS, ids=[name for name, _ in SCREENS])
def test_every_suggestion_loads_and_finds_exactly_its_element(name: str, scene: Scene) -> None:
    checked = 0
    for element in scene:
        suggestions = unique_selectors(scene, element)
        assert suggestions, f"{name}: no selector for {element.type} {element.display_text!r}"
        assert suggestions[-1].kind == "xpath"  # an XPath always exists
        for suggestion in suggestions:
            found = _loaded(dict(suggestion.fields)).find_all(scene)
            assert len(found) == 1 and found[0] is element, (name, suggestion.yaml)
            checked += 1
    assert checked > len(scene)


def test_fields_are_named_by_id_and_rows_by_their_text() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.example.amc.demo")
    scene = driver.observe()
    field = scene.find(Selector(id="username"))
    button = scene.find(Selector(text="Sign in"))
    assert field is not None and button is not None
    assert unique_selectors(scene, field)[0].yaml == "{id: username}"
    assert unique_selectors(scene, button)[0].yaml == "{text: Sign in}"


def _scene(*texts: str) -> Scene:
    children = tuple(
        UIElement("android.widget.TextView", text=t, bounds=Bounds(0, 100 * i, 500, 100 * i + 90))
        for i, t in enumerate(texts)
    )
    root = UIElement("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=children)
    return Scene("x", "android", root, window_size=(1080, 2400))


HOSTILE = [
    "true",
    "123",
    "null",
    "- item",
    "key: value",
    "#comment",
    "${HOME}",
    "$${HOME}",
    'He said "it\'s fine"',
    "tab\there",
    "line\nbreak",
    "emoji \U0001f600 and \u2028",
    "   spaced   ",
    "{braces}",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_texts_yaml_or_flows_would_misread_round_trip_exactly(text: str) -> None:
    scene = _scene("Other", text)
    element = scene.root.children[1]
    suggestions = unique_selectors(scene, element)
    assert suggestions[0].fields == {"text": text}
    for suggestion in suggestions:
        assert _loaded(dict(suggestion.fields)).find_all(scene) == [element], suggestion.yaml


def test_twins_get_an_xpath_by_position_and_hidden_elements_say_so() -> None:
    scene = _scene("Same", "Same")
    first, second = scene.root.children
    for element in (first, second):
        (only,) = unique_selectors(scene, element)
        assert only.kind == "xpath" and _loaded(dict(only.fields)).find_all(scene) == [element]
    hidden = UIElement(
        "android.widget.TextView", text="Off screen", visible=False, bounds=Bounds(0, 3000, 1, 3001)
    )
    root = UIElement("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=(hidden,))
    scene = Scene("x", "android", root, window_size=(1080, 2400))
    best = unique_selectors(scene, hidden)[0]
    assert best.fields == {"text": "Off screen", "visible": False}
