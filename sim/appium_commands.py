"""What the simulated Appium server does for each W3C / Appium command it routes.

:class:`AppiumState` holds the simulated device and its one Appium session and answers
commands by route name (see :data:`sim.appium_face.ROUTES`): each returns the reply's
``value`` or raises :class:`W3CError`, which the face writes as W3C JSON with Appium's HTTP
status. No HTTP here: the face parses requests, applies faults and writes replies.
"""

from __future__ import annotations

import base64
import threading
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from ..core.errors import AppNotInstalled, StepArgumentError
from ..core.models import Bounds, Platform
from . import render_appium
from .appium_input import (
    ELEMENT_KEY,
    Gesture,
    W3CError,
    invalid_argument,
    perform_actions,
    run_mobile,
)
from .appium_state import STATE_ROUTES, state_command
from .device import SimDevice
from .nodes import SimNode
from .profiles import IosProfile

__all__ = ["AppiumState"]

_ENTER_KEYS = frozenset({"\ue006", "\ue007", "\n"})
_DELETE_KEYS = frozenset({"\ue003", "\b"})  # W3C Backspace: KEYCODE_DEL, the iOS delete key


def _no_such_element(message: str = "") -> W3CError:
    return W3CError(
        404,
        "no such element",
        message or "An element could not be located on the page using the given search parameters.",
    )


@dataclass
class _Session:
    sid: str
    capabilities: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    elements: dict[str, tuple[tuple[int, ...], str]] = field(default_factory=dict)  # id -> (path, tag)


Handler = Callable[["AppiumState", _Session, Mapping[str, str], Any], Any]


