"""Android dumps (uiautomator, uiautomator2, Appium UiAutomator2) become the Scenes a user expects."""

from __future__ import annotations

import pytest
from amc.core.errors import TargetNotFound
from amc.core.models import Bounds
from amc.core.selectors import Selector, tap_point
from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.screen import alert_of, keyboard_visible

from tests.parsers.support import fixture, parse_fixture, the

NBH = "\u2011"  # non-breaking hyphen, as Android writes "Wi\u2011Fi"


# --- uiautomator2 dump_hierarchy(pretty=True): Settings "Add network" with the keyboard up -----------


@pytest.fixture(scope="module")
def add_network():  # type: ignore[no-untyped-def]
    return parse_fixture("u2_settings_add_network_keyboard.xml", device_id="emulator-5554", backend="u2")


def test_u2_dump_root_is_the_hierarchy_with_one_child_per_window(add_network) -> None:  # type: ignore[no-untyped-def]
    scene = add_network
    assert scene.platform == "android"
    assert scene.device_id == "emulator-5554" and scene.backend == "u2"
    assert scene.root.type == "hierarchy"
    assert scene.root.bounds == Bounds(0, 0, 1080, 2400)
    assert scene.root.attributes["rotation"] == "0"
    packages = [w.attributes["package"] for w in scene.root.children]
    assert packages == [
        "com.android.settings",
        "com.google.android.inputmethod.latin",
        "com.android.systemui",
        "com.android.systemui",
    ]
    assert scene.window_size == (1080, 2400)
    assert len(scene) == 106
    assert scene.source is not None and scene.source.startswith("<?xml version='1.0'")


def test_u2_dump_foreground_is_the_app_not_systemui_or_the_keyboard(add_network) -> None:  # type: ignore[no-untyped-def]
    assert add_network.foreground_app == "com.android.settings"
    assert keyboard_visible(add_network) is True
    assert alert_of(add_network) is None


def test_u2_dump_maps_node_attributes(add_network) -> None:  # type: ignore[no-untyped-def]
    ssid = add_network.find(Selector(id="ssid"))
    assert ssid is not None
    assert ssid.type == "android.widget.EditText"
    assert ssid.text == "Café Ströme 5G"
    assert ssid.identifier == "com.android.settings:id/ssid"
    assert ssid.label is None and ssid.value is None
    assert ssid.bounds == Bounds(63, 650, 880, 790)
    assert (ssid.clickable, ssid.focusable, ssid.focused, ssid.password) == (True, True, True, False)
    assert (ssid.checked, ssid.selected, ssid.scrollable) == (False, False, False)
    assert ssid.attributes["hint"] == "Enter the SSID"
    assert ssid.attributes["display-id"] == "0"
    assert ssid.attributes["drawing-order"] == "2"

    password = add_network.find(Selector(id="com.android.settings:id/password"))
    assert password is not None and password.password is True and password.text is None

    save = add_network.find(Selector(text="Save"))
    assert save is not None and save.enabled is False


def test_u2_dump_keeps_hidden_subtrees_flagged_invisible(add_network) -> None:  # type: ignore[no-untyped-def]
    hidden = the(add_network, identifier="com.android.settings:id/wifi_advanced_fields")
    assert hidden.visible is False
    assert all(not el.visible for el in hidden.iter())
    assert add_network.find(Selector(text="Proxy")) is None
    proxy = add_network.find(Selector(text="Proxy", visible=None))
    assert proxy is not None and proxy.visible is False
    assert "Proxy" not in add_network.texts()


def test_u2_dump_keeps_non_breaking_hyphens_and_zero_size_nodes(add_network) -> None:  # type: ignore[no-untyped-def]
    wifi = add_network.find(Selector(label=f"Wi{NBH}Fi signal full."))
    assert wifi is not None and wifi.identifier == "com.android.systemui:id/wifi_signal"
    assert add_network.find(Selector(label="Wi-Fi signal full.")) is None  # an ASCII hyphen is another text
    background = the(add_network, identifier="android:id/navigationBarBackground")
    assert background.bounds.is_empty()
    with pytest.raises(TargetNotFound, match="zero size"):
        tap_point(background, add_network.window)


