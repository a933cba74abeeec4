"""The WebDriverAgent routes about the device rather than the app: alerts, device and battery
information, the pasteboard, orientation, the health check, ``deactivateApp``, ``/wda/screen`` and
the Appium settings, in the shapes WebDriverAgent answers with.

Each follows WDA's handler at the release the face plays (FBAlertViewCommands.m,
FBCustomCommands.m, FBOrientationCommands.m, FBSessionCommands.m at appium/WebDriverAgent v6.1.1)
and the real replies in ``tests/fixtures/real/ios``: the alert's text is its static texts joined
by new lines and its buttons' labels, accept taps its last button and dismiss its first (FBAlert.m,
for ``XCUIElementTypeAlert``), no alert is ``no such alert`` (404) with WDA's message
(``wda-6.1.1-7.1.1-alert-no-such-alert-…``); ``/wda/device/info`` has the nine keys and
``/wda/batteryInfo`` the two of ``wda-6.1.1-device-info-value.txt`` / ``-batteryInfo-value.json``;
``/appium/settings`` the 23 keys of ``wda-6.1.1-appium-settings-…json``, with the keys later
releases added and removed as each release's ``handleGetSettings`` lists them (31 at 10.5.x);
``/wda/screen`` as ``wda-8.3-2024-wda-screen-…`` (``screenSize`` from 8.4.0).
``/orientation`` turns the simulated screen (its window, dumps and screenshots: :mod:`sim.device_state`).
"""

from __future__ import annotations

import base64
import binascii
import time
from typing import TYPE_CHECKING, Any

from .render_wda import WdaNode
from .wda_errors import WdaError, invalid_argument

# UIDeviceOrientation -> the name WDA's /orientation uses (FBOrientationCommands.m _orientationsMapping).
WDA_ORIENTATIONS = {
    "portrait": "PORTRAIT",
    "landscape_left": "LANDSCAPE",
    "upside_down": "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN",
    "landscape_right": "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT",
}

if TYPE_CHECKING:
    from .wda_face import WdaFace
    from .wda_routes import Request

__all__ = [
    "NO_ALERT",
    "alert_accept",
    "alert_buttons",
    "alert_dismiss",
    "alert_set_text",
    "alert_text",
    "battery_info",
    "deactivate_app",
    "device_info",
    "get_orientation",
    "get_pasteboard",
    "healthcheck",
    "screen",
    "set_orientation",
    "set_pasteboard",
    "settings_for",
]

NO_ALERT = "An attempt was made to operate on a modal dialog when one was not open"
_ALERT_TYPES = ("XCUIElementTypeAlert",)
# /appium/settings of WDA 6.1.1 on an iPhone 13 Pro (facebook-wda's e2e_benchmarks docstring).
_SETTINGS_6_1_1: dict[str, Any] = {
    "mjpegFixOrientation": False,
    "boundElementsByIndex": False,
    "mjpegServerFramerate": 10,
    "screenshotOrientation": "auto",
    "reduceMotion": False,
    "elementResponseAttributes": "type,label",
    "screenshotQuality": 3,
    "mjpegScalingFactor": 100,
    "keyboardPrediction": 0,
    "defaultActiveApplication": "auto",
    "mjpegServerScreenshotQuality": 25,
    "defaultAlertAction": "",
    "keyboardAutocorrection": 0,
    "useFirstMatch": False,
    "shouldUseCompactResponses": True,
    "customSnapshotTimeout": 15,
    "dismissAlertButtonSelector": "",
    "activeAppDetectionPoint": "64.00,64.00",
    "snapshotMaxDepth": 50,
    "waitForIdleTimeout": 10,
    "includeNonModalElements": False,
    "acceptAlertButtonSelector": "",
    "animationCoolOffTimeout": 2,
}


# Settings later releases added to GET /appium/settings, with the release that first answers each
# (the FB_SETTING_* keys of handleGetSettings in FBSessionCommands.m at every appium/WebDriverAgent
# tag) and its default (FBConfiguration.m resetSessionSettings and its statics at v10.5.4).
# WDA 4.x has 22 keys (no mjpegFixOrientation), 5.15.1-8.x 23, 9.15.3 30 and 10.5.x 31.
_SETTINGS_ADDED: tuple[tuple[str, Any, str], ...] = (
    ("maxTypingFrequency", 60, "8.6.0"),
    ("respectSystemAlerts", False, "8.7.0"),
    ("useClearTextShortcut", True, "8.10.0"),
    ("limitXPathContextScope", True, "9.2.0"),
    ("autoClickAlertSelector", "", "9.5.0"),
    ("includeHittableInPageSource", False, "9.11.0"),
    ("includeNativeFrameInPageSource", False, "9.13.0"),
    ("includeMinMaxValueInPageSource", False, "9.14.0"),
    ("enforceCustomSnapshots", False, "10.5.0"),
)