class AppiumState:
    """The simulated device as one Appium server sees it: the device, its session, what it did."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.platform: Platform = device.platform
        self._lock = threading.Lock()
        self._session: _Session | None = None
        self.sessions_created = 0
        self.gestures: deque[Gesture] = deque(maxlen=200)

    # --- sessions ---------------------------------------------------------------------------

    @property
    def session_id(self) -> str | None:
        with self._lock:
            return None if self._session is None else self._session.sid

    @property
    def settings(self) -> dict[str, Any]:
        """The current session's Appium settings (empty without a session)."""
        with self._lock:
            return {} if self._session is None else dict(self._session.settings)

    def forget_sessions(self) -> None:
        """Drop the session, as a restarted server or an expired ``newCommandTimeout`` does."""
        with self._lock:
            self._session = None

    def handle(self, route: str, params: Mapping[str, str], body: Any) -> Any:
        """Answer one routed command: the reply's ``value``, or :class:`W3CError`."""
        if route == "status":
            return {
                "ready": True,
                "message": "The server is ready to accept new connections",
                "build": {"version": "3.8.0"},
            }
        if route == "new_session":
            return self._new_session(body)
        with self._lock:
            session = self._session
        if session is None or session.sid != params.get("sid"):
            raise W3CError(404, "invalid session id", "A session is either terminated or not started")
        handler = _COMMANDS.get(route)
        if handler is None:
            raise W3CError(404, "unknown command", "The requested resource could not be found")
        try:
            return handler(self, session, params, body)
        except StepArgumentError as exc:
            raise invalid_argument(exc.message) from exc

    def _new_session(self, body: Any) -> dict[str, Any]:
        caps = _merged_capabilities(body)
        expected = ("android", "uiautomator2") if self.platform == "android" else ("ios", "xcuitest")
        asked = (
            str(caps.get("platformName", "")).lower(),
            str(caps.get("appium:automationName", "")).lower(),
        )
        if asked != expected:
            raise W3CError(
                500,
                "session not created",
                "A new session could not be created. Details: Could not find a driver for automationName "
                f"'{caps.get('appium:automationName')}' and platformName '{caps.get('platformName')}'",
            )
        udid = caps.get("appium:udid")
        if udid is not None and udid != self.device.device_id:
            raise W3CError(
                500,
                "session not created",
                f"A new session could not be created. Details: Device {udid} was not in the list of "
                "connected devices",
            )
        app = caps.get("appium:appPackage" if self.platform == "android" else "appium:bundleId")
        if isinstance(app, str) and app:
            try:
                self.device.launch(app)
            except AppNotInstalled as exc:
                raise W3CError(
                    500, "session not created", f"A new session could not be created. Details: {exc.message}"
                ) from exc
        width, height = self.device.window_size
        returned = {key.removeprefix("appium:"): value for key, value in caps.items()}
        returned.update(
            {
                "platformName": "Android" if self.platform == "android" else "iOS",
                "udid": self.device.device_id,
                "deviceName": self.device.model,
                "platformVersion": self.device.os_version,
                "deviceScreenSize": f"{width}x{height}",
            }
        )
        return {"sessionId": self.open_session(returned), "capabilities": returned}

    def open_session(self, capabilities: dict[str, Any]) -> str:
        """Start the one session (replacing any other) with these capabilities; its id."""
        sid = str(uuid.uuid4())
        with self._lock:
            self._session = _Session(sid, capabilities)  # one session per device, as Appium has
            self.sessions_created += 1
        return sid

    @property
    def capabilities(self) -> dict[str, Any]:
        """The current session's capabilities (empty without a session)."""
        with self._lock:
            return {} if self._session is None else dict(self._session.capabilities)

    # --- the screen -------------------------------------------------------------------------

    def snapshot(self) -> tuple[SimNode, etree._Element]:
        """The screen's node tree and the page-source document rendered from it, consistently."""
        with self.device._lock:
            tree = self.device.tree()
        profile = self.device.profile
        app_attributes = not isinstance(profile, IosProfile) or profile.app_attributes
        pid = self.device.pid_of(tree.package) if tree.package else None
        return tree, render_appium.build_tree(
            tree,
            self.platform,
            self.device.window_size,
            app_attributes=app_attributes,
            rotation=self.device.rotation,
            pid=pid,
        )

    def remember(self, session: _Session, element: etree._Element) -> dict[str, str]:
        """A W3C element reference for ``element`` (the same id for the same node and type)."""
        path = render_appium.node_path(element, self.platform)
        if path is None:
            raise _no_such_element()
        eid = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{session.sid}/{path}/{element.tag}"))
        session.elements[eid] = (path, str(element.tag))
        return {ELEMENT_KEY: eid, "ELEMENT": eid}

    def element(self, session: _Session, eid: str) -> tuple[SimNode, etree._Element]:
        """The node (and its XML) an element id refers to now; ``stale element reference`` if gone."""
        entry = session.elements.get(eid)
        if entry is None:
            raise _no_such_element(f"The element with id '{eid}' is unknown")
        path, tag = entry
        tree, root = self.snapshot()
        node = render_appium.node_at(tree, path)
        xml = _xml_at(root, self.platform, path)
        if node is None or xml is None or node.type != tag:
            raise W3CError(404, "stale element reference", "The element is no longer on the screen")
        return node, xml

    def tap_node(self, node: SimNode) -> None:
        width, height = self.device.window_size
        shown = node.bounds.intersection(Bounds(0, 0, width, height)) or node.bounds
        self.device.tap(*shown.center)

    def type_keys(self, text: str) -> None:
        """Type into the focused field; a newline (or the W3C Enter/Return key) presses return."""
        chunk = ""
        for ch in text:
            if ch in _ENTER_KEYS:
                if chunk:
                    self.device.type_text(chunk)
                    chunk = ""
                self.device.press("enter")
            elif ch in _DELETE_KEYS:
                if chunk:
                    self.device.type_text(chunk)
                    chunk = ""
                self.device.erase_text(1)
            elif not "\ue000" <= ch <= "\uf8ff":  # other W3C special keys do nothing here
                chunk += ch
        if chunk:
            self.device.type_text(chunk)

    def record(self, gesture: Gesture) -> None:
        self.gestures.append(gesture)


def _merged_capabilities(body: Any) -> dict[str, Any]:
    request = body.get("capabilities") if isinstance(body, dict) else None
    if not isinstance(request, dict):
        raise invalid_argument("'capabilities' must be an object with 'alwaysMatch' and/or 'firstMatch'")
    always = request.get("alwaysMatch") or {}
    first = request.get("firstMatch") or [{}]
    if (
        not isinstance(always, dict)
        or not isinstance(first, list)
        or not all(isinstance(f, dict) for f in first)
    ):
        raise invalid_argument("'alwaysMatch' must be an object and 'firstMatch' a list of objects")
    return {**always, **(first[0] if first else {})}


def _xml_at(root: etree._Element, platform: str, path: tuple[int, ...]) -> etree._Element | None:
    element: etree._Element | None = root if platform == "android" else (root[0] if len(root) else None)
    for index in path:
        if element is None or index >= len(element):
            return None
        element = element[index]
    return element


# --- element commands ------------------------------------------------------------------------


def _find(state: AppiumState, body: Any) -> list[etree._Element]:
    using = body.get("using") if isinstance(body, dict) else None
    value = body.get("value") if isinstance(body, dict) else None
    if not isinstance(using, str) or not isinstance(value, str):
        raise invalid_argument("a locator needs string 'using' and 'value'")
    _, root = state.snapshot()
    try:
        return render_appium.find_elements(root, state.platform, using, value)
    except (ValueError, etree.XPathError) as exc:
        raise W3CError(400, "invalid selector", str(exc)) from exc


