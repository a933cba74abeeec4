"""The rest of WebDriverAgent's routes for the WDA face: timeouts, rotation, the device's
appearance and location, Siri, notifications, Touch ID, screen recording, accessibility audits,
HID events, W3C actions and the app routes without a session, each as the handler of the same name
in appium/WebDriverAgent v10.5.4 (``FBCustomCommands.m``, ``FBOrientationCommands.m``,
``FBTouchIDCommands.m``, ``FBVideoCommands.m``, ``FBTouchActionCommands.m``) answers it.

What the simulated iPhone has no counterpart for is said per handler: it has no Siri, posts no
notifications (``expectNotification`` waits its timeout, bounded, then answers WDA's timeout
error), records no video frames (the recording's description is kept and answered as WDA does),
and finds no accessibility issues in its apps (the audit is an empty list).
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lxml import etree

from .appium_errors import W3CError
from .appium_input import Gesture, perform_actions
from .nodes import SimNode
from .wda_errors import WdaError, invalid_argument

if TYPE_CHECKING:
    from .wda_face import WdaFace
    from .wda_routes import Request

__all__ = [
    "MAX_NOTIFICATION_WAIT",
    "ROTATIONS",
    "accessibility_audit",
    "actions",
    "activate_siri",
    "clear_simulated_location",
    "expect_notification",
    "get_location",
    "get_rotation",
    "get_simulated_location",
    "io_hid_event",
    "launch_unattached",
    "reset_app_auth",
    "set_appearance",
    "set_rotation",
    "set_simulated_location",
    "timeouts",
    "touch_id",
    "video_get",
    "video_start",
    "video_stop",
]

MAX_NOTIFICATION_WAIT = 5.0  # seconds expectNotification waits here at most
# XCUIDevice.fb_rotationMapping (XCUIDevice+FBRotation.m): interface orientation -> rotation.
ROTATIONS: dict[str, dict[str, int]] = {
    "PORTRAIT": {"x": 0, "y": 0, "z": 0},
    "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN": {"x": 0, "y": 0, "z": 180},
    "LANDSCAPE": {"x": 0, "y": 0, "z": 90},
    "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT": {"x": 0, "y": 0, "z": 270},
}
# The consumer-page HID usages XCUIDevice performs as buttons (facebook-wda's press_duration table,
# Apple's HID usage tables): volume up, volume down, and the menu (home) button.
_HID_BUTTONS = {(0x0C, 0xE9): "volume_up", (0x0C, 0xEA): "volume_down", (0x0C, 0x40): "home"}


def _invalid(message: str) -> Exception:
    return invalid_argument(message)


def _error(error: str, message: str, status: int) -> Exception:
    return WdaError(error, message, status)


def timeouts(face: WdaFace, req: Request) -> Any:
    # handleTimeouts: "This method is intentionally not supported." It answers OK.
    return None


def get_rotation(face: WdaFace, req: Request) -> Any:
    return dict(ROTATIONS.get(face.orientation, ROTATIONS["PORTRAIT"]))


def set_rotation(face: WdaFace, req: Request) -> Any:
    """``handleSetRotation``: x, y and z must all be given and be one of the four rotations."""
    if any(k not in req.body for k in ("x", "y", "z")):
        raise _invalid(f"x, y and z arguments must exist in the request body: {dict(req.body)}")
    wanted = {k: req.body[k] for k in ("x", "y", "z")}
    for name, rotation in ROTATIONS.items():
        if rotation == wanted:
            face.orientation = name
            return None
    supported = list(ROTATIONS.values())
    raise _invalid(
        f"{wanted} rotation is not supported. Only the following values are supported: {supported}"
    )


def set_appearance(face: WdaFace, req: Request) -> Any:
    name = req.body.get("name")
    if not isinstance(name, str) or name.lower() not in ("light", "dark"):
        raise _invalid("The appearance name must be either 'light' or 'dark'")
    face.appearance = name.lower()
    return None


def get_location(face: WdaFace, req: Request) -> Any:
    """``handleGetLocation``: CLLocationManager's view. The runner app was never authorised for
    location (kCLAuthorizationStatusNotDetermined, 0), so the location is all zeros unless one is
    simulated."""
    where = face.simulated_location or {"latitude": 0, "longitude": 0, "altitude": 0}
    return {"authorizationStatus": 0, **where}


def get_simulated_location(face: WdaFace, req: Request) -> Any:
    unset: dict[str, float | None] = {"latitude": None, "longitude": None, "altitude": None}
    return dict(face.simulated_location or unset)


def set_simulated_location(face: WdaFace, req: Request) -> Any:
    lat, lon = req.body.get("latitude"), req.body.get("longitude")
    if lat is None or lon is None:
        raise _invalid("Both latitude and longitude must be provided")
    face.simulated_location = {"latitude": float(lat), "longitude": float(lon), "altitude": 0}
    return None


def clear_simulated_location(face: WdaFace, req: Request) -> Any:
    face.simulated_location = None
    return None


def activate_siri(face: WdaFace, req: Request) -> Any:
    """``handleActivateSiri``: the simulated iPhone has no Siri; XCUISiriService refuses as on a
    phone with Siri turned off (the wording is ours: no capture of that answer was found)."""
    text = req.body.get("text")
    if not isinstance(text, str):
        raise _invalid("'text' must be a string")
    raise _error("unknown error", "Siri is not available on this device", 500)


def expect_notification(face: WdaFace, req: Request) -> Any:
    """``handleExpectNotification``: waits for a notification nobody posts here, then times out."""
    name = req.body.get("name")
    if name is None:
        raise _invalid("Notification name argument must be provided")
    kind = req.body.get("type", "plain")
    if kind not in ("plain", "darwin"):
        raise _invalid(f"Notification type could only be 'plain' or 'darwin'. Got '{kind}' instead")
    timeout = req.body.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise _invalid("'timeout' must be a number of seconds")
    time.sleep(max(0.0, min(float(timeout), MAX_NOTIFICATION_WAIT)))
    raise _error("timeout", f"Did not receive any expected {name} notifications within {timeout}s", 408)


def touch_id(face: WdaFace, req: Request) -> Any:
    """``/wda/touch_id``: only a simulator enrols a finger (fb_fingerTouchShouldMatch); the simulated
    iPhone plays a phone, which cannot, so WDA's unknown error comes back."""
    match = bool(req.body.get("match"))
    raise _error("unknown error", f"Cannot perform Touch Id {'' if match else 'non-'}match", 500)