def test_u2_dump_enricher_sees_the_keyboard(add_network) -> None:  # type: ignore[no-untyped-def]
    semantic = DefaultEnricher().enrich(add_network)
    assert semantic is not None
    assert semantic.page == "Add network" and semantic.keyboard_visible is True and semantic.alert is None


# --- uiautomator2 compact dump: a runtime-permission dialog over a notes app --------------------------


def test_permission_dialog_is_the_alert_and_the_app_stays_in_front() -> None:
    scene = parse_fixture("u2_notes_permission_dialog.xml")
    assert scene.foreground_app == "org.example.notes"
    alert = alert_of(scene)
    assert alert is not None
    assert alert.attributes["package"] == "com.google.android.permissioncontroller"
    assert alert.bounds == Bounds(0, 1359, 1080, 2400)
    assert keyboard_visible(scene) is False
    semantic = DefaultEnricher().enrich(scene)
    assert semantic is not None
    # The bidi isolates Android puts around the app name are kept.
    assert semantic.alert == "Allow \u2068Notes\u2069 to send you notifications?"


def test_entities_cjk_and_cyrillic_text_are_decoded() -> None:
    scene = parse_fixture("u2_notes_permission_dialog.xml")
    texts = scene.texts()
    for expected in (
        "Milk, eggs & bread",
        "Widget <pinned>",
        "Встреча в пятницу",
        "会议记录",
        "Lisbon → Porto",
    ):
        assert expected in texts
    assert "Don\u2019t allow" in texts


# --- `adb exec-out uiautomator dump /dev/tty`: a dialog as the only window, trailing line --------------


def test_dump_with_trailing_line_and_offset_dialog_root() -> None:
    scene = parse_fixture("uiautomator_tty_dialog.xml")
    assert scene.source is not None and scene.source.endswith("UI hierchary dumped to: /dev/tty\n")
    (window,) = scene.root.children
    assert window.bounds == Bounds(63, 876, 1017, 1524)
    assert scene.window_size == (1017, 1524)
    assert scene.foreground_app == "com.android.settings"
    assert all(el.visible for el in scene)  # no visible-to-user attribute: visible
    assert alert_of(scene) is window
    title = scene.find(Selector(id="android:id/alertTitle"))
    assert title is not None and title.text == f"Allow Wi{NBH}Fi & Bluetooth scanning?"
    semantic = DefaultEnricher().enrich(scene)
    assert semantic is None or semantic.alert == title.text
    assert tap_point(scene.find(Selector(text="Turn on")), scene.window) == (867, 1440)  # type: ignore[arg-type]


def test_windows_utf16le_capture_matches_the_utf8_one() -> None:
    utf8 = parse_fixture("uiautomator_tty_dialog.xml")
    utf16 = parse_fixture("uiautomator_tty_dialog_windows_utf16le_bom.xml")
    assert fixture("uiautomator_tty_dialog_windows_utf16le_bom.xml").startswith(b"\xff\xfe<\x00")
    assert utf16.root.to_dict() == utf8.root.to_dict()
    assert utf16.source is not None and utf16.source.endswith("/dev/tty\r\n")


# --- `uiautomator dump` in landscape, Chinese Settings --------------------------------------------------


def test_rotated_dump_reports_the_rotated_window() -> None:
    scene = parse_fixture("uiautomator_landscape_zh_settings.xml")
    assert scene.root.attributes["rotation"] == "1"
    assert scene.window_size == (2400, 1080)
    network = scene.find(Selector(text="网络和互联网"))
    assert network is not None and network.bounds == Bounds(357, 270, 2190, 325)
    # `uiautomator dump` does not say what is visible: rows below the fold are "visible" and only
    # their bounds tell they are off screen.
    about = scene.find(Selector(text="关于手机"))
    assert about is not None and about.bounds.top == 2740
    with pytest.raises(TargetNotFound, match="off screen"):
        tap_point(about, scene.window)


def test_negative_bounds_are_kept_and_off_screen_targets_refused() -> None:
    scene = parse_fixture("uiautomator_landscape_zh_settings.xml")
    previous = the(scene, identifier="com.android.settings:id/homepage_pager_previous")
    assert previous.bounds == Bounds(-2400, 200, 0, 1080)
    hint = scene.find(Selector(text="Поиск по настройкам"))
    assert hint is not None
    with pytest.raises(TargetNotFound, match="off screen"):
        tap_point(hint, scene.window)