def _find_element(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    found = _find(state, body)
    if not found:
        raise _no_such_element()
    return state.remember(session, found[0])


def _find_elements(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return [state.remember(session, el) for el in _find(state, body)]


def _active_element(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    tree, root = state.snapshot()
    stack: list[tuple[tuple[int, ...], SimNode]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        if node.focused:
            xml = _xml_at(root, state.platform, path)
            if xml is not None:
                return state.remember(session, xml)
        stack.extend(((*path, i), child) for i, child in reversed(list(enumerate(node.children))))
    raise _no_such_element("No element has the keyboard focus")


def _element_click(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    node, _ = state.element(session, params["eid"])
    if not node.visible:
        raise W3CError(400, "element not interactable", "The element is not visible on the screen")
    state.tap_node(node)
    return None


def _element_rect(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    b = state.element(session, params["eid"])[0].bounds
    return {"x": b.left, "y": b.top, "width": b.width, "height": b.height}


def _element_text(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    node, _ = state.element(session, params["eid"])
    if state.platform == "android":
        return node.text or ""
    return node.value or node.label or ""


def _element_value(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    node, _ = state.element(session, params["eid"])
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        chars = body.get("value") if isinstance(body, dict) else None
        if not isinstance(chars, list) or not all(isinstance(c, str) for c in chars):
            raise invalid_argument("'text' must be a string (or 'value' a list of strings)")
        text = "".join(chars)
    if not node.focused:
        state.tap_node(node)
    if state.platform == "android":
        state.device.clear_text()  # UiAutomator2 replaces the field's text; XCUITest types on
    state.type_keys(text)
    return None


def _element_clear(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    node, _ = state.element(session, params["eid"])
    if not node.focused:
        state.tap_node(node)
    state.device.clear_text()
    return None


def _element_attribute(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return state.element(session, params["eid"])[1].get(params["name"])


def _element_displayed(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return state.element(session, params["eid"])[0].visible


def _element_enabled(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return state.element(session, params["eid"])[0].enabled


# --- window, screenshot, settings -------------------------------------------------------------


def _window_rect(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    width, height = state.device.window_size
    return {"x": 0, "y": 0, "width": width, "height": height}


def _source(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return render_appium.serialize(state.snapshot()[1], state.platform)


def _screenshot(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    # W3C WebDriver "Take Screenshot": the base64 of a PNG in "value"; the UiAutomator2 and
    # XCUITest drivers send the device's pixels; Appium-Python-Client's get_screenshot_as_base64.
    return base64.b64encode(state.device.screenshot_png()).decode("ascii")


def _get_settings(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return dict(session.settings)


def _update_settings(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    settings = body.get("settings") if isinstance(body, dict) else None
    if not isinstance(settings, dict):
        raise invalid_argument("'settings' must be an object")
    session.settings.update(settings)
    return None


def _delete_session(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    state.forget_sessions()
    return None


def _get_session(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return dict(session.capabilities)


def _back(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    if state.platform == "ios":
        raise W3CError(405, "unknown method", "Method has not yet been implemented")
    state.device.press("back")
    return None


def _location(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    # appium base driver's setGeoLocation: {"location": {"latitude", "longitude", "altitude"}}
    where = body.get("location") if isinstance(body, Mapping) else None
    lat = where.get("latitude") if isinstance(where, Mapping) else None
    lon = where.get("longitude") if isinstance(where, Mapping) else None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lat, lon)):
        raise W3CError(400, "invalid argument", "Both latitude and longitude should be set")
    state.device.set_location(float(lat), float(lon))  # type: ignore[arg-type]
    return where


def _nothing(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return None


def _actions(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    perform_actions(state, body, lambda eid: state.element(session, eid)[0].bounds.center)


def _execute(state: AppiumState, session: _Session, params: Mapping[str, str], body: Any) -> Any:
    return run_mobile(state, body)


_COMMANDS: dict[str, Handler] = {
    "delete_session": _delete_session,
    "get_session": _get_session,
    "timeouts": _nothing,
    "source": _source,
    "active_element": _active_element,
    "find_element": _find_element,
    "find_elements": _find_elements,
    "element_click": _element_click,
    "element_rect": _element_rect,
    "element_text": _element_text,
    "element_value": _element_value,
    "element_clear": _element_clear,
    "element_displayed": _element_displayed,
    "element_enabled": _element_enabled,
    "element_attribute": _element_attribute,
    "actions": _actions,
    "release_actions": _nothing,
    "window_rect": _window_rect,
    "screenshot": _screenshot,
    "execute": _execute,
    "get_settings": _get_settings,
    "update_settings": _update_settings,
    "back": _back,
    "location": _location,
    **{name: state_command(name) for _, _, name in STATE_ROUTES},  # sim.appium_state
}
