"""The Appium UiAutomator2 server (``io.appium.uiautomator2.server``) on a simulated phone.

What Appium's UiAutomator2 driver installs on a phone and starts with ``am instrument -w``: an
HTTP server on the phone's port 6790 (``ServerConfig.DEFAULT_SERVER_PORT``) that the driver
reaches through ``adb forward tcp:8200 tcp:6790`` and proxies most W3C commands to. Its routes
are those ``AppiumServlet.java`` registers (appium/appium-uiautomator2-server at 5412fdb, no
``/wd/hub`` prefix): :data:`U2_ROUTES` lists the ones played here. Every reply is
``{"sessionId": …, "value": …}`` (``AppiumResponse.renderTo``: a ``ResponseModel`` of the value
and the session id, ``"None"`` outside a session, ``Session.NO_ID``).

The W3C commands it shares with the Appium server (page source, find, click, text, attributes,
rect, W3C actions, screenshot, settings, back) are :class:`~sim.appium_commands.AppiumState`'s,
served by the same HTTP handler as :class:`~sim.appium_face.AppiumFace`; here are only what this
server says otherwise:

- ``GET /status``: ``{"ready": true, "message": "UiAutomator2 Server is ready to accept
  commands", "build": {"version", "versionCode"}}`` (``Status.java``, ``StatusModel``), the version
  from the server APK installed on the phone;
- ``GET /sessions``: ``[]`` or one ``{"capabilities", "sessionId", "id"}`` (``GetSessions.java``);
- ``POST /session`` takes any capabilities (the driver sends its own, ``firstMatch: [caps]``) and
  answers ``{"capabilities", "sessionId"}`` (``NewSession.java``); it starts no app (the driver
  does that over adb);
- ``DELETE /session/:id`` answers, then stops the server 15 ms later (``DeleteSession.java``:
  ``ServerInstrumentation.getInstance().stop()`` posted with a 15 ms delay), which ends
  ``am instrument``;
- ``/appium/device/press_keycode`` and ``long_press_keycode`` (``{"keycode", "metastate",
  "flags"}``), ``/appium/device/info`` (``DeviceInfoModel``'s fields),
  ``/window/:handle/size`` (``SizeModel``), ``/appium/device/pixel_ratio``,
  ``/appium/device/display_density``, ``/appium/device/system_bars`` (``{"statusBar": HEIGHT}``,
  ``SystemBarsModel``), ``/keys``,
  ``/appium/device/get_clipboard`` and ``set_clipboard``.
"""

from __future__ import annotations

import base64
import threading
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from .adb_shell import AndroidShell
from .apk_manifest import ApkInfo
from .appium_commands import AppiumState
from .appium_commands import _merged_capabilities as merged_capabilities
from .appium_face import AppiumFace, compile_routes
from .appium_input import W3CError, invalid_argument, run_mobile
from .device import SimDevice
from .faults import FaultInjector

__all__ = [
    "DEVICE_PORT",
    "SERVER_PACKAGE",
    "TEST_PACKAGE",
    "U2_ROUTES",
    "U2Instrumentation",
    "U2Server",
    "U2ServerState",
]

DEVICE_PORT = 6790
SERVER_PACKAGE = "io.appium.uiautomator2.server"
TEST_PACKAGE = "io.appium.uiautomator2.server.test"
_S = r"^/session/(?P<sid>[^/]+)"
_E = _S + r"/element/(?P<eid>[^/]+)"
_D = _S + r"/appium/device"

U2_ROUTES = compile_routes(
    (
        ("GET", r"^/status", "status"),
        ("GET", r"^/sessions", "sessions"),
        ("POST", r"^/session", "new_session"),
        ("DELETE", _S, "delete_session"),
        ("GET", _S, "get_session"),
        ("GET", _S + r"/source", "source"),
        ("GET", _S + r"/element/active", "active_element"),
        ("POST", _S + r"/element", "find_element"),
        ("POST", _S + r"/elements", "find_elements"),
        ("POST", _E + r"/click", "element_click"),
        ("POST", _E + r"/clear", "element_clear"),
        ("POST", _E + r"/value", "element_value"),
        ("GET", _E + r"/text", "element_text"),
        ("GET", _E + r"/attribute/(?P<name>[^/]+)", "element_attribute"),
        ("GET", _E + r"/rect", "element_rect"),
        ("POST", _S + r"/keys", "keys"),
        ("POST", _S + r"/actions", "actions"),
        ("GET", _S + r"/screenshot", "screenshot"),
        ("GET", _S + r"/window/(?P<handle>[^/]+)/size", "window_size"),
        ("GET", _S + r"/appium/settings", "get_settings"),
        ("POST", _S + r"/appium/settings", "update_settings"),
        ("POST", _S + r"/back", "back"),
        ("POST", _D + r"/press_keycode", "press_keycode"),
        ("POST", _D + r"/long_press_keycode", "long_press_keycode"),
        ("GET", _D + r"/info", "device_info"),
        ("GET", _D + r"/pixel_ratio", "pixel_ratio"),
        ("GET", _D + r"/display_density", "display_density"),
        ("GET", _D + r"/system_bars", "system_bars"),
        ("POST", _D + r"/get_clipboard", "get_clipboard"),
        ("POST", _D + r"/set_clipboard", "set_clipboard"),
    )
)
_DENSITY = 420  # the dpi of the simulated phone's screen (a Pixel-class 1080-wide display)
_STATUS_BAR = 63  # the status bar's height at that density (24 dp)


