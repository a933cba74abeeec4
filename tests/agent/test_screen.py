"""The compact screen: every listed element's selector finds that element, on real-format dumps."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.agent.screen import compact_screen
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector
from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import DefaultEnricher, enrich_scene
from amc.semantic.models import Observation

from tests.parsers.support import FIXTURES, SHARED_ANDROID

# The project's fixtures of every accepted format, and the real captures beside the repository.
DUMPS = sorted(FIXTURES.iterdir()) + (sorted(SHARED_ANDROID.glob("*.xml")) if SHARED_ANDROID.is_dir() else [])


def _observe(scene: Scene) -> Observation:
    return Observation(scene, enrich_scene(scene, DefaultEnricher()))


def _by_bounds(scene: Scene, bounds: tuple[int, int, int, int]) -> list[UIElement]:
    return [
        el for el in scene if (el.bounds.left, el.bounds.top, el.bounds.right, el.bounds.bottom) == bounds
    ]


@pytest.mark.parametrize("path", DUMPS, ids=[p.name for p in DUMPS])
def test_every_listed_target_resolves_to_the_element_it_lists(path: Path) -> None:
    scene = parse_source(path.read_bytes())
    name = path.name
    screen = compact_screen(_observe(scene), limit=500)
    assert screen.elements, f"{name}: nothing listed"
    for element in screen.elements:
        found = Selector.from_mapping(dict(element.target)).resolve(scene)
        assert found in _by_bounds(scene, element.bounds), f"{name}: {element.to_text()}"
    assert [e.ref for e in screen.elements] == [f"e{i}" for i in range(1, len(screen.elements) + 1)]


def test_a_unique_text_beats_a_shared_id() -> None:
    row = UIElement(
        "android.widget.TextView", text="Wi-Fi", identifier="android:id/title", bounds=Bounds(0, 0, 9, 9)
    )
    other = UIElement(
        "android.widget.TextView", text="Bluetooth", identifier="android:id/title", bounds=Bounds(0, 9, 9, 19)
    )
    field = UIElement(
        "android.widget.EditText", text="Name", identifier="com.x:id/name", bounds=Bounds(0, 19, 9, 29)
    )
    root = UIElement(
        "android.widget.FrameLayout", bounds=Bounds(0, 0, 100, 100), children=(other, row, field)
    )
    scene = Scene("d", "android", root, foreground_app="com.x", window_size=(100, 100))
    targets = {e.text: dict(e.target) for e in compact_screen(Observation(scene)).elements}
    assert targets == {"Wi-Fi": {"text": "Wi-Fi"}, "Bluetooth": {"text": "Bluetooth"}, "Name": {"id": "name"}}


def test_password_fields_show_no_text_and_are_found_by_id() -> None:
    secret = UIElement(
        "android.widget.EditText",
        text="hunter2",
        identifier="com.x:id/pw",
        password=True,
        bounds=Bounds(0, 0, 50, 10),
    )
    root = UIElement("android.widget.FrameLayout", bounds=Bounds(0, 0, 100, 100), children=(secret,))
    screen = compact_screen(Observation(Scene("d", "android", root, window_size=(100, 100))))
    listed = next(e for e in screen.elements if e.id == "com.x:id/pw")
    assert listed.text == "***" and dict(listed.target) == {"id": "pw"}
    assert "hunter2" not in screen.to_text() and "hunter2" not in str(screen.to_dict())


def test_hidden_off_screen_blank_and_empty_layout_elements_are_left_out() -> None:
    kept = UIElement("android.widget.Button", text="OK", bounds=Bounds(10, 10, 50, 30))
    hidden = UIElement("android.widget.Button", text="Hidden", visible=False, bounds=Bounds(10, 40, 50, 60))
    away = UIElement("android.widget.Button", text="Away", bounds=Bounds(500, 500, 600, 600))
    blank = UIElement("android.widget.TextView", text="  ", bounds=Bounds(10, 70, 50, 80))
    box = UIElement(
        "android.widget.LinearLayout", bounds=Bounds(0, 0, 100, 100), children=(kept, hidden, away, blank)
    )
    screen = compact_screen(Observation(Scene("d", "android", box, window_size=(100, 100))))
    assert [e.text for e in screen.elements] == ["OK"]


def test_the_list_stops_at_its_limit_and_says_how_many_more() -> None:
    buttons = tuple(
        UIElement("android.widget.Button", text=f"B{i}", bounds=Bounds(0, i, 10, i + 1)) for i in range(30)
    )
    root = UIElement("android.widget.FrameLayout", bounds=Bounds(0, 0, 100, 100), children=buttons)
    screen = compact_screen(Observation(Scene("d", "android", root, window_size=(100, 100))), limit=10)
    assert len(screen.elements) == 10 and screen.omitted == 20
    assert screen.to_text().endswith("… and 20 more elements")
    assert screen.to_text().splitlines()[1] == 'e1 Button "B0" [0,0][10,1] target={"text":"B0"}'
