"""The default enricher: page from the activity, else the title; home screen; AMC_SEMANTIC."""

from __future__ import annotations

import pytest
from amc.core.errors import ConfigError
from amc.core.models import Bounds, Scene, UIElement
from amc.drivers.simulated import SimDriver
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