# --- uiautomator2 on a wide tablet: a letterboxed, offset app window ------------------------------------


def test_offset_window_on_a_wide_display() -> None:
    scene = parse_fixture("u2_tablet_letterboxed_keep.xml")
    assert scene.window_size == (2560, 1600)
    assert scene.foreground_app == "com.google.android.keep"  # not the launcher's taskbar
    app = scene.root.children[0]
    assert app.bounds == Bounds(640, 64, 1920, 1504)
    assert alert_of(scene) is None and keyboard_visible(scene) is False
    note = scene.find(Selector(text_contains="Oat milk"))
    assert note is not None and note.text == "Oat milk\nApples"  # &#10; is a newline


# --- Appium UiAutomator2 page source ---------------------------------------------------------------------


def test_appium_old_form_names_elements_by_class_and_has_no_root_size() -> None:
    scene = parse_fixture("appium_uia2_old_calculator.xml")
    assert scene.root.type == "hierarchy"
    assert scene.root.attributes == {"rotation": "0"}
    assert scene.window_size == (1080, 1920)
    assert scene.foreground_app == "com.google.android.calculator"
    five = scene.find(Selector(id="digit_5"))
    assert five is not None
    assert five.type == "android.widget.Button" and five.text == "5"
    assert five.attributes["instance"] == "4"
    plus = scene.find(Selector(label="plus"))
    assert plus is not None and plus.type == "android.widget.ImageButton"
    # The advanced pad hangs off the right edge: taps go to the visible sliver.
    advanced = the(scene, identifier="com.google.android.calculator:id/pad_advanced")
    assert tap_point(advanced, scene.window) == (1060, 1420)


def test_appium_new_form_root_size_smaller_than_the_nodes() -> None:
    scene = parse_fixture("appium_uia2_new_wallet_login_ru.xml")
    assert scene.root.attributes["width"] == "1080" and scene.root.attributes["height"] == "2208"
    assert scene.window_size == (1080, 2340)  # the nodes reach below what Appium reports
    footer = scene.find(Selector(id="footer"))
    assert footer is not None and footer.bounds.bottom == 2300
    assert tap_point(footer, scene.window) == (540, 2265)
    assert scene.foreground_app == "com.example.wallet"
    assert keyboard_visible(scene) is True  # Samsung's honeyboard window


def test_appium_new_form_attributes() -> None:
    scene = parse_fixture("appium_uia2_new_wallet_login_ru.xml")
    password = scene.find(Selector(id="password"))
    assert password is not None
    assert password.password is True and password.focused is True
    assert password.attributes["input-type"] == "129"
    assert password.attributes["hint"] == "Пароль"
    assert password.attributes["window-id"] == "1523"
    assert password.attributes["a11y-important"] == "true"
    remember = scene.find(Selector(text="Запомнить меня"))
    assert remember is not None and remember.checked is True
    logo = scene.find(Selector(label="Кошелёк"))
    assert logo is not None and logo.text is None  # content-desc only
    assert scene.find(Selector(text="Войти", type="Button")) is not None


def test_empty_strings_become_none_and_displayed_false_is_invisible() -> None:
    source = (
        '<hierarchy index="0" class="hierarchy" rotation="0" width="100" height="100">'
        '<android.widget.FrameLayout class="android.widget.FrameLayout" package="p" text="" '
        'bounds="[0,0][100,100]" displayed="false"/></hierarchy>'
    )
    (el,) = parse_source(source).root.children
    assert (el.text, el.label, el.identifier, el.value) == (None, None, None, None)
    assert el.visible is False and el.enabled is True
    assert el.clickable is None  # not reported, not guessed


def test_empty_u2_hierarchy_is_an_empty_scene() -> None:
    # uiautomator2 answers this when a dump comes back empty three times in a row.
    scene = parse_source(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\" />"
    )
    assert len(scene) == 1 and scene.root.children == ()
    assert scene.foreground_app is None and scene.window_size == (0, 0)
