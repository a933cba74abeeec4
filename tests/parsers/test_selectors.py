"""Selectors find the same things on parsed Android and iOS Scenes, XPath included."""

from __future__ import annotations

import pytest
from amc.core.errors import ConfigError, TargetNotFound
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector, tap_point
from amc.core.xpath import xpath_view
from amc.drivers.hierarchy import parse_source

from tests.parsers.support import parse_fixture


@pytest.fixture(scope="module")
def android() -> Scene:
    return parse_fixture("u2_settings_add_network_keyboard.xml")


@pytest.fixture(scope="module")
def ios() -> Scene:
    return parse_fixture("wda_settings_wifi_alert_keyboard.xml")


# --- field semantics --------------------------------------------------------------------------------


def test_id_matches_with_or_without_the_package_prefix(android: Scene) -> None:
    full = android.find_all(Selector(id="com.android.settings:id/ssid"))
    short = android.find_all(Selector(id="ssid"))
    assert len(full) == 1 and full == short
    assert android.find(Selector(id="d")) is None  # no suffix matching
    assert android.find(Selector(id="id/ssid")) is None
    assert android.find(Selector(id="android:id/button1")) is not None  # framework ids too
    assert [e.text for e in android.find_all(Selector(id="android:id/title", visible=None))][:2] == [
        "Metered",
        "Proxy",
    ]


def test_id_matches_the_ios_name(ios: Scene) -> None:
    more = ios.find_all(Selector(id="More Info"))
    assert len(more) == 10 and all(e.type == "XCUIElementTypeButton" for e in more)


def test_label_matches_content_desc_and_ios_label(android: Scene, ios: Scene) -> None:
    up = android.find(Selector(label="Navigate up"))
    assert up is not None and up.type == "android.widget.ImageButton" and up.text is None
    q = ios.find(Selector(label="q"))
    assert q is not None and q.type == "XCUIElementTypeKey"
    assert android.find(Selector(label="Add network")) is None  # that is a text, not a label


def test_text_falls_back_to_the_label_only_when_there_is_no_text(android: Scene) -> None:
    found = android.find(Selector(text="Scan QR code"))
    assert found is not None and found.label == "Scan QR code"


def test_type_short_and_full_forms(android: Scene, ios: Scene) -> None:
    assert android.find_all(Selector(type="EditText")) == android.find_all(
        Selector(type="android.widget.EditText")
    )
    assert len(android.find_all(Selector(type="EditText"))) == 2
    assert ios.find_all(Selector(type="Switch")) == ios.find_all(Selector(type="XCUIElementTypeSwitch"))
    assert android.find(Selector(type="Switch")) is None


def test_index_picks_the_nth_match(android: Scene) -> None:
    fields = android.find_all(Selector(type="EditText"))
    assert android.find_all(Selector(type="EditText", index=1)) == [fields[1]]
    assert android.find_all(Selector(type="EditText", index=2)) == []
    assert Selector(type="EditText", index=1).resolve(android) is fields[1]


def test_regex_and_contains(android: Scene, ios: Scene) -> None:
    assert [e.text for e in android.find_all(Selector(text_regex=r"^(Cancel|Save)$"))] == ["Cancel", "Save"]
    assert android.find(Selector(text_contains="Ströme")) is not None
    cells = ios.find_all(Selector(type="StaticText", text_regex=r"^DIRECT-\d\d-HP", visible=None))
    assert len(cells) == 11


def test_enabled_and_visible_filters(android: Scene) -> None:
    assert android.find(Selector(text="Save", enabled=True)) is None
    assert android.find(Selector(text="Save", enabled=False)) is not None
    hidden = android.find_all(Selector(id="android:id/title", visible=False))
    assert [e.text for e in hidden] == ["Metered", "Proxy", "IP settings", "Privacy"]


def test_resolve_names_the_selector_and_the_screen(ios: Scene) -> None:
    with pytest.raises(TargetNotFound, match=r"text='Bluetooth'.*com\.apple\.Preferences, 309 elements"):
        Selector(text="Bluetooth").resolve(ios)


def test_invalid_selectors_fail_when_built() -> None:
    with pytest.raises(ConfigError, match="at least one"):
        Selector(index=0)
    with pytest.raises(ConfigError, match="is empty"):
        Selector(id="")
    with pytest.raises(ConfigError, match="not a valid regex"):
        Selector(text_regex="(")
    with pytest.raises(ConfigError, match="must be a string"):
        Selector(xpath=3)  # type: ignore[arg-type]
    assert Selector.from_mapping({"xpath": "//node", "index": 2}).to_dict() == {
        "xpath": "//node",
        "index": 2,
        "visible": True,
    }


# --- XPath ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("expression", ["//node[", "//*[@text='a'", "///", "count(", "//a[@b=]", "1 +"])
def test_invalid_xpath_is_a_config_error_when_built(expression: str) -> None:
    with pytest.raises(ConfigError, match="not valid XPath"):
        Selector(xpath=expression)


def test_overlong_xpath_is_refused() -> None:
    with pytest.raises(ConfigError, match="longer than"):
        Selector(xpath="//a" + "/a" * 2000)


def test_xpath_on_android_by_native_names(android: Scene) -> None:
    by_native = android.find_all(
        Selector(xpath="//android.widget.EditText[@resource-id='com.android.settings:id/ssid']")
    )
    by_normalised = android.find_all(Selector(xpath="//*[@id='com.android.settings:id/ssid']"))
    assert len(by_native) == 1 and by_native == by_normalised == android.find_all(Selector(id="ssid"))
    assert android.find(Selector(xpath="//*[@content-desc='Navigate up']")) is android.find(
        Selector(label="Navigate up")
    )
    keys = android.find_all(
        Selector(xpath="//*[@package='com.google.android.inputmethod.latin'][@clickable='true']")
    )
    assert len(keys) == 35


