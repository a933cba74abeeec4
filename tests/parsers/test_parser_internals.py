"""The shortcuts the parsers take stay invisible: same values, same results on every thread."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from concurrent.futures import ThreadPoolExecutor

import pytest
from amc.core.errors import SceneParseError
from amc.core.lazy import LazyElement, set_children
from amc.core.models import Bounds, UIElement
from amc.drivers.hierarchy import parse_source
from amc.drivers.hierarchy.common import EMPTY, new_bounds, new_view, rect_bounds

from tests.parsers.support import fixture


def test_fast_constructors_build_equal_values() -> None:
    child = UIElement(type="b")
    args = dict(
        type="android.widget.Switch",
        text="Wi-Fi",
        label="Wi-Fi",
        identifier="com.android.settings:id/switch_widget",
        value=None,
        bounds=Bounds(1, 2, 3, 4),
        enabled=False,
        visible=True,
        clickable=True,
        focusable=False,
        focused=None,
        selected=False,
        checked=True,
        scrollable=None,
        password=False,
        children=(child,),
        attributes={"package": "com.android.settings"},
    )
    slow = UIElement(**args)  # type: ignore[arg-type]

    class OneChild:  # the TreeSource of a node whose one child is ``child``
        def children_of(self, el: LazyElement) -> tuple[UIElement, ...]:
            set_children(el, (child,))
            return (child,)

    values = {k: v for k, v in args.items() if k != "children"}
    fast = new_view(OneChild(), object(), *values.values())  # type: ignore[arg-type]
    assert type(fast) is LazyElement
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert fast.attributes == slow.attributes and fast.children[0] is child
    assert pickle.loads(pickle.dumps(fast)) == slow and type(copy.copy(fast)) is UIElement
    assert new_bounds(1, 2, 3, 4) == Bounds(1, 2, 3, 4) and Bounds(0, 0, 0, 0) == EMPTY
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.text = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("rect", "expected"),
    [
        ((0, 190.5, 390, 76.5), Bounds.from_rect(0, 190.5, 390, 76.5)),
        ((-390, 0, 390, 844), Bounds(-390, 0, 0, 844)),
        ((float("nan"), float("inf"), 10, float("-inf")), Bounds(0, 0, 10, 0)),
    ],
)
def test_rect_bounds_rounds_like_from_rect(rect: tuple[float, ...], expected: Bounds) -> None:
    assert rect_bounds(*rect) == expected


def test_ampersand_references_read_as_ampersands() -> None:
    scene = parse_source(
        '<hierarchy><node text="&amp; &#38; &#x26; &#038; &lt;" content-desc="a&amp;b" '
        'bounds="[0,0][1,1]"/></hierarchy>'
    )
    node = scene.root.children[0]
    assert (node.text, node.label) == ("& & & & <", "a&b")
    assert node.attributes["text"] == "& & & & <"


def test_literal_character_references_in_text_survive() -> None:
    scene = parse_source(
        '<hierarchy><node text="&amp;#38; &amp;amp; &#x26;" bounds="[0,0][1,1]"/></hierarchy>'
    )
    assert scene.root.children[0].text == "&#38; &amp; &"


def test_a_failed_parse_leaves_nothing_behind_for_the_next() -> None:
    good = fixture("u2_notes_permission_dialog.xml")
    expected = parse_source(good).root.to_dict()
    with pytest.raises(SceneParseError):
        parse_source(good[: len(good) // 2])
    with pytest.raises(SceneParseError, match="deeper than 3"):
        parse_source(good, max_depth=3)
    assert parse_source(good).root.to_dict() == expected
    with pytest.raises(SceneParseError, match="more than 10 elements"):
        parse_source(good, max_elements=10)
    assert len(parse_source(good)) == 56


def test_parsing_on_many_threads_gives_the_same_scenes() -> None:
    names = [
        "u2_settings_add_network_keyboard.xml",
        "wda_settings_wifi_alert_keyboard.xml",
        "appium_uia2_new_wallet_login_ru.xml",
        "appium_xcuitest_messenger.xml",
        "wda_clock_alarms.json",
    ]
    sources = [fixture(n) for n in names]
    expected = [parse_source(s).root.to_dict() for s in sources]

    def parse_all(shift: int) -> dict[int, dict[str, object]]:
        # Each worker starts at a different source so that formats interleave across threads.
        order = [(shift + i) % len(sources) for i in range(len(sources))]
        return {i: parse_source(sources[i]).root.to_dict() for i in order}

    with ThreadPoolExecutor(max_workers=4) as pool:
        for result in pool.map(parse_all, range(12)):
            assert result == dict(enumerate(expected))
