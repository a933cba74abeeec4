"""Real dumps from real devices (../shared/fixtures, see PROVENANCE.md) parse into plausible Scenes."""

from __future__ import annotations

import pytest
from amc.core.models import Bounds
from amc.core.selectors import Selector, tap_point
from amc.drivers.hierarchy import parse_source
from amc.semantic.screen import alert_of, keyboard_visible

from tests.parsers.support import SHARED_ANDROID

# file -> (expected foreground package, element count including the hierarchy root, window size)
CAPTURES = {
    "pixel_launcher_searchbar_settings_1344x2992.xml": (
        "com.google.android.apps.nexuslauncher",
        17,
        (1344, 2992),
    ),
    "miui_phone_preferred_network_radio_pt.xml": ("com.android.phone", 31, (1080, 2167)),
    "askamo_webview_chat_capacitor.xml": ("com.askamo.mobile", 52, (1080, 2178)),
    "whereismytrain_compose_search.xml": ("com.whereismytrain.android", 78, (1080, 2414)),
}

pytestmark = pytest.mark.skipif(
    not SHARED_ANDROID.is_dir(),
    reason=f"real captures not present at {SHARED_ANDROID} (they live beside the repository in CI)",
)


def test_every_capture_in_the_folder_is_covered() -> None:
    assert sorted(p.name for p in SHARED_ANDROID.glob("*.xml")) == sorted(CAPTURES)


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_capture_parses_with_its_expected_app(name: str) -> None:
    package, count, size = CAPTURES[name]
    scene = parse_source((SHARED_ANDROID / name).read_bytes(), platform="android")
    assert scene.foreground_app == package
    assert len(scene) == count
    assert scene.window_size == size and scene.root.bounds == Bounds(0, 0, *size)
    assert keyboard_visible(scene) is False and alert_of(scene) is None
    assert all(el.type and not el.type.startswith("node") for el in scene)
    assert len(scene.texts()) > 0


def test_miui_radio_list_reports_checked_state() -> None:
    scene = parse_source((SHARED_ANDROID / "miui_phone_preferred_network_radio_pt.xml").read_bytes())
    checked = scene.find_all(Selector(xpath="//*[@checked='true']"))
    assert [(el.type, el.text) for el in checked] == [
        ("android.widget.RadioButton", None),
        ("android.widget.CheckedTextView", "5G preferencial"),
    ]
    radios = scene.find_all(Selector(type="RadioButton"))
    assert len(radios) == 4
    assert all(tap_point(r, scene.window) for r in radios)


def test_pixel_capture_keeps_drawing_order_and_hint() -> None:
    scene = parse_source((SHARED_ANDROID / "pixel_launcher_searchbar_settings_1344x2992.xml").read_bytes())
    assert all("drawing-order" in el.attributes and "hint" in el.attributes for el in scene.root.children)


def test_webview_dom_nodes_become_elements() -> None:
    scene = parse_source((SHARED_ANDROID / "askamo_webview_chat_capacitor.xml").read_bytes())
    assert scene.find(Selector(type="WebView")) is not None
    assert any(el.bounds.is_empty() for el in scene)  # zero-size background views are kept
