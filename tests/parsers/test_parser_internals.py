"""The shortcuts the parsers take stay invisible: same values, same results on every thread."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from amc.core.errors import SceneParseError
from amc.core.lazy import LazyElement, set_children
from amc.core.models import Bounds, UIElement
from amc.core.selectors import Selector
from amc.drivers.hierarchy import parse_source
from amc.drivers.hierarchy.common import EMPTY, new_bounds, new_view, rect_bounds
from amc.drivers.hierarchy.schema import ANDROID, query_plan
from amc.drivers.hierarchy.walk import walker
from lxml import etree

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


def test_raw_attributes_of_a_parsed_element_read_the_document_and_cannot_be_written() -> None:
    scene = parse_source(fixture("u2_settings_add_network_keyboard.xml"))
    ssid = next(el for el in scene.root.iter() if el.attributes.get("hint") == "Enter the SSID")
    attrs = ssid.attributes
    node = ssid._node  # type: ignore[attr-defined]
    assert list(attrs) == list(node.keys()) and len(attrs) == len(node.keys()) == 21
    assert dict(attrs) == dict(node.items()) and attrs == dict(node.items())  # equal to the dict
    assert (
        attrs["hint"] == "Enter the SSID" and "hint" in attrs and attrs.get("hint", "x") == "Enter the SSID"
    )
    probe: Any = attrs  # what a caller may ask of any Mapping
    for missing in ("no-such", "", "a b", "bad\x00name", 7):  # absent, whatever lxml makes of it
        assert missing not in probe and probe.get(missing) is None and probe.get(missing, "dflt") == "dflt"
        with pytest.raises(KeyError):
            probe[missing]
    with pytest.raises(TypeError):
        probe["hint"] = "changed"
    assert ssid.attributes["hint"] == "Enter the SSID"
    for copied in (
        pickle.loads(pickle.dumps(attrs)),
        copy.deepcopy(attrs),
        pickle.loads(pickle.dumps(ssid)).attributes,
    ):
        assert type(copied) is dict and copied == dict(node.items())
    assert repr(attrs) == repr(dict(node.items()))


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


@pytest.mark.parametrize(
    "text",
    ["'); import os; os._exit(1) #", '"""\n', "{n0}", "\\", "v == n0 or True"],
)
def test_a_selector_text_is_a_value_never_code(text: str) -> None:
    node = etree.Element("node", {"text": text, "bounds": "[0,0][10,10]"})
    other = etree.Element("node", {"text": "else", "bounds": "[0,10][10,20]"})
    root = etree.Element("hierarchy", {"rotation": "0"})
    root.extend([node, other])
    scene = parse_source(etree.tostring(root))
    assert Selector(text=text).resolve(scene).text == text
    assert Selector(text_contains=text[1:] or text).find_all(scene)[0].text == text
    assert Selector(text="else").find_all(scene)[0].bounds == Bounds(0, 10, 10, 20)


def test_walkers_are_written_once_per_shape_of_plan() -> None:
    one, needles_one = walker(query_plan(ANDROID, ((("text", "=", "a"), ("label", "=", "a")),)))
    two, needles_two = walker(query_plan(ANDROID, ((("text", "=", "b"), ("label", "=", "b")),)))
    assert one is two and needles_one == ("a", "a") and needles_two == ("b", "b")
    never, needles = walker(query_plan(ANDROID, ((("value", "=", "x"),),)))  # Android has no value attribute
    assert (
        needles == ()
        and list(never(iter([etree.Element("node", {"text": "x"})]), lambda n: n, needles)) == []
    )


def test_json_numbers_and_flags_are_found_as_the_strings_their_elements_hold() -> None:
    kids = [
        {"type": "StaticText", "label": 5, "rect": {"x": 0, "y": 0, "width": 10, "height": 10}},
        {"type": "Switch", "name": 0, "value": True, "rect": {"x": 0, "y": 10, "width": 10, "height": 10}},
        {"type": "Cell", "label": "", "value": 2.0, "rect": {"x": 0, "y": 20, "width": 10, "height": 10}},
    ]
    tree = {"type": "Application", "label": "App", "children": kids}
    scene = parse_source(json.dumps({"value": tree}))
    assert Selector(text="5").resolve(scene).type == "XCUIElementTypeStaticText"
    assert Selector(id="0").resolve(scene).checked is True  # value true: "1", a switch that is on
    assert Selector(text="1").resolve(scene).identifier == "0"
    assert Selector(text="2").resolve(scene).type == "XCUIElementTypeCell"
    assert Selector(text_contains="App", type="Application").find_all(scene) == [scene.root]
    assert Selector(type="XCUIElementTypeSwitch").resolve(scene).identifier == "0"
    assert Selector(text="3").first(scene) is None
