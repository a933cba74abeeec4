"""The device-state calls of ``AppiumDriver``, through Appium's own commands:

=====================  ============================================================================
``set_orientation``    portrait and landscape_left: ``POST /session/ID/orientation`` (``PORTRAIT``,
                       ``LANDSCAPE``: the client's ``orientation`` setter); upside_down and
                       landscape_right: ``POST /session/ID/rotation`` ``{x: 0, y: 0, z: 180|270}``
                       (Appium's setRotation, the rotations XCUIDevice+FBRotation.m maps)
``set_airplane_mode``  UiAutomator2 ``mobile: setConnectivity`` ``{airplaneMode}``; read with
                       ``mobile: getConnectivity`` (``{wifi, data, airplaneMode}``)
``set_dark_mode``      UiAutomator2 ``mobile: setUiMode`` ``{mode: "night", value: "yes"|"no"}`` and
                       ``mobile: getUiMode`` ``{mode: "night"}``; XCUITest ``mobile: setAppearance``
                       ``{style: "dark"|"light"}`` and ``mobile: getAppearance`` (``{style}``)
``start_recording``    ``POST /session/ID/appium/start_recording_screen`` (the client's
                       ``start_recording_screen``); ``stop_recording`` its ``stop_…``, base64 MP4
``add_media``          ``mobile: pushFile`` (the client's ``push_file``): on Android to
                       ``/sdcard/Pictures`` (``Movies``), which UiAutomator2 follows with a media
                       scan; on iOS a path without ``@`` goes to the Simulator's photo library
                       (XCUITest's pushFile calls ``simctl addmedia``, appium/java-client#720)
=====================  ============================================================================
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from ...core.durations import check_seconds
from ...core.errors import DeviceError, StepArgumentError, Unsupported
from ...core.models import Platform
from ..base import ORIENTATIONS

__all__ = ["AppiumState"]

T = TypeVar("T")
_ROTATE = "amcSetRotation"
_Z = {"upside_down": 180, "landscape_right": 270}


class _Driver(Protocol):
    server_url: str
    _idle_wait: tuple[str | None, float] | None

    @property
    def session_id(self) -> str | None: ...

    @property
    def platform(self) -> Platform: ...

    def _run(self, action: str, call: Callable[[Any], T]) -> T: ...

    def _mobile(self, name: str, args: Mapping[str, Any] | None = None) -> Any: ...


def _rotate(wd: Any, z: int) -> Any:
    wd.command_executor.add_command(_ROTATE, "POST", "/session/$sessionId/rotation")
    return wd.execute(_ROTATE, {"x": 0, "y": 0, "z": z})


class AppiumState:
    """The device-state calls (see the module docstring)."""

    _idle_wait: tuple[str | None, float] | None = None  # (session, the source's idle bound)

    def wait_idle(self: _Driver, timeout: float) -> bool | None:
        """Appium has no command that answers whether the screen is idle; its page source waits for
        it: UiAutomator2's ``GET /source`` waits up to the ``waitForIdleTimeout`` setting (ms,
        10000 by default; Source.java -> Device.waitForIdle(): no accessibility event for 500 ms),
        XCUITest's WebDriverAgent up to ``animationCoolOffTimeout`` (s, 2 by default). So nothing
        is sent but, once per session, ``GET /session/ID/appium/settings`` to read that setting:
        True while it is above 0 (the next look is of a still screen), None at 0."""
        check_seconds(timeout, "the idle timeout", maximum=60.0, above_zero=True)
        name = "waitForIdleTimeout" if self.platform == "android" else "animationCoolOffTimeout"
        known = self._idle_wait
        if known is None or known[0] != self.session_id or self.session_id is None:
            settings = self._run("get Appium settings", lambda wd: wd.get_settings())
            value = settings.get(name) if isinstance(settings, dict) else None
            number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
            known = self._idle_wait = (self.session_id, float(number))
        return True if known[1] > 0 else None

    def set_orientation(self: _Driver, orientation: str) -> None:
        if orientation not in ORIENTATIONS:
            raise StepArgumentError(
                f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}"
            )
        if orientation in _Z:
            self._run("set rotation", lambda wd: _rotate(wd, _Z[orientation]))
            return
        name = "PORTRAIT" if orientation == "portrait" else "LANDSCAPE"

        def turn(wd: Any) -> None:
            wd.orientation = name

        self._run("set orientation", turn)

    def set_airplane_mode(self: _Driver, enabled: bool) -> None:
        AppiumState._android_only(self, "switch airplane mode")
        self._mobile("setConnectivity", {"airplaneMode": bool(enabled)})

    def airplane_mode(self: _Driver) -> bool:
        AppiumState._android_only(self, "read airplane mode")
        state = self._mobile("getConnectivity", {"services": ["airplaneMode"]})
        if not isinstance(state, dict) or not isinstance(state.get("airplaneMode"), bool):
            raise DeviceError(f"mobile: getConnectivity answered {state!r:.120} ({self.server_url})")
        return bool(state["airplaneMode"])

    def _android_only(self: _Driver, what: str) -> None:
        if self.platform != "android":
            raise Unsupported(
                f"XCUITest cannot {what}: `mobile: setConnectivity` is UiAutomator2's only",
                hint="run the flow on Android",
            )

    def set_dark_mode(self: _Driver, enabled: bool) -> None:
        if self.platform == "android":
            self._mobile("setUiMode", {"mode": "night", "value": "yes" if enabled else "no"})
        else:
            self._mobile("setAppearance", {"style": "dark" if enabled else "light"})

    def dark_mode(self: _Driver) -> bool:
        if self.platform == "android":
            value = self._mobile("getUiMode", {"mode": "night"})
            if value not in ("yes", "no", "auto", "custom"):
                raise DeviceError(f"mobile: getUiMode answered {value!r:.80} ({self.server_url})")
            return bool(value == "yes")
        reply = self._mobile("getAppearance", {})
        style = reply.get("style") if isinstance(reply, dict) else None
        if style not in ("dark", "light", "unknown"):
            raise DeviceError(f"mobile: getAppearance answered {reply!r:.80} ({self.server_url})")
        return bool(style == "dark")

    def start_recording(self: _Driver) -> None:
        self._run("start recording", lambda wd: wd.start_recording_screen())

    def stop_recording(self: _Driver) -> bytes:
        encoded = self._run("stop recording", lambda wd: wd.stop_recording_screen())
        try:
            return base64.b64decode(encoded, validate=True) if isinstance(encoded, str | bytes) else b""
        except (binascii.Error, ValueError) as exc:
            raise DeviceError(f"the recording is not base64 ({self.server_url})") from exc

    def add_media(self: _Driver, name: str, data: bytes) -> None:
        base = posixpath.basename(name.replace("\\", "/"))
        if not base or base.startswith("@"):
            raise StepArgumentError(f"{name!r:.80} is not a media file name")
        if self.platform == "android":
            folder = "/sdcard/Movies" if base.lower().endswith(".mp4") else "/sdcard/Pictures"
            path = f"{folder}/{base}"
        else:
            path = base  # no '@bundle:container/': the Simulator's photo library
        encoded = base64.b64encode(data).decode("ascii")
        self._run("push file", lambda wd: wd.push_file(path, encoded))
