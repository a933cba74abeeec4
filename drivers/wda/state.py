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

from ...core.durations import check_seconds
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
    _session_id: str | None
    _idle_cool_off: tuple[str | None, float] | None

    def _call(self, op: str, fn: Callable[[Any], T], *, repeat: bool, app_id: str | None = None) -> T: ...

    def _request(self, op: str, fn: Callable[[Any], T], *, app_id: str | None = None) -> T: ...


class IosState:
    """The device-state calls (see the module docstring)."""

    _idle_cool_off: tuple[str | None, float] | None = None  # (session, animationCoolOffTimeout)

    def wait_idle(self: _Driver, timeout: float) -> bool | None:
        """WebDriverAgent has no route that says whether the app is idle; its page source waits for
        it instead: ``GET /source`` waits for XCTest's quiescence, animations included, up to the
        ``animationCoolOffTimeout`` setting (FBXPath.m ``waitUntilStableWithElement``, 2 s by
        default), and an action's reply already waited up to ``waitForIdleTimeout``
        (XCUIApplicationProcess+FBQuiescence.m). So nothing is sent but, once per session, ``GET
        /appium/settings`` to read the cool-off: True while it is above 0 (the next look is of a
        still app), None when it is 0 (the session turned the wait off)."""
        check_seconds(timeout, "the idle timeout", maximum=60.0, above_zero=True)
        known = self._idle_cool_off
        if known is None or known[0] != self._session_id or self._session_id is None:
            settings = self._call(
                "GET /appium/settings", lambda c: c._session_http.get("/appium/settings").value, repeat=True
            )
            value = settings.get("animationCoolOffTimeout") if isinstance(settings, dict) else None
            number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
            known = self._idle_cool_off = (self._session_id, float(number))
        return True if known[1] > 0 else None

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
