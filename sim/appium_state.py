"""The Appium face's commands for the phone's own settings (:mod:`sim.device_state`), answered as
Appium 3 with its UiAutomator2 and XCUITest drivers answers them:

- ``GET|POST /session/ID/orientation`` (``PORTRAIT``, ``LANDSCAPE``) and ``POST …/rotation``
  (``{x: 0, y: 0, z}``, z one of 0, 90, 180, 270: the rotations XCUIDevice+FBRotation.m maps; another
  is ``invalid argument``); the screen turns.
- ``POST …/appium/start_recording_screen`` answers ``""`` and starts keeping frames; ``…/stop_…``
  answers the recording in base64. A phone's is an MP4; the simulated one is an animated PNG of its
  frames (no video encoder at hand; the harness tells them apart by their first bytes).
- ``mobile: pushFile`` ``{remotePath, payload}`` and ``POST …/appium/device/push_file``
  ``{path, data}``: on Android a file under ``/sdcard/Pictures``, ``DCIM`` or ``Movies`` joins the
  gallery (appium-android-driver's pushFile broadcasts the media scanner for what it pushed; no
  capture of that was found); on iOS a path without ``@bundle:``
  goes to the photo library (XCUITest's pushFile runs ``simctl addmedia``, appium/java-client#720).
- ``mobile: setConnectivity`` / ``getConnectivity`` (UiAutomator2: ``{wifi, data, airplaneMode}``),
  ``mobile: setUiMode`` / ``getUiMode`` (UiAutomator2, ``mode: night``: ``yes``/``no``), ``mobile:
  setAppearance`` / ``getAppearance`` (XCUITest: ``{style: dark|light}``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any

from .appium_errors import W3CError, invalid_argument

__all__ = ["STATE_MOBILE", "STATE_ROUTES", "state_command"]

_ROTATIONS = {0: "portrait", 90: "landscape_left", 180: "upside_down", 270: "landscape_right"}
_GALLERY = ("/sdcard/Pictures/", "/sdcard/DCIM/", "/sdcard/Movies/", "/storage/emulated/0/Pictures/")

# (method, path under the session, route name): added to the face's routes.
STATE_ROUTES = (
    ("GET", r"/orientation", "get_orientation"),
    ("POST", r"/orientation", "set_orientation"),
    ("POST", r"/rotation", "set_rotation"),
    ("POST", r"/appium/start_recording_screen", "start_recording_screen"),
    ("POST", r"/appium/stop_recording_screen", "stop_recording_screen"),
    ("POST", r"/appium/device/push_file", "push_file"),
)


def _invalid(message: str) -> W3CError:
    return invalid_argument(message)


def _get_orientation(device: Any, body: Any) -> Any:
    return "PORTRAIT" if device.orientation in ("portrait", "upside_down") else "LANDSCAPE"


def _set_orientation(device: Any, body: Any) -> Any:
    wanted = body.get("orientation") if isinstance(body, Mapping) else None
    if not isinstance(wanted, str) or wanted.upper() not in ("PORTRAIT", "LANDSCAPE"):
        raise _invalid(f"Unknown orientation {wanted!r}: PORTRAIT or LANDSCAPE")
    device.set_orientation("portrait" if wanted.upper() == "PORTRAIT" else "landscape_left")
    return None


def _set_rotation(device: Any, body: Any) -> Any:
    z = body.get("z") if isinstance(body, Mapping) else None
    if not isinstance(body, Mapping) or body.get("x") != 0 or body.get("y") != 0 or z not in _ROTATIONS:
        raise _invalid(f"{dict(body) if isinstance(body, Mapping) else body} rotation is not supported")
    device.set_orientation(_ROTATIONS[z])
    return None


def _start_recording(device: Any, body: Any) -> Any:
    device.start_recording()
    return ""


def _stop_recording(device: Any, body: Any) -> Any:
    return base64.b64encode(device.stop_recording()).decode("ascii")


def _push_file(device: Any, body: Any) -> Any:
    path = body.get("path") if isinstance(body, Mapping) else None
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(path, str) or not path or not isinstance(data, str):
        raise _invalid("'path' and 'data' must be strings")
    try:
        content = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise _invalid("'data' must be base64") from None
    to_gallery = path.startswith(_GALLERY) if device.platform == "android" else not path.startswith("@")
    if to_gallery:
        device.add_media(path, content)
    return None


_HANDLERS: dict[str, Callable[[Any, Any], Any]] = {
    "get_orientation": _get_orientation,
    "set_orientation": _set_orientation,
    "set_rotation": _set_rotation,
    "start_recording_screen": _start_recording,
    "stop_recording_screen": _stop_recording,
    "push_file": _push_file,
}


def state_command(name: str) -> Callable[[Any, Any, Mapping[str, str], Any], Any]:
    """The face's handler (state, session, params, body) for route ``name``."""
    handler = _HANDLERS[name]
    return lambda state, session, params, body: handler(state.device, body)


def _set_connectivity(phone: Any, args: Mapping[str, Any]) -> Any:
    if "airplaneMode" in args:
        if not isinstance(args["airplaneMode"], bool):
            raise _invalid("'airplaneMode' must be a boolean")
        phone.device.set_airplane_mode(args["airplaneMode"])
    return None


def _get_connectivity(phone: Any, args: Mapping[str, Any]) -> Any:
    return {
        "wifi": not phone.device.airplane,
        "data": not phone.device.airplane,
        "airplaneMode": phone.device.airplane,
    }


def _set_ui_mode(phone: Any, args: Mapping[str, Any]) -> Any:
    if args.get("mode") != "night" or args.get("value") not in ("yes", "no", "auto"):
        raise _invalid("mode must be 'night' (or 'car') and value one of yes, no, auto")
    phone.device.set_dark_mode(args["value"] == "yes")
    return None


def _get_ui_mode(phone: Any, args: Mapping[str, Any]) -> Any:
    if args.get("mode") != "night":
        raise _invalid("mode must be 'night' (or 'car')")
    return "yes" if phone.device.dark else "no"


def _set_appearance(phone: Any, args: Mapping[str, Any]) -> Any:
    if args.get("style") not in ("dark", "light"):
        raise _invalid("The 'style' argument must be either 'dark' or 'light'")
    phone.device.set_dark_mode(args["style"] == "dark")
    return None


def _get_appearance(phone: Any, args: Mapping[str, Any]) -> Any:
    return {"style": "dark" if phone.device.dark else "light"}


def _mobile_push_file(phone: Any, args: Mapping[str, Any]) -> Any:
    """``mobile: pushFile`` ``{remotePath, payload}`` (what Appium-Python-Client 4's ``push_file`` sends)."""
    return _push_file(phone.device, {"path": args.get("remotePath"), "data": args.get("payload")})


STATE_MOBILE: dict[str, tuple[frozenset[str], Callable[[Any, Mapping[str, Any]], Any]]] = {
    "mobile: pushFile": (frozenset({"android", "ios"}), _mobile_push_file),
    "mobile: setConnectivity": (frozenset({"android"}), _set_connectivity),
    "mobile: getConnectivity": (frozenset({"android"}), _get_connectivity),
    "mobile: setUiMode": (frozenset({"android"}), _set_ui_mode),
    "mobile: getUiMode": (frozenset({"android"}), _get_ui_mode),
    "mobile: setAppearance": (frozenset({"ios"}), _set_appearance),
    "mobile: getAppearance": (frozenset({"ios"}), _get_appearance),
}
