"""The WDA face's device routes answer what a real WebDriverAgent answers (facebook-wda's client,
replies compared with the real ones in tests/fixtures/real/ios)."""

from __future__ import annotations

import json

import pytest
import wda
from amc.sim.device import SimDevice
from amc.sim.profiles import IosProfile
from amc.sim.wda_face import WdaFace

from tests.contract.real import python_value, real_text

NOTES = "com.example.amc.notes"


def _client(face: WdaFace) -> wda.Client:
    client = wda.Client(face.url)
    client.session()
    return client


def test_device_and_battery_info_have_the_keys_of_a_real_wda(face: WdaFace) -> None:
    client = _client(face)
    real_info = python_value(real_text("ios/wda-6.1.1-device-info-value.txt"))
    assert set(client.device_info()) == set(real_info)
    real_battery = json.loads(real_text("ios/wda-6.1.1-batteryInfo-value.json"))
    battery = client.battery_info()
    assert set(battery) == set(real_battery) and isinstance(battery["state"], int)


@pytest.mark.parametrize(
    ("generation", "extra", "gone"),
    [
        ("5", set(), set()),
        ("6", set(), set()),
        # handleGetSettings at appium/WebDriverAgent v10.5.4 (FBSessionCommands.m): 31 keys
        (
            "10",
            {
                "maxTypingFrequency",
                "respectSystemAlerts",
                "useClearTextShortcut",
                "limitXPathContextScope",
                "autoClickAlertSelector",
                "includeHittableInPageSource",
                "includeNativeFrameInPageSource",
                "includeMinMaxValueInPageSource",
                "enforceCustomSnapshots",
            },
            {"customSnapshotTimeout"},
        ),
    ],
)
def test_the_appium_settings_are_the_real_ones_of_that_generation(
    generation: str, extra: set[str], gone: set[str]
) -> None:
    real = json.loads(real_text("ios/wda-6.1.1-appium-settings-iphone13pro-ios16.3.1.json"))
    with WdaFace(SimDevice("ios", profile=IosProfile(wda=generation))) as face:
        settings = _client(face).appium_settings()
        assert set(settings) == (set(real) | extra) - gone
        assert len(settings) == {"5": 23, "6": 23, "10": 31}[generation]


def test_no_alert_is_a_404_with_wdas_message(face: WdaFace) -> None:
    client = _client(face)
    with pytest.raises(wda.WDARequestError) as caught:
        client.alert.text  # noqa: B018 - the property sends the request
    real = real_text("ios/wda-6.1.1-7.1.1-alert-no-such-alert-facebookwda-repr.txt")
    assert caught.value.value["error"] == "no such alert" and caught.value.value["message"] in " ".join(
        real.split()
    )


def test_a_permission_prompt_is_an_alert_to_read_and_answer(face: WdaFace) -> None:
    client = _client(face)
    client.app_launch(NOTES)
    assert client.alert.text == (
        "\u201cNotes\u201d Would Like to Send You Notifications\n"
        "Notifications may include alerts, sounds, and icon badges. These can be configured in Settings."
    )
    assert client.alert.buttons() == ["Don\u2019t Allow", "Allow"]
    client.alert.accept()  # the last button of an XCUIElementTypeAlert: Allow
    assert face.device.system_prompt() is None and client.app_current()["bundleId"] == NOTES


def test_health_orientation_pasteboard_screen_and_deactivate(face: WdaFace) -> None:
    client = _client(face)
    assert client.healthcheck().value is None
    assert client.orientation == "PORTRAIT"
    client.orientation = wda.LANDSCAPE
    assert client.orientation == "LANDSCAPE" and face.device.orientation == "landscape_left"
    assert client.window_size() == (844, 390)  # the turned window (sim.device_state)
    client.orientation = wda.PORTRAIT
    client.set_clipboard("copied")
    assert face.pasteboard == b"copied"
    screen = client._session_http.get("/wda/screen").value
    assert screen["scale"] == 3 and screen["screenSize"] == {"width": 390, "height": 844}
    client.app_launch("com.apple.Preferences")
    client.deactivate(0.1)
    assert face.device.foreground() == "com.apple.Preferences"