def settings_for(face: WdaFace) -> dict[str, Any]:
    """The settings a fresh session of this generation starts with."""
    settings = dict(_SETTINGS_6_1_1)
    if not face.profile.wda_at_least("5.15.1"):
        settings.pop("mjpegFixOrientation")
    if face.profile.wda_at_least("9.0.0"):
        settings.pop("customSnapshotTimeout")
    for key, default, since in _SETTINGS_ADDED:
        if face.profile.wda_at_least(since):
            settings[key] = default
    return settings


def _no_alert() -> Exception:
    return WdaError("no such alert", NO_ALERT, 404)


def _alert(face: WdaFace) -> WdaNode:
    node = next((n for n in face.tree().iter() if n.type in _ALERT_TYPES and n.visible), None)
    if node is None:
        raise _no_alert()
    return node


def _buttons(alert: WdaNode) -> list[WdaNode]:
    return [n for n in alert.iter() if n.type == "XCUIElementTypeButton"]


def alert_text(face: WdaFace, req: Request) -> Any:
    alert = _alert(face)
    inside_buttons = {id(t) for b in _buttons(alert) for t in b.iter()}
    texts = [
        n.label or n.value or ""
        for n in alert.iter()
        if n.type in ("XCUIElementTypeStaticText", "XCUIElementTypeTextView") and id(n) not in inside_buttons
    ]
    return "\n".join(t for t in texts if t)


def alert_set_text(face: WdaFace, req: Request) -> Any:
    """``handleAlertSetTextCommand``: ``value`` is required; with no alert, ``no such alert``; the
    simulated apps' alerts have no text field, so FBAlert's typeText answers that it has none."""
    if req.body.get("value") is None:
        raise invalid_argument("Missing 'value' parameter")
    _alert(face)
    raise WdaError("invalid element state", "The alert contains no input fields", 400)


def alert_buttons(face: WdaFace, req: Request) -> Any:
    return [b.label or b.name or "" for b in _buttons(_alert(face))]


def _press(face: WdaFace, req: Request, *, accept: bool) -> Any:
    buttons = _buttons(_alert(face))
    name = req.body.get("name")
    if isinstance(name, str) and name:
        chosen = next((b for b in buttons if name in (b.label, b.name)), None)
        if chosen is None:
            raise WdaError(
                "invalid element state", f"Failed to find button with label '{name}' for alert", 400
            )
    elif buttons:
        chosen = buttons[-1] if accept else buttons[0]
    else:
        raise WdaError("invalid element state", "Failed to find accept button for alert", 400)
    face.device.tap(*chosen.rect.center)
    return None


def alert_accept(face: WdaFace, req: Request) -> Any:
    return _press(face, req, accept=True)


def alert_dismiss(face: WdaFace, req: Request) -> Any:
    return _press(face, req, accept=False)


def device_info(face: WdaFace, req: Request) -> Any:
    return {
        "timeZone": "GMT+0000",
        "currentLocale": "en_US",
        "model": "iPhone",
        "uuid": "25E3142B-303E-41FE-9F6A-2C303CB66FBC",
        "thermalState": 1,
        "userInterfaceIdiom": 0,
        "userInterfaceStyle": face.appearance,
        "name": "iPhone",
        "isSimulator": bool(getattr(face.device.profile, "simulator", False)),  # FBCustomCommands.m
    }


def battery_info(face: WdaFace, req: Request) -> Any:
    return {"level": 0.5799999833106995, "state": 2}  # UIDeviceBatteryStateCharging


def healthcheck(face: WdaFace, req: Request) -> Any:
    return None


def screen(face: WdaFace, req: Request) -> Any:
    width, height = face.device.window_size
    value: dict[str, Any] = {"statusBarSize": {"width": width, "height": 47}, "scale": 3}
    if face.profile.wda_at_least("8.4.0"):
        value["screenSize"] = {"width": width, "height": height}
    return value


def get_orientation(face: WdaFace, req: Request) -> Any:
    return face.orientation


def set_orientation(face: WdaFace, req: Request) -> Any:
    wanted = req.body.get("orientation")
    if not isinstance(wanted, str):
        raise invalid_argument("'orientation' must be a string")
    if wanted.upper() not in WDA_ORIENTATIONS.values():
        raise WdaError("unknown error", f"Unable To Rotate Device to {wanted}", 500)
    face.orientation = wanted.upper()
    return None


def set_pasteboard(face: WdaFace, req: Request) -> Any:
    content = req.body.get("content")
    try:
        face.pasteboard = base64.b64decode(str(content), validate=False) if content is not None else b""
    except (binascii.Error, ValueError) as exc:
        raise invalid_argument("Cannot decode the pasteboard content from base64") from exc
    return None


def get_pasteboard(face: WdaFace, req: Request) -> Any:
    return base64.b64encode(face.pasteboard).decode("ascii")


def deactivate_app(face: WdaFace, req: Request) -> Any:
    """Put the app in front in the background for ``duration`` seconds (at most 60), then back."""
    duration = req.body.get("duration", 3.0)
    if isinstance(duration, bool) or not isinstance(duration, int | float):
        raise invalid_argument("'duration' must be a number of seconds")
    app = face.device.foreground()
    face.device.home()
    time.sleep(max(0.0, min(float(duration), 60.0)))
    if app != face.device.launcher:
        face.device.launch(app)
    return None