def test_xpath_structure_and_functions(android: Scene) -> None:
    save = android.find(Selector(xpath="//*[@id='com.android.settings:id/button_bar']/*[last()]"))
    assert save is not None and save.text == "Save"
    texts = [
        e.text
        for e in android.find_all(
            Selector(xpath="//*[starts-with(@text, 'Pass') or contains(@text, 'Ströme')]")
        )
    ]
    assert texts == ["Café Ströme 5G", "Password", "Ströme"]  # the last is Gboard's suggestion
    assert android.find(Selector(xpath="/hierarchy")) is android.root
    assert android.find(Selector(xpath="//*[@text='']")) is None  # empty texts are absent


def test_xpath_on_ios(ios: Scene) -> None:
    alert_buttons = ios.find_all(Selector(xpath="//XCUIElementTypeAlert//XCUIElementTypeButton"))
    assert [b.label for b in alert_buttons] == ["Cancel", "OK"]
    on = ios.find_all(Selector(xpath="//XCUIElementTypeSwitch[@value='1']"))
    assert len(on) == 1 and on[0].checked is True
    assert ios.find(Selector(xpath="//*[@name='Settings' and @type='XCUIElementTypeButton']")) is not None
    assert ios.find(Selector(xpath="//*[@bounds='[195,420][338,464]']")) is not None


def test_xpath_combines_with_the_other_fields(ios: Scene) -> None:
    cells = "//XCUIElementTypeCell"
    everything = ios.find_all(Selector(xpath=cells, visible=None))
    visible = ios.find_all(Selector(xpath=cells))
    assert (len(everything), len(visible)) == (52, 11)
    second = ios.find_all(Selector(xpath=cells, index=1))
    assert second == [visible[1]]
    assert ios.find_all(Selector(xpath=cells, text_contains="Дача")) == [
        e for e in visible if e.label == "Дача"
    ]


def test_xpath_results_that_are_not_elements(android: Scene) -> None:
    assert android.find_all(Selector(xpath="//node/@text")) == []  # attribute values select nothing
    with pytest.raises(ConfigError, match="yields a float"):
        Selector(xpath="count(//*)")
    with pytest.raises(ConfigError, match="yields a bool"):
        Selector(xpath="1 = 1")
    for unknown in ("//*[@id=$missing]", "//*[no-such-function()]", "//re:x"):
        with pytest.raises(ConfigError, match="not valid XPath"):
            Selector(xpath=unknown)


def test_xpath_evaluation_errors_are_config_errors(android: Scene) -> None:
    view = xpath_view(android)
    with pytest.raises(ConfigError, match="cannot be evaluated"):
        view.select("//*[@id=$missing]")
    with pytest.raises(ConfigError, match="yields a float"):
        view.select("count(//*)")


def test_xpath_view_is_built_once_per_scene(android: Scene, ios: Scene) -> None:
    first = xpath_view(android)
    assert xpath_view(android) is first
    assert xpath_view(ios) is not first
    for _ in range(5):  # other Scenes push the old view out of the small cache
        xpath_view(parse_fixture("wda_springboard_home.xml"))
    assert xpath_view(android) is not first


def test_xpath_view_names_and_values_xml_cannot_hold() -> None:
    source = (
        '{"type": "Other", "name": "a\\u0000b", "label": "x\\ud800y", "children": [{"type": "Weird Type!"}]}'
    )
    scene = parse_source(source)
    weird = scene.find(Selector(xpath="//XCUIElementTypeWeird_Type_"))
    assert weird is not None and weird.type == "XCUIElementTypeWeird Type!"
    assert scene.find(Selector(xpath="//*[@id='a\ufffdb']", visible=None)) is scene.root


# --- tap points -------------------------------------------------------------------------------------------


def _el(bounds: Bounds) -> UIElement:
    return UIElement(type="android.widget.Button", text="Go", bounds=bounds)


WINDOW = Bounds(0, 0, 1080, 2400)


@pytest.mark.parametrize(
    ("bounds", "point"),
    [
        (Bounds(100, 200, 300, 400), (200, 300)),
        (Bounds(-100, 100, 100, 300), (50, 200)),  # clipped on the left
        (Bounds(980, 2300, 1180, 2500), (1030, 2350)),  # clipped at the bottom right
        (Bounds(-10, -10, 2000, 3000), (540, 1200)),  # larger than the screen
    ],
)
def test_tap_point_is_the_centre_of_the_visible_part(bounds: Bounds, point: tuple[int, int]) -> None:
    assert tap_point(_el(bounds), WINDOW) == point


@pytest.mark.parametrize(
    ("bounds", "match"),
    [
        (Bounds(0, 0, 0, 0), "zero size"),
        (Bounds(10, 10, 10, 50), "zero size"),
        (Bounds(50, 50, 40, 60), "zero size"),  # inverted
        (Bounds(-300, 100, -100, 200), "off screen"),
        (Bounds(100, 2400, 200, 2500), "off screen"),  # starts exactly at the bottom edge
        (Bounds(1080, 0, 1200, 100), "off screen"),
    ],
)
def test_tap_point_refuses_what_cannot_be_tapped(bounds: Bounds, match: str) -> None:
    with pytest.raises(TargetNotFound, match=match):
        tap_point(_el(bounds), WINDOW)


def test_tap_point_without_a_known_window_uses_the_bounds() -> None:
    assert tap_point(_el(Bounds(-100, -100, 100, 100)), Bounds(0, 0, 0, 0)) == (0, 0)
