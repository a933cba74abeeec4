"""Maestro's element choice (core/relative.py) on a screen built by hand: what each rule picks."""

from __future__ import annotations

from typing import Any

import pytest
from amc.actions.waiting import target_check
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector


def _el(kind: str, box: tuple[int, int, int, int], **fields: Any) -> UIElement:
    return UIElement(kind, bounds=Bounds(*box), **fields)


ROW_A = _el(
    "LinearLayout",
    (0, 100, 1000, 200),
    clickable=True,
    label="Trip",  # its accessibility text, as its TextView's
    children=(
        _el("TextView", (10, 110, 500, 190), text="Trip"),
        _el("Button", (800, 110, 990, 190), text="Delete", identifier="com.app:id/delete"),
    ),
)
ROW_B = _el(
    "LinearLayout",
    (0, 200, 1000, 300),
    clickable=True,
    children=(
        _el("TextView", (10, 210, 500, 290), text="Shopping\nlist"),
        _el("Button", (800, 210, 990, 290), text="Delete", identifier="com.app:id/delete"),
    ),
)
SCREEN = Scene(
    "emulator-5554",
    "android",
    _el(
        "FrameLayout",
        (0, 0, 1000, 2000),
        children=(
            ROW_A,
            ROW_B,
            _el(
                "EditText",
                (0, 300, 1000, 400),
                identifier="com.app:id/name",
                attributes={"hint": "Your name"},
            ),
            _el("TextView", (0, 1990, 1000, 2200), text="Footer"),  # 5 % on screen: not there
            _el("TextView", (0, 400, 1000, 500), text="Price (USD)"),
        ),
    ),
    window_size=(1000, 2000),
)


def _found(**fields: Any) -> list[str]:
    selector = Selector.from_mapping({"pick": "maestro", **fields})
    return [f"{el.text or el.identifier}@{el.bounds.top}" for el in selector.find_all(SCREEN)]


@pytest.mark.parametrize(
    ("fields", "first"),
    [
        ({"text_matches": "TRIP"}, "Trip@110"),  # ignoring case
        ({"text_matches": "Tri"}, None),  # the whole text, not a part
        ({"text_matches": "shop.*"}, "Shopping\nlist@210"),  # . crosses the line break
        ({"text_matches": "Shopping list"}, "Shopping\nlist@210"),  # the line break read as a space
        ({"text_matches": "Price (USD)"}, "Price (USD)@400"),  # equal to the pattern itself
        ({"text_matches": "[unclosed"}, None),  # taken literally: nothing reads "[unclosed"
        ({"text_matches": "your NAME"}, "com.app:id/name@300"),  # the hint
        ({"id_matches": "name"}, "com.app:id/name@300"),  # the id after its package
        ({"id_matches": "na"}, None),
        ({"text_matches": "Footer"}, None),  # less than 10 % on screen
        ({"text_matches": "Delete", "index": 1}, "Delete@210"),
        ({"text_matches": "Delete", "index": -1}, "Delete@210"),
        ({"text_matches": "Delete", "index": 2}, None),
        # below: a top-left corner lower than the anchor's (the same row's button is level with it)
        ({"text_matches": "Delete", "below": {"text_matches": "Trip"}}, "Delete@210"),
        ({"text_matches": "Delete", "below": {"text_matches": "Shopping.*"}}, None),
        ({"text_matches": "Delete", "above": {"text_matches": "Shopping.*"}}, "Delete@110"),
        ({"text_matches": "Delete", "right_of": {"text_matches": "shopping list"}}, "Delete@210"),
        ({"text_matches": "Trip", "left_of": {"text_matches": "Delete"}}, "Trip@110"),
        (
            {"text_matches": "Delete", "child_of": {"contains_child": {"text_matches": "Shop.*"}}},
            "Delete@210",
        ),
        ({"contains_descendants": [{"text_matches": "Trip"}, {"text_matches": "Delete"}]}, "None@100"),
    ],
)
def test_maestros_rules_pick_this_element(fields: dict[str, Any], first: str | None) -> None:
    found = _found(**fields)
    assert (found[0] if found else None) == first, found


def test_clickable_matches_come_first_and_the_deepest_match_wins() -> None:
    rows = Selector.from_mapping({"pick": "maestro", "contains_child": {"text_matches": "Delete"}})
    assert [el.bounds.top for el in rows.find_all(SCREEN)] == [100, 200]
    # a selector matching a row and its own text keeps the text (the deepest), not the row
    deep = Selector.from_mapping({"pick": "maestro", "text_matches": "trip"})
    assert [el.type for el in deep.find_all(SCREEN)] == ["TextView"]
    # an empty pattern matches what has no text at all (Maestro reads a missing text as "")
    empty = Selector.from_mapping({"pick": "maestro", "text_matches": "", "index": 0})
    assert [el.type for el in empty.find_all(SCREEN)] == ["LinearLayout"]


LINES = Scene(
    "emulator-5554",
    "android",
    _el(
        "FrameLayout",
        (0, 0, 1000, 2000),
        children=(
            _el("TextView", (0, 100, 500, 100), text="Flat"),  # zero height, on screen
            _el("TextView", (300, 200, 300, 400), text="Thin"),  # zero width, on screen
            _el("TextView", (50, 50, 50, 50), text="Dot"),  # zero by zero
            _el("TextView", (0, 2500, 500, 2500), text="Gone"),  # zero height, below the screen
        ),
    ),
    window_size=(1000, 2000),
)


@pytest.mark.parametrize(
    ("text", "point"),
    [("Flat", (250, 100)), ("Thin", (300, 300)), ("Dot", None), ("Gone", None)],
)
def test_a_line_on_screen_is_found_and_touched_at_its_centre(
    text: str, point: tuple[int, int] | None
) -> None:
    """Maestro finds an element of zero width or height (its visible share is 0 / 0, never below
    10 %) and taps its centre; a point is 0 % and an element off screen is not there."""
    maestro = Selector.from_mapping({"pick": "maestro", "text_matches": text})
    found = target_check(maestro, [])(LINES)
    assert (found.point if found is not None else None) == point
    assert bool(maestro.find_all(LINES)) is (point is not None)
    # this harness's own selectors keep their rule: nothing of zero size is touched
    problems: list[str] = []
    assert target_check(Selector.from_mapping({"text": text}), problems)(LINES) is None
