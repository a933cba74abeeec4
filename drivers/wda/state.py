"""The device-state calls of ``WdaDriver``, through WebDriverAgent's own routes where it has one:

=====================  ============================================================================
``set_orientation``    ``POST /session/ID/orientation`` with WDA's name for it (``PORTRAIT``,
                       ``LANDSCAPE``, ``UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT``,
                       ``UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN``: FBOrientationCommands.m)
``set_dark_mode``      ``POST /wda/device/appearance`` ``{"name": "dark"|"light"}`` (FBCustomCommands.m
                       ``handleSetDeviceAppearance``, iOS 15 and later)
``dark_mode``          ``GET /wda/device/info``'s ``userInterfaceStyle``
=====================  ============================================================================

What XCTest gives WebDriverAgent no way to do is ``Unsupported``, as the actions' rules say before a
run (:mod:`amc.actions`): airplane mode (no API on an iPhone), adding media to the photo library
(``xcrun simctl addmedia`` does it on a Simulator, not WDA), and fetching a screen recording
(``/wda/video/start`` keeps the video on the phone; WDA has no route that hands it out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ...core.errors import DeviceError, StepArgumentError, Unsupported
from ..base import ORIENTATIONS

__all__ = ["IosState"]

T = TypeVar("T")
WDA_ORIENTATIONS = {
    "portrait": "PORTRAIT",
    "landscape_left": "LANDSCAPE",
    "upside_down": "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN",
    "landscape_right": "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT",
}


class _Driver(Protocol):
    url: str

    def _call(self, op: str, fn: Callable[[Any], T], *, repeat: bool, app_id: str | None = None) -> T: ...

    def _request(self, op: str, fn: Callable[[Any], T], *, app_id: str | None = None) -> T: ...


class IosState:
    """The device-state calls (see the module docstring)."""

    def set_orientation(self: _Driver, orientation: str) -> None:
        if orientation not in ORIENTATIONS:
            raise StepArgumentError(
                f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}"
            )
        body = {"orientation": WDA_ORIENTATIONS[orientation]}
        self._call("POST /orientation", lambda c: c._session_http.post("/orientation", body), repeat=True)

    def set_dark_mode(self: _Driver, enabled: bool) -> None:
        body = {"name": "dark" if enabled else "light"}
        self._request("POST /wda/device/appearance", lambda c: c.http.post("/wda/device/appearance", body))

    def dark_mode(self: _Driver) -> bool:
        info = self._request("GET /wda/device/info", lambda c: c.http.get("/wda/device/info").value)
        style = info.get("userInterfaceStyle") if isinstance(info, dict) else None
        if style == "unsupported":  # fb_userInterfaceStyle before iOS 13
            raise Unsupported(f"the iPhone behind {self.url} has no dark appearance (before iOS 13)")
        if style not in ("dark", "light"):
            raise DeviceError(f"WebDriverAgent at {self.url} did not say the appearance: {style!r:.80}")
        return bool(style == "dark")

    def set_airplane_mode(self: _Driver, enabled: bool) -> None:
        raise Unsupported(
            "WebDriverAgent cannot switch airplane mode: XCTest has no API for it on an iPhone",
            hint="switch it in Control Center by hand, or run the flow on Android",
        )

    def airplane_mode(self: _Driver) -> bool:
        IosState.set_airplane_mode(self, True)
        return False  # not reached

    def start_recording(self: _Driver) -> None:
        raise Unsupported(
            "WebDriverAgent keeps its screen recording on the phone and has no route to fetch it",
            hint="record over Appium (startRecordingScreen) or with `xcrun simctl io booted recordVideo`",
        )

    def stop_recording(self: _Driver) -> bytes:
        IosState.start_recording(self)
        return b""  # not reached

    def add_media(self: _Driver, name: str, data: bytes) -> None:
        raise Unsupported(
            f"WebDriverAgent cannot add {name} to the photo library",
            hint="on a Simulator `xcrun simctl addmedia booted FILE` does; over Appium its pushFile does",
        )
