"""Formats are told apart on their own; every encoding a capture arrives in reads the same."""

from __future__ import annotations

import codecs

import pytest
from amc.core.errors import ConfigError, SceneParseError
from amc.drivers.hierarchy import decode_source, detect_format, parse_source

from tests.parsers.support import FIXTURES, fixture, parse_fixture

EXPECTED_FORMATS = {
    "u2_settings_add_network_keyboard.xml": "uiautomator",
    "u2_notes_permission_dialog.xml": "uiautomator",
    "u2_tablet_letterboxed_keep.xml": "uiautomator",
    "uiautomator_tty_dialog.xml": "uiautomator",
    "uiautomator_tty_dialog_windows_utf16le_bom.xml": "uiautomator",
    "uiautomator_landscape_zh_settings.xml": "uiautomator",
    "appium_uia2_old_calculator.xml": "appium-uiautomator2",
    "appium_uia2_new_wallet_login_ru.xml": "appium-uiautomator2",
    "wda_settings_wifi_alert_keyboard.xml": "wda-xml",
    "wda_springboard_home.xml": "wda-xml",
    "appium_xcuitest_messenger.xml": "appium-xcuitest",
    "wda_clock_alarms.json": "wda-json",
}


def test_every_fixture_is_listed() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(EXPECTED_FORMATS)


@pytest.mark.parametrize(("name", "fmt"), sorted(EXPECTED_FORMATS.items()))
def test_format_is_detected(name: str, fmt: str) -> None:
    data, _ = decode_source(fixture(name), 1 << 30)
    assert detect_format(data) == fmt


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_str_and_bytes_give_the_same_scene(name: str) -> None:
    raw = fixture(name)
    from_bytes = parse_source(raw)
    _, text = decode_source(raw, 1 << 30)
    from_text = parse_source(text)
    assert from_text.root.to_dict() == from_bytes.root.to_dict()
    assert from_text.source == from_bytes.source == text


UTF8_DUMP = "uiautomator_tty_dialog.xml"


@pytest.mark.parametrize(
    ("codec", "bom"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-le", b""),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-16-be", b""),
        ("utf-8", codecs.BOM_UTF8),
        ("utf-32-le", codecs.BOM_UTF32_LE),
    ],
)
def test_utf16_and_boms_read_like_utf8(codec: str, bom: bytes) -> None:
    text = fixture(UTF8_DUMP).decode("utf-8")
    expected = parse_source(text)
    scene = parse_source(bom + text.encode(codec))
    assert scene.root.to_dict() == expected.root.to_dict()
    assert scene.source == text


@pytest.mark.parametrize("name", ["wda_settings_wifi_alert_keyboard.xml", "wda_clock_alarms.json"])
def test_ios_sources_in_utf16(name: str) -> None:
    text = fixture(name).decode("utf-8")
    expected = parse_source(text)
    for data in (codecs.BOM_UTF16_LE + text.encode("utf-16-le"), text.encode("utf-16-be")):
        assert parse_source(data).root.to_dict() == expected.root.to_dict()


def test_declaration_naming_another_encoding_does_not_mislead() -> None:
    # A UTF-16 capture re-saved as UTF-8 keeps its declaration; the bytes decide.
    text = fixture(UTF8_DUMP).decode("utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'")
    assert parse_source(text.encode("utf-8")).find(lambda e: e.text == "Turn on") is not None


def test_text_after_the_root_is_ignored_but_kept_in_source() -> None:
    base = fixture("wda_springboard_home.xml").decode("utf-8").rstrip()
    scene = parse_source(base + "\nUI hierchary dumped to: /dev/tty\r\n\x00")
    assert len(scene) == 52 and scene.source is not None and scene.source.endswith("\x00")


def test_trailing_markup_after_the_root_is_an_error() -> None:
    base = fixture("wda_springboard_home.xml").decode("utf-8").rstrip()
    with pytest.raises(SceneParseError, match="Extra content") as info:
        parse_source(base + "<XCUIElementTypeOther/>")
    assert info.value.format == "wda-xml" and info.value.position is not None


def test_wrong_platform_is_refused_before_parsing() -> None:
    with pytest.raises(SceneParseError, match="expected an ios UI tree, got android") as info:
        parse_fixture("u2_notes_permission_dialog.xml", platform="ios")
    assert info.value.format == "uiautomator"
    assert parse_fixture("wda_clock_alarms.json", platform="ios").platform == "ios"


def test_device_and_backend_and_timing_are_recorded() -> None:
    scene = parse_fixture("wda_springboard_home.xml", device_id="SIM-1", backend="appium")
    assert (scene.device_id, scene.backend) == ("SIM-1", "appium")
    assert scene.capture_duration > 0


def test_bad_limits_are_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="max_depth"):
        parse_source("<hierarchy/>", max_depth=0)
    with pytest.raises(ConfigError, match="max_bytes"):
        parse_source("<hierarchy/>", max_bytes=True)


def test_comments_and_processing_instructions_before_the_root_are_fine() -> None:
    source = (
        '<?xml version="1.0"?>\n<!-- captured by hand -->\n<?dump tool="uiautomator"?>\n'
        '<hierarchy rotation="0"><!-- app -->'
        '<node class="a.B" package="p" bounds="[0,0][10,10]"/></hierarchy>'
    )
    scene = parse_source(source)
    assert [el.type for el in scene] == ["hierarchy", "a.B"]
