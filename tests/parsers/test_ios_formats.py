"""iOS sources (WDA XML, Appium XCUITest, WDA JSON) become the Scenes a user expects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from amc.core.errors import TargetNotFound
from amc.core.models import Bounds
from amc.core.selectors import Selector, tap_point
from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import HOME_PAGE, DefaultEnricher
from amc.semantic.screen import alert_of, keyboard_visible
from lxml import etree

from tests.parsers.support import fixture, parse_fixture, the

NBH = "\u2011"
WIFI = f"Wi{NBH}Fi"
# "marhaba" between bidi isolates, then "how are you?" (escaped: ruff flags Arabic letters as confusables)
ARABIC = "\u2068\u0645\u0631\u062d\u0628\u0627\u2069\u060c \u0643\u064a\u0641 \u062d\u0627\u0644\u0643\u061f"


@pytest.fixture(scope="module")
def settings():  # type: ignore[no-untyped-def]
    return parse_fixture("wda_settings_wifi_alert_keyboard.xml", device_id="00008110-0001", backend="wda")


def test_wda_root_is_the_application(settings) -> None:  # type: ignore[no-untyped-def]
    assert settings.platform == "ios"
    assert settings.root.type == "XCUIElementTypeApplication"
    assert settings.root.identifier == "Settings" and settings.root.label == "Settings"
    assert settings.root.attributes["processId"] == "312"
    assert settings.foreground_app == "com.apple.Preferences"
    assert settings.window_size == (390, 844)
    assert len(settings) == 309


def test_wda_keyboard_and_alert_are_recognised(settings) -> None:  # type: ignore[no-untyped-def]
    assert keyboard_visible(settings) is True
    alert = alert_of(settings)
    assert alert is not None and alert.type == "XCUIElementTypeAlert" and alert.label == "Apple ID Password"
    semantic = DefaultEnricher().enrich(settings)
    assert semantic is not None
    assert (semantic.page, semantic.alert, semantic.keyboard_visible) == (WIFI, "Apple ID Password", True)


def test_wda_element_mapping(settings) -> None:  # type: ignore[no-untyped-def]
    switch = settings.find(Selector(type="Switch"))
    assert switch is not None
    assert switch.identifier == WIFI and switch.label == WIFI and switch.value == "1"
    assert switch.text == WIFI  # the label wins over the value
    assert switch.checked is True
    assert (switch.clickable, switch.focusable, switch.scrollable, switch.password) == (None,) * 4
    assert switch.attributes["traits"] == "Button"

    field = the(settings, type="XCUIElementTypeSecureTextField")
    assert field.label is None and field.value == "Password" and field.text == "Password"
    assert field.checked is None
    assert field.attributes["placeholderValue"] == "Password"

    ok = settings.find(Selector(text="OK"))
    assert ok is not None and ok.enabled is False and ok.bounds == Bounds(195, 420, 338, 464)


def test_wda_big_invisible_subtree_is_kept_and_flagged(settings) -> None:  # type: ignore[no-untyped-def]
    cells = [el for el in settings if el.type == "XCUIElementTypeCell"]
    hidden = [c for c in cells if not c.visible]
    assert len(cells) == 52 and len(hidden) == 41
    assert all(not el.visible for c in hidden for el in c.iter())
    assert settings.find(Selector(text="Other…")) is None
    assert settings.find(Selector(text="Other…", visible=False)) is not None


def test_wda_pixel_window_zero_size_and_negative_bounds(settings) -> None:  # type: ignore[no-untyped-def]
    keyboard_window = settings.root.children[1]
    assert keyboard_window.bounds == Bounds(0, 0, 1170, 2532)  # reported in pixels, kept as reported
    q = settings.find(Selector(type="Key", label="q"))
    assert q is not None and q.bounds == Bounds(0, 516, 39, 562)  # its keys are in points
    assert tap_point(keyboard_window, settings.window) == (195, 422)  # clipped to the screen
    zero = [el for el in settings if el.type == "XCUIElementTypeOther" and el.bounds.is_empty()]
    assert len(zero) == 1
    refresh = the(settings, identifier="RefreshControl")
    assert refresh.bounds == Bounds(0, -20, 390, 0)
    with pytest.raises(TargetNotFound, match="off screen"):
        tap_point(refresh, settings.window)


def test_springboard_name_is_a_single_space_and_it_is_the_home_screen() -> None:
    scene = parse_fixture("wda_springboard_home.xml")
    assert scene.root.identifier == " " and scene.root.label == " " and scene.root.text == " "
    assert scene.foreground_app == "com.apple.springboard"
    semantic = DefaultEnricher().enrich(scene)
    assert semantic is not None and semantic.page == HOME_PAGE
    mail = scene.find(Selector(type="Icon", text="Mail"))
    assert mail is not None and mail.value == "12 unread messages"
    today = the(scene, identifier="Today View")
    assert today.bounds == Bounds(-390, 0, 0, 844) and today.visible is False
    assert len(scene.find_all(Selector(type="Icon", visible=False))) == 12


def test_appium_xcuitest_source_is_unwrapped() -> None:
    scene = parse_fixture("appium_xcuitest_messenger.xml")
    assert scene.root.type == "XCUIElementTypeApplication"  # not AppiumAUT
    assert scene.root.identifier == "Messenger"
    assert scene.foreground_app is None  # this driver version reports no bundleId
    assert scene.window_size == (390, 844)
    assert len(scene) == 63
    anna = scene.find(Selector(text="Анна Петрова"))
    assert anna is not None and anna.attributes["index"] == "1" and anna.attributes["accessible"] == "false"


def test_appium_xcuitest_fractional_coordinates_round_like_from_rect() -> None:
    scene = parse_fixture("appium_xcuitest_messenger.xml")
    table = the(scene, type="XCUIElementTypeTable")
    assert table.bounds == Bounds.from_rect(0, 190.5, 390, 570)
    first = scene.find(Selector(id="chat_0"))
    assert first is not None and first.bounds == Bounds.from_rect(0, 190.5, 390, 76.5)


def test_appium_xcuitest_text_flags_and_scripts() -> None:
    scene = parse_fixture("appium_xcuitest_messenger.xml")
    mute = scene.find(Selector(id="mute_switch"))
    assert mute is not None and mute.checked is False and mute.value == "0"
    chats = scene.find(Selector(type="Button", text="Chats"))
    assert chats is not None and chats.selected is True
    texts = scene.texts()
    for expected in (
        "王伟",
        "Yuki 🌸",
        ARABIC,
        "Design & Dev",
        "Lena: <b>draft</b> is up",
    ):
        assert expected in texts
    assert "Archived chat 3" not in texts


def test_wda_json_wrapped_reply() -> None:
    scene = parse_fixture("wda_clock_alarms.json")
    assert scene.root.type == "XCUIElementTypeApplication"
    assert scene.root.attributes["type"] == "Application"  # raw attributes keep WDA's spelling
    assert scene.foreground_app is None  # the JSON source carries no bundle id
    assert scene.window_size == (390, 844)
    assert len(scene) == 56
    switches = scene.find_all(Selector(type="XCUIElementTypeSwitch", visible=None))
    assert [s.checked for s in switches[:4]] == [True, False, True, False]
    assert sum(1 for s in switches if not s.visible) == 12
    set_up = scene.find(Selector(id="SET UP"))
    assert set_up is not None and set_up.enabled is False and set_up.text == "Set Up"
    assert scene.find(Selector(text="Лечь спать")) is not None
    first = scene.find(Selector(id="6:30AM"))
    assert first is not None and first.attributes["x"] == "20" and first.attributes["height"] == "56"
    assert DefaultEnricher().enrich(scene).page == "Alarms"  # type: ignore[union-attr]


def test_wda_json_bare_and_wrapped_give_the_same_scene() -> None:
    wrapped = json.loads(fixture("wda_clock_alarms.json"))
    bare = parse_source(json.dumps(wrapped["value"]))
    assert bare.root.to_dict() == parse_fixture("wda_clock_alarms.json").root.to_dict()
    old_tree_route = parse_source(json.dumps({"value": {"tree": wrapped["value"]}}))
    assert old_tree_route.root.to_dict() == bare.root.to_dict()


def test_a_json_reply_carrying_xml_is_read_as_xml() -> None:
    xml = fixture("wda_springboard_home.xml").decode("utf-8")
    scene = parse_source(json.dumps({"value": xml, "sessionId": "s"}))
    assert scene.foreground_app == "com.apple.springboard" and len(scene) == 52


def _as_wda_json(el: Any) -> dict[str, Any]:
    """What WDA's /source?format=json says about the same element as its XML source."""
    get = el.get
    node: dict[str, Any] = {
        "type": get("type").removeprefix("XCUIElementType"),
        "name": get("name"),
        "label": get("label"),
        "value": get("value"),
        "rect": {k: float(get(k)) for k in ("x", "y", "width", "height")},
        "isEnabled": "1" if get("enabled") == "true" else "0",
        "isVisible": "1" if get("visible") == "true" else "0",
    }
    if len(el):
        node["children"] = [_as_wda_json(c) for c in el]
    return node


def test_xml_and_json_sources_of_one_screen_agree() -> None:
    xml = fixture("wda_settings_wifi_alert_keyboard.xml")
    from_xml = parse_source(xml)
    from_json = parse_source(json.dumps({"value": _as_wda_json(etree.fromstring(xml)), "sessionId": "s"}))
    fields = ("type", "text", "label", "identifier", "value", "bounds", "enabled", "visible", "checked")
    assert [[getattr(e, f) for f in fields] for e in from_json] == [
        [getattr(e, f) for f in fields] for e in from_xml
    ]
    assert keyboard_visible(from_json) and alert_of(from_json) is not None
