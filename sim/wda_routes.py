"""The WebDriverAgent routes the simulated iPhone's face answers, as a table.

Each :class:`Route` names a request kind (the name the face counts requests by), its HTTP method,
its path below ``/session/SID`` (or below ``/`` for routes WDA serves without a session: ``session``
is ``required``, ``optional`` — both forms, as WDA registers them — or ``none``) and the handler that
answers it. Handlers take the face and the :class:`Request` and return the reply's ``value``, or raise
:class:`WdaError` for one of WDA's error answers. Shapes and messages follow appium/WebDriverAgent.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..core.errors import AppLaunchFailed
from . import wda_device_routes as device_routes
from . import wda_extra_routes as extra
from . import wda_gesture_routes as gestures
from .render_wda import pid_for, render_accessible, render_json
from .wda_errors import WdaError, invalid_argument
from .wda_query import QueryError, find

if TYPE_CHECKING:
    from .wda_face import WdaFace

__all__ = [
    "ELEMENT_KEY",
    "ROUTES",
    "ROUTE_NAMES",
    "Handler",
    "Request",
    "Route",
    "SessionMode",
    "WdaError",
    "invalid_argument",
]

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
_BUTTONS = {"home": "home", "volumeUp": "volume_up", "volumeDown": "volume_down"}
_KEYBOARD_MESSAGE = (
    'Error Domain=com.facebook.WebDriverAgent Code=1 "The on-screen keyboard must be present to send keys" '
    "UserInfo={NSLocalizedDescription=The on-screen keyboard must be present to send keys}"
)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    sid: str | None
    query: Mapping[str, str]
    body: Mapping[str, Any]
    params: Mapping[str, str] = field(default_factory=dict)

    def number(self, name: str) -> float:
        val = self.body.get(name)
        if isinstance(val, bool) or not isinstance(val, int | float):
            raise invalid_argument(f"'{name}' must be a number, got {val!r}")
        return float(val)

    def string(self, name: str) -> str:
        val = self.body.get(name)
        if not isinstance(val, str) or not val:
            raise invalid_argument(f"'{name}' must be a non-empty string, got {val!r}")
        return val


Handler = Callable[["WdaFace", Request], Any]
SessionMode = Literal["required", "optional", "none"]


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    pattern: re.Pattern[str]
    session: SessionMode
    handler: Handler


# --- route handlers ---------------------------------------------------------------------------


# When each played WDA release was built (its tag's date), as /status's build.time prints it.
_BUILT = {
    "4.15.1": "May  6 2023",
    "5.15.9": "Jan 31 2024",
    "6.1.1": "Feb 11 2024",
    "9.15.3": "Aug 12 2025",
    "10.5.4": "Dec 19 2025",
}


def _status(face: WdaFace, req: Request) -> Any:
    """``GET /status`` in the shape of this generation (``tests/fixtures/real/ios/wda-status-*``, and
    FBSessionCommands at each tag): ``device`` from 5.9, ``build.version`` from 8.3.0;
    ``testmanagerdVersion`` is 28 on every real iOS 14-16 reply collected."""
    profile = face.profile
    build: dict[str, Any] = {
        "time": f"{_BUILT.get(profile.wda_version, 'Jan  1 2025')} 10:21:07",
        "productBundleIdentifier": "com.facebook.WebDriverAgentRunner",
    }
    if profile.wda_at_least("8.3.0"):
        build["version"] = profile.wda_version
    value: dict[str, Any] = {
        "ready": True,
        "message": "WebDriverAgent is ready to accept commands",
        "state": "success",
        "os": {
            "name": "iOS",
            "version": face.device.os_version,
            "sdkVersion": face.device.os_version,
            "testmanagerdVersion": 28,
        },
        # FBSessionCommands.m: ``simulatorVersion`` only when built for a Simulator
        "ios": {"simulatorVersion": face.device.os_version, "ip": "127.0.0.1"}
        if profile.simulator
        else {"ip": "127.0.0.1"},
        "build": build,
    }
    if profile.wda_at_least("5.9.0"):
        value["device"] = "iphone"
    return value


def _create_session(face: WdaFace, req: Request) -> Any:
    """``handleCreateSession``: with a ``bundleId`` the app is launched; one already running is
    terminated first unless ``forceAppLaunch`` is false (its default is YES, FBSessionCommands.m)."""
    caps = req.body.get("capabilities", {})
    always = caps.get("alwaysMatch", {}) if isinstance(caps, dict) else {}
    desired = req.body.get("desiredCapabilities", {})
    chosen = always if isinstance(always, dict) and always.get("bundleId") else desired
    chosen = chosen if isinstance(chosen, dict) else {}  # facebook-wda's session(bundle_id): desired
    bundle = chosen.get("bundleId")
    if bundle:
        if chosen.get("forceAppLaunch", True) is not False and face.device.app_state(str(bundle)) > 1:
            face.device.terminate(str(bundle))
        face.launch(str(bundle))
    face.new_session()
    return face.session_info()


def _delete_session(face: WdaFace, req: Request) -> Any:
    face.forget_session()
    return None


def _source(face: WdaFace, req: Request) -> Any:
    kind = req.query.get("format", "xml").lower()
    if kind == "xml":
        return face.source_xml()
    if kind == "json":
        return render_json(face.tree())
    raise invalid_argument(
        f"Unknown source format '{kind}'. Only (xml, json, description) source formats are supported."
    )


def _active_app(face: WdaFace, req: Request) -> Any:
    bundle = face.active_bundle()
    return {
        "pid": pid_for(bundle, face.device.pid_of(bundle)),
        "bundleId": bundle,
        "name": "",
        "processArguments": {"args": [], "env": {}},
    }


def _set_locked(flag: bool) -> Handler:
    """``/wda/lock`` and ``/wda/unlock`` (WDA's fb_lockScreen / fb_unlockScreen: the lock button,
    or Home twice on a phone with no passcode)."""

    def handler(face: WdaFace, req: Request) -> Any:
        face.locked = flag
        return None

    return handler


def _launch(face: WdaFace, req: Request) -> Any:
    """``arguments`` (a list of strings) and ``environment`` (strings to strings) reach a process
    started now; a running app is activated as it is (FBSession.m ``launchApplicationWithBundleId``)."""
    arguments, environment = req.body.get("arguments") or [], req.body.get("environment") or {}
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        raise invalid_argument(f"'arguments' must be an array of strings: {arguments!r:.200}")
    if not isinstance(environment, dict) or not all(isinstance(v, str) for v in environment.values()):
        raise invalid_argument(f"'environment' must map names to strings: {environment!r:.200}")
    face.launch(req.string("bundleId"), tuple(arguments), {str(k): v for k, v in environment.items()})
    return None


def _app_state(face: WdaFace, req: Request) -> Any:
    """XCUIApplicationState: 1 not running, 3 background, 4 foreground. An app that is not installed
    is 1 too, not 0: XCTest cannot tell (facebook-wda's e2e_benchmarks assert 1 for an unknown
    bundle on WDA 6.1.1 and 7.1.1, reports/WDA_V611.md). An app under a permission prompt is 4."""
    return face.device.app_state(req.string("bundleId"))


def _tap(face: WdaFace, req: Request) -> Any:
    x, y = req.number("x"), req.number("y")
    uid = req.params.get("uuid")
    if uid and uid != "0":
        origin = face.element(uid).rect
        x, y = x + origin.left, y + origin.top
    face.device.tap(x, y)
    return None


def _keys(face: WdaFace, req: Request) -> Any:
    value = req.body.get("value")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid_argument("'value' must be an array of strings")
    if not face.device.keyboard_shown():
        raise WdaError("invalid element state", _KEYBOARD_MESSAGE, 400)
    for i, chunk in enumerate("".join(value).split("\n")):
        if i:
            face.device.press("enter")  # typing "\n" presses the keyboard's return key
        for j, part in enumerate(chunk.split("\b")):
            if j:
                face.device.erase_text(1)  # typing "\b" presses the keyboard's delete key
            if part:
                face.device.type_text(part)
    return None


def _simulated_location(face: WdaFace, req: Request) -> Any:
    # Appium's WebDriverAgent (FBCustomCommands handleSetSimulatedLocation): both numbers required,
    # null on success.
    lat, lon = req.body.get("latitude"), req.body.get("longitude")
    if not isinstance(lat, int | float) or not isinstance(lon, int | float) or isinstance(lat, bool):
        raise invalid_argument("Both latitude and longitude must be provided")
    face.device.set_location(float(lat), float(lon))
    return None


def _dismiss_keyboard(face: WdaFace, req: Request) -> Any:
    # WebDriverAgent's FBCustomCommands routes POST /wda/keyboard/dismiss (optional keyNames) and
    # answers null once the keyboard is gone; with none shown it answers null too (as we read its
    # source; no capture of that case was found).
    face.device.hide_keyboard()
    return None


def _open_url(face: WdaFace, req: Request) -> Any:
    # FBSessionCommands routes POST /session/:id/url {"url": …} (facebook-wda's open_url sends
    # exactly that); newer WebDriverAgents take "bundleId" too, to open it in that app.
    url = req.string("url")
    bundle = req.body.get("bundleId")
    try:
        face.device.open_link(url, bundle if isinstance(bundle, str) else None)
    except AppLaunchFailed as exc:
        # FBSessionCommands answers an unknown error with the reason XCUIDevice gave; the wording
        # here is ours (no capture of a refused URL was found).
        raise WdaError("unknown error", f"The URL {url} cannot be opened: {exc.message}", 500) from exc
    return None


def _homescreen(face: WdaFace, req: Request) -> Any:
    """``fb_goToHomescreenWithError`` presses home and waits until SpringBoard is in front, so the
    answer comes after the transition (activeAppInfo then names SpringBoard)."""
    face.device.home()
    time.sleep(min(face.device.transition_left(), 5.0))
    return None


def _press_button(face: WdaFace, req: Request) -> Any:
    name = req.body.get("name")
    if name not in _BUTTONS:
        raise WdaError(
            "unknown error",
            f"The button '{name}' is unknown. Only the following button names are supported: "
            f"({', '.join(_BUTTONS)})",
            500,
        )
    face.device.press(_BUTTONS[name])
    return None


def _find(single: bool) -> Handler:
    def handler(face: WdaFace, req: Request) -> Any:
        using, value = req.string("using"), req.body.get("value")
        try:
            nodes = find(face.tree(), using, value)  # type: ignore[arg-type]
        except QueryError as exc:
            raise WdaError("invalid selector", str(exc), 400) from exc
        if not single:
            return face.cache(nodes)
        if not nodes:
            raise WdaError(
                "no such element", f"unable to find an element using '{using}', value '{value}'", 404
            )
        return face.cache(nodes[:1])[0]

    return handler


def _element_property(face: WdaFace, req: Request) -> Any:
    node = face.element(req.params["uuid"])
    prop = req.params["prop"]
    if prop == "text":
        return node.value or node.label or ""
    if prop == "name":  # the W3C "tag name": WDA answers the element type
        return node.type
    if prop == "displayed":
        return node.visible
    if prop == "selected":
        return node.sim.selected
    return node.attribute(prop.removeprefix("attribute/"))


def _element_click(face: WdaFace, req: Request) -> Any:
    x, y = face.element(req.params["uuid"]).rect.center
    face.device.tap(x, y)
    return None


def _settings(face: WdaFace, req: Request) -> Any:
    if req.method == "POST":
        new = req.body.get("settings")
        if not isinstance(new, dict):
            raise invalid_argument("'settings' must be an object")
        face.settings.update(new)
    return dict(face.settings)


_UUID = "(?P<uuid>[^/]+)"


def _r(name: str, method: str, path: str, session: SessionMode, handler: Handler) -> Route:
    return Route(name, method, re.compile(path), session, handler)


ROUTES: tuple[Route, ...] = (
    _r("status", "GET", "/status", "none", _status),
    _r("session.create", "POST", "/session", "none", _create_session),
    _r("session.get", "GET", "", "required", lambda f, r: f.session_info()),
    _r("session.delete", "DELETE", "", "required", _delete_session),
    _r("source", "GET", "/source", "optional", _source),
    _r(
        "accessibleSource",
        "GET",
        "/wda/accessibleSource",
        "optional",
        lambda f, r: render_accessible(f.tree()),
    ),
    _r("activeAppInfo", "GET", "/wda/activeAppInfo", "optional", _active_app),
    _r("locked", "GET", "/wda/locked", "optional", lambda f, r: f.locked),
    _r("lock", "POST", "/wda/lock", "optional", _set_locked(True)),
    _r("unlock", "POST", "/wda/unlock", "optional", _set_locked(False)),
    _r("homescreen", "POST", "/wda/homescreen", "none", _homescreen),
    _r("apps.launch", "POST", "/wda/apps/(?:launch|activate)", "required", _launch),
    _r(
        "apps.terminate",
        "POST",
        "/wda/apps/terminate",
        "required",
        lambda f, r: f.device.terminate(r.string("bundleId")),
    ),
    _r("apps.state", "POST", "/wda/apps/state", "required", _app_state),
    _r(
        "apps.list",
        "GET",
        "/wda/apps/list",
        "required",
        lambda f, r: [{"pid": pid_for(b, f.device.pid_of(b)), "bundleId": b} for b in (f.active_bundle(),)],
    ),
    _r("tap", "POST", "/wda/tap", "required", _tap),
    _r("tap.element", "POST", "/wda/tap/(?P<uuid>[^/]+)", "required", _tap),
    _r("keys", "POST", "/wda/keys", "required", _keys),
    _r("simulatedLocation", "POST", "/wda/simulatedLocation", "required", _simulated_location),
    _r("keyboard.dismiss", "POST", "/wda/keyboard/dismiss", "required", _dismiss_keyboard),
    _r("url", "POST", "/url", "required", _open_url),
    _r("pressButton", "POST", "/wda/pressButton", "required", _press_button),
    # WebDriverAgent's FBScreenshotCommands: the main screen as PNG in pixels (points times the
    # screen's scale), base64 in "value"; facebook-wda's screenshot(format="raw") decodes it.
    _r(
        "screenshot",
        "GET",
        "/screenshot",
        "optional",
        lambda f, r: base64.b64encode(f.device.screenshot_png()).decode(),
    ),
    _r(
        "window.size",
        "GET",
        "/window/size",
        "optional",
        lambda f, r: dict(zip(("width", "height"), f.device.window_size, strict=True)),
    ),
    _r("elements", "POST", "/elements", "required", _find(single=False)),
    _r("element", "POST", "/element", "required", _find(single=True)),
    _r("element.click", "POST", "/element/(?P<uuid>[^/]+)/click", "required", _element_click),
    _r(
        "element.property",
        "GET",
        "/element/(?P<uuid>[^/]+)/(?P<prop>rect|text|name|displayed|enabled|selected|attribute/\\w+)",
        "required",
        _element_property,
    ),
    _r("settings", "GET", "/appium/settings", "required", _settings),
    _r("settings", "POST", "/appium/settings", "required", _settings),
    # the device's own routes (sim.wda_device_routes)
    _r("alert.text", "GET", "/alert/text", "optional", device_routes.alert_text),
    _r("alert.accept", "POST", "/alert/accept", "optional", device_routes.alert_accept),
    _r("alert.dismiss", "POST", "/alert/dismiss", "optional", device_routes.alert_dismiss),
    _r("alert.buttons", "GET", "/wda/alert/buttons", "required", device_routes.alert_buttons),
    _r("healthcheck", "GET", "/wda/healthcheck", "none", device_routes.healthcheck),
    _r("device.info", "GET", "/wda/device/info", "optional", device_routes.device_info),
    _r("batteryInfo", "GET", "/wda/batteryInfo", "required", device_routes.battery_info),
    _r("screen", "GET", "/wda/screen", "optional", device_routes.screen),
    _r("orientation", "GET", "/orientation", "optional", device_routes.get_orientation),
    _r("orientation", "POST", "/orientation", "optional", device_routes.set_orientation),
    _r("pasteboard.set", "POST", "/wda/setPasteboard", "optional", device_routes.set_pasteboard),
    _r("pasteboard.get", "POST", "/wda/getPasteboard", "optional", device_routes.get_pasteboard),
    _r("deactivateApp", "POST", "/wda/deactivateApp", "required", device_routes.deactivate_app),
    _r("alert.setText", "POST", "/alert/text", "required", device_routes.alert_set_text),
    # FBElementCommands (sim.wda_gesture_routes)
    _r("window.rect", "GET", "/window/rect", "required", gestures.window_rect),
    _r("element.value", "POST", f"/element/{_UUID}/value", "required", gestures.set_value),
    _r("element.clear", "POST", f"/element/{_UUID}/clear", "required", gestures.clear),
    _r("element.screenshot", "GET", f"/element/{_UUID}/screenshot", "required", gestures.element_screenshot),
    _r("element.screenshot", "GET", f"/screenshot/{_UUID}", "required", gestures.element_screenshot),
    _r("element.accessible", "GET", f"/wda/element/{_UUID}/accessible", "required", gestures.accessible),
    _r(
        "element.accessibilityContainer",
        "GET",
        f"/wda/element/{_UUID}/accessibilityContainer",
        "required",
        gestures.accessibility_container,
    ),
    *(
        _r(name, "POST", path, "required", handler)
        for gesture, handler in gestures.GESTURES.items()
        for name, path in (
            (gestures.GESTURE_NAMES.get(gesture, gesture), f"/wda/{gesture}"),
            (f"element.{gesture}", f"/wda/element/{_UUID}/{gesture}"),
        )
        if gesture not in ("scrollTo", "tap") or name.startswith("element.")
    ),
    _r("pickerwheel.select", "POST", f"/wda/pickerwheel/{_UUID}/select", "required", gestures.picker_select),
    _r(
        "element.keyboardInput",
        "POST",
        f"/wda/element/{_UUID}/keyboardInput",
        "required",
        gestures.keyboard_input,
    ),
    # FBFindElementCommands
    _r("element.element", "POST", f"/element/{_UUID}/element", "required", gestures.find_under(single=True)),
    _r(
        "element.elements",
        "POST",
        f"/element/{_UUID}/elements",
        "required",
        gestures.find_under(single=False),
    ),
    _r(
        "element.visibleCells",
        "GET",
        f"/wda/element/{_UUID}/getVisibleCells",
        "required",
        gestures.visible_cells,
    ),
    _r("element.active", "GET", "/element/active", "required", gestures.active_element),
    # FBCustomCommands, FBOrientationCommands, FBTouchIDCommands, FBVideoCommands, FBTouchActionCommands
    _r("timeouts", "POST", "/timeouts", "required", extra.timeouts),
    _r("rotation", "GET", "/rotation", "optional", extra.get_rotation),
    _r("rotation", "POST", "/rotation", "optional", extra.set_rotation),
    _r("accessibilityAudit", "POST", "/wda/performAccessibilityAudit", "required", extra.accessibility_audit),
    _r("ioHidEvent", "POST", "/wda/performIoHidEvent", "required", extra.io_hid_event),
    _r("expectNotification", "POST", "/wda/expectNotification", "required", extra.expect_notification),
    _r("siri", "POST", "/wda/siri/activate", "required", extra.activate_siri),
    _r("apps.launchUnattached", "POST", "/wda/apps/launchUnattached", "none", extra.launch_unattached),
    _r("resetAppAuth", "POST", "/wda/resetAppAuth", "required", extra.reset_app_auth),
    _r("appearance", "POST", "/wda/device/appearance", "none", extra.set_appearance),
    _r("location", "GET", "/wda/device/location", "optional", extra.get_location),
    _r("simulatedLocation", "GET", "/wda/simulatedLocation", "optional", extra.get_simulated_location),
    _r("simulatedLocation", "POST", "/wda/simulatedLocation", "optional", extra.set_simulated_location),
    _r("simulatedLocation", "DELETE", "/wda/simulatedLocation", "optional", extra.clear_simulated_location),
    _r("touchId", "POST", "/wda/touch_id", "required", extra.touch_id),
    _r("video.start", "POST", "/wda/video/start", "optional", extra.video_start),
    _r("video.stop", "POST", "/wda/video/stop", "optional", extra.video_stop),
    _r("video", "GET", "/wda/video", "optional", extra.video_get),
    _r("actions", "POST", "/actions", "required", extra.actions),
)
ROUTE_NAMES: tuple[str, ...] = (*dict.fromkeys(r.name for r in ROUTES), "unknown")