def accessibility_audit(face: WdaFace, req: Request) -> Any:
    """``handlePerformAccessibilityAudit`` (XCTest's audit needs iOS 17): no issues found."""
    if int(face.device.os_version.split(".")[0]) < 17:
        raise _error(
            "unknown error",
            "Accessibility audit is only supported since iOS 17/Xcode 15",
            500,
        )
    return []


def io_hid_event(face: WdaFace, req: Request) -> Any:
    """``handlePeformIOHIDEvent``: a HID usage pressed for ``duration``; the buttons act."""
    page, usage = req.body.get("page"), req.body.get("usage")
    if (
        isinstance(page, bool)
        or not isinstance(page, int)
        or isinstance(usage, bool)
        or not isinstance(usage, int)
    ):
        raise _invalid("'page' and 'usage' must be integers")
    duration = req.body.get("duration", 0.005)
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        face.device.hold(float(duration), limit=10.0)
    key = _HID_BUTTONS.get((page, usage))
    if key is not None:
        face.device.press(key)
    return None


def launch_unattached(face: WdaFace, req: Request) -> Any:
    """``handleLaunchUnattachedApp``: LSApplicationWorkspace opens the app; no session is tied to it."""
    bundle = req.body.get("bundleId")
    if not isinstance(bundle, str) or not face.device.is_installed(bundle):
        raise _error("unknown error", "LSApplicationWorkspace failed to launch app", 500)
    face.device.launch(bundle)
    return None


def reset_app_auth(face: WdaFace, req: Request) -> Any:
    """``handleResetAppAuth``: the app asks for its permission again on its next launch."""
    if req.body.get("resource") is None:
        raise _invalid(
            "The 'resource' argument must be set to a valid resource identifier (numeric value). See "
            "https://developer.apple.com/documentation/xctest/xcuiprotectedresource?language=objc"
        )
    face.device.reset_permissions(face.device.foreground())
    return None


class _Recording:
    """What FBScreenRecordingContainer keeps about the recording in progress."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.info: dict[str, Any] | None = None


_RECORDINGS: dict[int, _Recording] = {}


def _recording(face: WdaFace) -> _Recording:
    return _RECORDINGS.setdefault(id(face), _Recording())


def video_start(face: WdaFace, req: Request) -> Any:
    rec = _recording(face)
    with rec.lock:
        if rec.info is None:
            rec.info = {
                "fps": int(req.body.get("fps", 24)),
                "codec": int(req.body.get("codec", 0)),
                "uuid": str(uuid.uuid4()).upper(),
                "startedAt": datetime.now(UTC).timestamp(),
            }
        return dict(rec.info)


def video_stop(face: WdaFace, req: Request) -> Any:
    rec = _recording(face)
    with rec.lock:
        info, rec.info = rec.info, None
    return info


def video_get(face: WdaFace, req: Request) -> Any:
    rec = _recording(face)
    with rec.lock:
        return None if rec.info is None else dict(rec.info)


class _ActionsPhone:
    """The face seen as the Phone that :func:`sim.appium_input.perform_actions` acts on."""

    platform = "ios"

    def __init__(self, face: WdaFace) -> None:
        self.face = face
        self.device = face.device

    def snapshot(self) -> tuple[SimNode, etree._Element]:
        raise NotImplementedError  # perform_actions does not read the page

    def record(self, gesture: Gesture) -> None:
        return None

    def type_keys(self, text: str) -> None:
        if text and not self.device.keyboard_shown():
            raise W3CError(
                400, "invalid element state", "The on-screen keyboard must be present to send keys"
            )
        self.device.type_text(text)


def actions(face: WdaFace, req: Request) -> Any:
    """``handlePerformW3CTouchActions``: W3C pointer and key actions, acted out on the screen."""

    def center(uid: str) -> tuple[float, float]:
        return face.element(uid).rect.center

    try:
        perform_actions(_ActionsPhone(face), dict(req.body), center)  # type: ignore[arg-type]
    except W3CError as exc:
        raise _error(exc.error, exc.message, exc.status) from exc
    return None
