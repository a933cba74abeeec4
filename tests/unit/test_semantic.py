"""The default enricher: page from the activity, else the title; home screen; AMC_SEMANTIC."""

from __future__ import annotations

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import ConfigError
from amc.core.models import Bounds, Scene, UIElement
from amc.semantic.enricher import HOME_PAGE, DefaultEnricher, enrich_scene, semantic_enabled, title_of

from tests.unit.fakes import scene


def test_page_comes_from_the_activity_when_known() -> None:
    result = enrich_scene(
        scene("x", app="com.android.settings", activity="com.android.settings.SubSettings", title="Display")
    )
    assert result is not None
    assert (result.page, result.source, result.title) == ("SubSettings", "activity", "Display")


def test_page_comes_from_the_toolbar_title_without_an_activity() -> None:
    result = enrich_scene(scene("x", title="Network & internet"))
    assert result is not None
    assert (result.page, result.source) == ("Network & internet", "title")


def test_no_activity_and_no_title_means_no_page() -> None:
    assert enrich_scene(scene("just text")) is None


def test_ios_navigation_bar_names_the_page() -> None:
    driver = SimDriver("ios")
    driver.launch_app("com.apple.Preferences")
    result = enrich_scene(driver.observe())
    assert result is not None and result.page == "Settings" and result.app == "com.apple.Preferences"


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_home_screen_is_named(platform: str) -> None:
    driver = SimDriver("android" if platform == "android" else "ios")
    result = enrich_scene(driver.observe())
    assert result is not None and result.page == HOME_PAGE


def test_invisible_title_bars_are_ignored() -> None:
    bar = UIElement(
        "android.widget.Toolbar",
        visible=False,
        bounds=Bounds(0, 0, 10, 10),
        children=(UIElement("android.widget.TextView", text="Hidden"),),
    )
    root = UIElement("hierarchy", children=(bar,))
    assert title_of(Scene("d", "android", root)) is None


def test_a_broken_enricher_is_contained() -> None:
    class Broken(DefaultEnricher):
        def enrich(self, scene: Scene) -> None:
            raise RuntimeError("model offline")

    assert enrich_scene(scene("x", title="T"), Broken()) is None


def test_amc_semantic_switch() -> None:
    assert semantic_enabled({}) is True
    assert semantic_enabled({"AMC_SEMANTIC": "off"}) is False
    with pytest.raises(ConfigError, match="AMC_SEMANTIC"):
        semantic_enabled({"AMC_SEMANTIC": "sometimes"})


_BLANK_TITLE_DIALOG = (
    b'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
    b'<node text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings"'
    b' visible-to-user="true" bounds="[0,0][1080,2400]"/>'
    b'<node text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings"'
    b' visible-to-user="true" bounds="[100,800][980,1400]">'
    b'<node text="   " resource-id="android:id/alertTitle" class="android.widget.TextView"'
    b' package="com.android.settings" visible-to-user="true" bounds="[150,850][900,950]"/>'
    b'<node text=" Forget this network? " resource-id="android:id/message" class="android.widget.TextView"'
    b' package="com.android.settings" visible-to-user="true" bounds="[150,960][900,1100]"/>'
    b"</node></hierarchy>"
)


def test_a_dialog_with_a_blank_title_is_named_by_what_it_says_next() -> None:
    # A title of spaces used to become the page name, which SemanticScene refuses: enrich() raised
    # and the step lost its page.
    from amc.drivers.hierarchy import parse_source

    result = DefaultEnricher().enrich(parse_source(_BLANK_TITLE_DIALOG))
    assert result is not None
    assert (result.page, result.alert, result.source) == (
        "Forget this network?",
        "Forget this network?",
        "alert",
    )


def test_an_ios_alert_with_a_blank_label_is_named_by_its_text() -> None:
    alert = UIElement(
        "XCUIElementTypeAlert",
        label="  ",
        identifier=" ",
        bounds=Bounds(20, 300, 370, 500),
        children=(
            UIElement(
                "XCUIElementTypeStaticText", label="Allow?", text="Allow?", bounds=Bounds(30, 310, 360, 340)
            ),
        ),
    )
    app = UIElement("XCUIElementTypeApplication", bounds=Bounds(0, 0, 390, 844), children=(alert,))
    result = DefaultEnricher().enrich(Scene("d", "ios", app))
    assert result is not None and (result.page, result.alert) == ("Allow?", "Allow?")


def test_an_alert_with_nothing_but_blanks_is_named_by_its_type() -> None:
    blank = UIElement(
        "android.widget.FrameLayout", text=" ", visible=True, bounds=Bounds(100, 800, 980, 1400)
    )
    main = UIElement("android.widget.FrameLayout", visible=True, bounds=Bounds(0, 0, 1080, 2400))
    root = UIElement("hierarchy", bounds=Bounds(0, 0, 1080, 2400), children=(main, blank))
    result = DefaultEnricher().enrich(Scene("d", "android", root))
    assert result is not None and result.page == "android.widget.FrameLayout"
