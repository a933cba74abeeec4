"""System dialogs from real dumps are recognised as the alert over the app (``semantic.screen``), so
the world model records them as the overlay (``tests/fixtures/real``, see its PROVENANCE.md)."""

from __future__ import annotations

from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import enrich_scene
from amc.semantic.screen import alert_of

from tests.contract.real import closed, real_text

PERMISSION_IDS = "com.android.permissioncontroller:id/"


def test_androids_permission_buttons_without_a_package_attribute_are_a_dialog() -> None:
    """Android 12+ ("Don't allow"): the prompt's buttons as a test suite kept them, ids only."""
    scene = parse_source(
        real_text("android/fixture-uiautomator-dump-permission-allow-deny-a13plus.xml"), platform="android"
    )
    alert = alert_of(scene)
    assert alert is not None and (alert.identifier or "").startswith(PERMISSION_IDS)
    semantic = enrich_scene(scene)
    assert semantic is not None and semantic.alert in ("Don't allow", "Allow")


def test_the_prompts_button_in_googles_package_is_a_dialog() -> None:
    node = real_text("android/uiautomator-dump-permission-while-using-the-app-node.xml")
    scene = parse_source(f'<hierarchy rotation="0">{node}</hierarchy>', platform="android")
    alert = alert_of(scene)
    assert alert is not None and alert.attributes["package"] == "com.google.android.permissioncontroller"
    semantic = enrich_scene(scene)
    assert semantic is not None and semantic.alert == "While using the app"


def test_an_ios_location_alert_is_the_alert_named_by_its_title() -> None:
    """iOS 13, WDA 0.4.0 through Appium: the alert in the app's source (cut; its open elements closed)."""
    xml = closed(real_text("ios/wda-0.4.0-ios13-maps-location-alert-source-head.txt"))
    scene = parse_source(xml, platform="ios")
    alert = alert_of(scene)
    assert alert is not None and alert.type == "XCUIElementTypeAlert"
    semantic = enrich_scene(scene)
    title = "Allow \u201cMaps\u201d to access your location while you are using the app?"
    assert semantic is not None and semantic.alert == title


def test_springboard_while_its_alert_is_up_is_named_like_the_home_screen() -> None:
    """WDA 8.5.2: the source is SpringBoard's (``name=" "``) while the notification prompt is up."""
    xml = closed(
        real_text("ios/wda-8.5.2-springboard-source-notification-alert-head.txt").split('value: "', 1)[1]
    )
    scene = parse_source(xml, platform="ios")
    assert scene.root.label == " " and scene.root.type == "XCUIElementTypeApplication"