class U2ServerState(AppiumState):
    """The server's one session and what it answers beyond the shared W3C commands."""

    def __init__(
        self,
        device: SimDevice,
        apk: ApkInfo | None,
        on_stop: Callable[[], None],
        properties: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(device)
        self.apk = apk
        self.on_stop = on_stop
        # the phone's system properties (what getprop prints), which Build.* reads on a phone
        self.properties = properties or AndroidShell(device).properties
        self.clipboard = ""

    def handle(self, route: str, params: Mapping[str, str], body: Any) -> Any:
        if route == "status":
            version = (self.apk.version_name, self.apk.version_code) if self.apk else ("", 0)
            return {
                "ready": True,
                "message": "UiAutomator2 Server is ready to accept commands",
                "build": {"version": version[0], "versionCode": version[1]},
            }
        if route == "sessions":
            sid = self.session_id
            return [] if sid is None else [{"capabilities": self.capabilities, "sessionId": sid, "id": sid}]
        if route == "new_session":
            merged = merged_capabilities(body)  # W3C's merge, as the Appium face reads it
            return {"capabilities": merged, "sessionId": self.open_session(merged)}
        handler = _U2_COMMANDS.get(route)
        if handler is None:
            value = super().handle(route, params, body)
            if route == "delete_session":
                threading.Timer(0.015, self.on_stop).start()
            return value
        if self.session_id is None or self.session_id != params.get("sid"):
            raise W3CError(404, "invalid session id", f"The session {params.get('sid')} cannot be found")
        return handler(self, body)


def _keycode(state: U2ServerState, body: Any) -> Any:
    keycode = body.get("keycode") if isinstance(body, dict) else None
    return run_mobile(state, {"script": "mobile: pressKey", "args": [{"keycode": keycode}]})


def _keys(state: U2ServerState, body: Any) -> Any:
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise invalid_argument("'text' is required")
    state.type_keys(text)
    return None


def _device_info(state: U2ServerState, body: Any) -> Any:
    width, height = state.device.window_size
    props = state.properties()
    return {
        "androidId": f"{zlib.crc32(state.device.device_id.encode()):08x}{zlib.crc32(b'id'):08x}",
        "manufacturer": props["ro.product.manufacturer"],
        "model": props["ro.product.model"],
        "brand": props["ro.product.brand"],
        "apiVersion": props["ro.build.version.sdk"],
        "platformVersion": props["ro.build.version.release"],
        "carrierName": "",
        "realDisplaySize": f"{width}x{height}",
        "displayDensity": _DENSITY,
        "networks": [],
        "locale": "en_US",
        "timeZone": "UTC",
        "bluetooth": {"state": "OFF"},
    }


def _window_size(state: U2ServerState, body: Any) -> Any:
    width, height = state.device.window_size
    return {"width": width, "height": height}


def _system_bars(state: U2ServerState, body: Any) -> Any:
    # SystemBarsModel has one field: the status bar's height in pixels (GetSystemBars.java)
    return {"statusBar": _STATUS_BAR}


def _get_clipboard(state: U2ServerState, body: Any) -> Any:
    return base64.b64encode(state.clipboard.encode()).decode("ascii")


def _set_clipboard(state: U2ServerState, body: Any) -> Any:
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, str):
        raise invalid_argument("'content' is required")
    try:
        state.clipboard = base64.b64decode(content, validate=True).decode("utf-8")
    except ValueError as exc:
        raise invalid_argument("'content' must be base64") from exc
    return None


_U2_COMMANDS: dict[str, Callable[[U2ServerState, Any], Any]] = {
    "keys": _keys,
    "press_keycode": _keycode,
    "long_press_keycode": _keycode,
    "device_info": _device_info,
    "window_size": _window_size,
    "pixel_ratio": lambda state, body: _DENSITY / 160,
    "display_density": lambda state, body: _DENSITY,
    "system_bars": _system_bars,
    "get_clipboard": _get_clipboard,
    "set_clipboard": _set_clipboard,
}


class U2Server(AppiumFace):
    """The server's HTTP face on a loopback port of its own (the phone's port 6790, which the adb
    face's forwards reach). Nothing binds until ``start()``."""

    routes = U2_ROUTES

    def __init__(
        self,
        device: SimDevice,
        apk: ApkInfo | None,
        *,
        faults: FaultInjector | None = None,
        properties: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(device, faults=faults)
        self.stopped = threading.Event()
        self.state = U2ServerState(device, apk, self.stopped.set, properties)

    def envelope(self, value: Any) -> dict[str, Any]:
        return {"sessionId": self.state.session_id or "None", "value": value}


class U2Instrumentation:
    """``am instrument -w … io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner``
    on one phone: it starts a :class:`U2Server` and runs until the server stops (see the module
    docstring); :meth:`port` is where the phone's port 6790 is served meanwhile."""

    def __init__(
        self,
        device: SimDevice,
        faults: FaultInjector | None = None,
        properties: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.device = device
        self.faults = faults
        self.properties = properties
        self._lock = threading.Lock()
        self._server: U2Server | None = None
        self.starts = 0

    def start(self, target: ApkInfo | None) -> None:
        server = U2Server(self.device, target, faults=self.faults, properties=self.properties)
        server.start()
        with self._lock:  # seen only once it listens: port() never names a server not started
            old, self._server = self._server, server
            self.starts += 1
        if old is not None:
            old.stop()

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stopped.set()
            server.stop()

    def running(self) -> bool:
        with self._lock:
            server = self._server
        return server is not None and not server.stopped.is_set()

    def pid(self) -> int | None:
        return 7000 + 41 * self.starts if self.running() else None

    def port(self) -> int | None:
        """The loopback port serving the phone's port 6790, or None while nothing listens there."""
        with self._lock:
            server = self._server
        return server.background.port if server is not None and not server.stopped.is_set() else None
