"""A WebDriverAgent HTTP face for the simulated iPhone, served on 127.0.0.1.

:class:`WdaFace` answers the WebDriverAgent routes facebook-wda (and Appium's XCUITest driver)
use, in WDA's JSON shapes: every reply is ``{"value": …, "sessionId": …}``, errors are
``{"value": {"error", "message", "traceback"}}`` with WDA's HTTP status codes, an unknown route
is ``unknown command``, a request under a session id that is not the active one is ``invalid
session id``, and launching a bundle the device does not have is an ``unknown error`` whose message
says the app ``is unknown to FrontBoard`` (pass ``missing_app="invalid argument"`` for the answer
newer appium/WebDriverAgent builds give). One session is active at a time, as in WDA.

Every request is counted per route name (:data:`ROUTE_NAMES`; ``face.count("tap")``) and passed
through the shared :class:`~drivers.sim.faults.FaultInjector`: ``HANG`` holds the request without
answering until the fault is cleared or the face stops, ``DROP`` closes the connection unanswered,
``DIE`` does that and stops the server (later requests are refused), ``MALFORMED`` answers bytes
that are not JSON, ``EMPTY`` an empty body, and ``LOSE_SESSION`` makes the face forget its session
before answering. A hung or dropped request never changes the device.

:func:`connect_face` builds the ``sim+wda:ios`` device spec: a face over a fresh (or given)
:class:`SimDevice` and a connected :class:`~drivers.wda.WdaDriver` whose ``close()`` stops it.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit

from core.errors import AppNotInstalled, ConfigError
from drivers.sim.device import SimDevice
from drivers.sim.faults import Fault, FaultInjector
from drivers.sim.render_wda import WdaNode, pid_for, render_accessible, render_json, render_xml, wda_tree
from drivers.sim.server import BackgroundServer
from drivers.sim.wda_query import QueryError, find

if TYPE_CHECKING:
    from drivers.wda import WdaDriver

__all__ = ["FACE_OPTIONS", "ROUTE_NAMES", "WdaFace", "connect_face"]

FACE_OPTIONS = frozenset({"device", "device_id", "faults", "latency", "timeout", "launch_timeout"})
_ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
_MAX_CACHED_ELEMENTS = 2048
_BUTTONS = {"home": "home", "volumeUp": "volume_up", "volumeDown": "volume_down"}
_KEYBOARD_MESSAGE = (
    'Error Domain=com.facebook.WebDriverAgent Code=1 "The on-screen keyboard must be present to send keys" '
    "UserInfo={NSLocalizedDescription=The on-screen keyboard must be present to send keys}"
)


class WdaError(Exception):
    """An error answer: WDA's ``error`` name, its ``message`` and the HTTP status code."""

    def __init__(self, error: str, message: str, status: int) -> None:
        super().__init__(message)
        self.error, self.message, self.status = error, message, status


def _invalid_argument(message: str) -> WdaError:
    return WdaError("invalid argument", message, 400)


@dataclass(frozen=True)
class _Request:
    method: str
    path: str
    sid: str | None
    query: Mapping[str, str]
    body: Mapping[str, Any]
    params: Mapping[str, str] = field(default_factory=dict)

    def number(self, name: str) -> float:
        val = self.body.get(name)
        if isinstance(val, bool) or not isinstance(val, int | float):
            raise _invalid_argument(f"'{name}' must be a number, got {val!r}")
        return float(val)

    def string(self, name: str) -> str:
        val = self.body.get(name)
        if not isinstance(val, str) or not val:
            raise _invalid_argument(f"'{name}' must be a non-empty string, got {val!r}")
        return val


Handler = Callable[["WdaFace", _Request], Any]
SessionMode = Literal["required", "optional", "none"]


@dataclass(frozen=True)
class _Route:
    name: str
    method: str
    pattern: re.Pattern[str]
    session: SessionMode
    handler: Handler


class WdaFace:
    """WebDriverAgent over HTTP for one simulated iPhone. Construction does no I/O; ``start()`` binds."""

    def __init__(
        self,
        device: SimDevice | None = None,
        *,
        faults: FaultInjector | None = None,
        port: int = 0,
        missing_app: Literal["frontboard", "invalid argument"] = "frontboard",
    ) -> None:
        device = device if device is not None else SimDevice("ios")
        if device.platform != "ios":
            raise ConfigError(f"a WebDriverAgent face drives an iOS device, not {device.platform!r}")
        self.device = device
        self.faults = faults if faults is not None else FaultInjector()
        self.missing_app = missing_app
        self.locked = False
        self.settings: dict[str, Any] = {"snapshotMaxDepth": 50, "shouldUseCompactResponses": True}
        self._session_id: str | None = None
        self._elements: dict[str, WdaNode] = {}
        self._lock = threading.Lock()
        self._server: BackgroundServer[ThreadingHTTPServer] = BackgroundServer(
            ThreadingHTTPServer, _HttpHandler, port=port, faults=self.faults, face=self
        )
        self._url: str | None = None

    # --- lifecycle and inspection -----------------------------------------------------------

    def start(self) -> WdaFace:
        self._server.start()
        self._url = self._server.url
        return self

    def stop(self) -> None:
        """Stop serving; held (hung) requests are released and answered with nothing."""
        self._server.stop()

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("the WDA face has not been started")
        return self._url

    @property
    def running(self) -> bool:
        return self._server.running

    @property
    def session_id(self) -> str | None:
        return self._session_id

    def forget_session(self) -> None:
        """Drop the active session (what a WDA restart or a crashed session looks like to a client)."""
        with self._lock:
            self._session_id = None
            self._elements.clear()

    def count(self, *routes: str) -> int:
        """Requests served on these route names (see :data:`ROUTE_NAMES`); all requests when none given."""
        return self.faults.count(*routes)

    def __enter__(self) -> WdaFace:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- routing ----------------------------------------------------------------------------

    def resolve(self, method: str, target: str, body: bytes) -> tuple[str, Callable[[], tuple[int, Any]]]:
        """The route name for a request and a function that answers it (status, value)."""
        parts = urlsplit(target)
        path = re.sub(r"/{2,}", "/", parts.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        sid: str | None = None
        m = re.fullmatch(r"/session/([^/]+)(/.*)?", path)
        if m is not None:
            sid, path = m.group(1), (m.group(2) or "").rstrip("/")
        elif path != "/":
            path = path.rstrip("/")
        for route in ROUTES:
            if route.method != method or (sid is None and route.session == "required"):
                continue
            if sid is not None and route.session == "none":
                continue
            found = route.pattern.fullmatch(path)
            if found is not None:
                answer = functools.partial(
                    self._answer, route, method, path, sid, query, body, found.groupdict()
                )
                return route.name, answer
        return "unknown", lambda: (
            404,
            WdaError("unknown command", f"Unhandled endpoint: {target} with parameters {query}", 404),
        )

    def _answer(
        self,
        route: _Route,
        method: str,
        path: str,
        sid: str | None,
        query: Mapping[str, str],
        raw: bytes,
        params: Mapping[str, str],
    ) -> tuple[int, Any]:
        try:
            try:
                body = json.loads(raw) if raw.strip() else {}
            except ValueError as exc:
                raise _invalid_argument(f"the request body is not JSON: {exc}") from exc
            if not isinstance(body, dict):
                raise _invalid_argument("the request body must be a JSON object")
            if sid is not None and sid != self._session_id:
                raise WdaError("invalid session id", "Session does not exist", 404)
            return 200, route.handler(self, _Request(method, path, sid, query, body, params))
        except WdaError as exc:
            return exc.status, exc

    def reply(self, status: int, value: Any) -> bytes:
        """A reply body in WDA's shape; an error becomes ``{"value": {"error", "message", "traceback"}}``."""
        if isinstance(value, WdaError):
            value = {"error": value.error, "message": value.message, "traceback": ""}
        return json.dumps({"value": value, "sessionId": self._session_id}, ensure_ascii=False).encode()

    # --- helpers ----------------------------------------------------------------------------

    def tree(self) -> WdaNode:
        root = self.device.tree()
        return wda_tree(root, bundle_id=root.package)

    def _cache(self, nodes: list[WdaNode]) -> list[dict[str, str]]:
        out = []
        with self._lock:
            for node in nodes:
                if len(self._elements) >= _MAX_CACHED_ELEMENTS:
                    self._elements.pop(next(iter(self._elements)))
                uid = str(uuid.uuid4()).upper()
                self._elements[uid] = node
                out.append({"ELEMENT": uid, _ELEMENT_KEY: uid})
        return out

    def element(self, uid: str) -> WdaNode:
        with self._lock:
            node = self._elements.get(uid)
        if node is None:
            raise WdaError(
                "stale element reference",
                f'The previously found element "{uid}" is not present in the current view anymore',
                404,
            )
        return node

    def launch(self, bundle_id: str) -> None:
        try:
            self.device.launch(bundle_id)
        except AppNotInstalled as exc:
            if self.missing_app == "invalid argument":
                raise _invalid_argument(
                    f'Error Domain=FBSOpenApplicationServiceErrorDomain Code=4 "The request to open '
                    f'"{bundle_id}" failed." UserInfo={{NSUnderlyingError={{Error Domain=FBSOpenApplication'
                    f'ErrorDomain Code=4 "Application info provider (FBSApplicationLibrary) returned nil '
                    f'for "{bundle_id}""}}}}'
                ) from exc
            raise WdaError(
                "unknown error",
                f"Failed to launch {bundle_id}: The operation couldn\u2019t be completed. "
                f'Application "{bundle_id}" is unknown to FrontBoard.',
                500,
            ) from exc

    def session_info(self) -> dict[str, Any]:
        return {
            "sessionId": self._session_id,
            "capabilities": {
                "device": "iphone",
                "sdkVersion": self.device.os_version,
                "browserName": self.device.foreground(),
                "CFBundleIdentifier": self.device.foreground(),
            },
        }


# --- route handlers ---------------------------------------------------------------------------


def _status(face: WdaFace, req: _Request) -> Any:
    return {
        "ready": True,
        "message": "WebDriverAgent is ready to accept commands",
        "state": "success",
        "os": {
            "name": "iOS",
            "version": face.device.os_version,
            "sdkVersion": face.device.os_version,
            "testmanagerdVersion": 28,
        },
        "ios": {"ip": "127.0.0.1"},
        "build": {
            "time": "Jan  1 2025 00:00:00",
            "productBundleIdentifier": "com.facebook.WebDriverAgentRunner",
        },
        "device": "iphone",
    }


def _create_session(face: WdaFace, req: _Request) -> Any:
    caps = req.body.get("capabilities", {})
    always = caps.get("alwaysMatch", {}) if isinstance(caps, dict) else {}
    bundle = always.get("bundleId") if isinstance(always, dict) else None
    if bundle:
        face.launch(str(bundle))
    with face._lock:
        face._session_id = str(uuid.uuid4()).upper()
        face._elements.clear()
    return face.session_info()


def _delete_session(face: WdaFace, req: _Request) -> Any:
    face.forget_session()
    return None


def _source(face: WdaFace, req: _Request) -> Any:
    kind = req.query.get("format", "xml").lower()
    if kind == "xml":
        return render_xml(face.tree())
    if kind == "json":
        return render_json(face.tree())
    raise _invalid_argument(
        f"Unknown source format '{kind}'. Only (xml, json, description) source formats are supported."
    )


def _active_app(face: WdaFace, req: _Request) -> Any:
    bundle = face.device.foreground()
    return {
        "pid": pid_for(bundle),
        "bundleId": bundle,
        "name": "",
        "processArguments": {"args": [], "env": {}},
    }


def _set_locked(flag: bool) -> Handler:
    def handler(face: WdaFace, req: _Request) -> Any:
        face.locked = flag
        return None

    return handler


def _launch(face: WdaFace, req: _Request) -> Any:
    face.launch(req.string("bundleId"))
    return None


def _app_state(face: WdaFace, req: _Request) -> Any:
    bundle = req.string("bundleId")
    return face.device.app_state(bundle) if face.device.is_installed(bundle) else 0


def _tap(face: WdaFace, req: _Request) -> Any:
    x, y = req.number("x"), req.number("y")
    uid = req.params.get("uuid")
    if uid and uid != "0":
        origin = face.element(uid).rect
        x, y = x + origin.left, y + origin.top
    face.device.tap(x, y)
    return None


def _keys(face: WdaFace, req: _Request) -> Any:
    value = req.body.get("value")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _invalid_argument("'value' must be an array of strings")
    if not face.device.keyboard_shown():
        raise WdaError("invalid element state", _KEYBOARD_MESSAGE, 400)
    for i, chunk in enumerate("".join(value).split("\n")):
        if i:
            face.device.press("enter")  # typing "\n" presses the keyboard's return key
        if chunk:
            face.device.type_text(chunk)
    return None


def _drag(face: WdaFace, req: _Request) -> Any:
    face.device.swipe(req.number("fromX"), req.number("fromY"), req.number("toX"), req.number("toY"))
    return None


def _touch_and_hold(face: WdaFace, req: _Request) -> Any:
    face.device.tap(req.number("x"), req.number("y"))  # the simulated apps have no long-press actions
    return None


def _press_button(face: WdaFace, req: _Request) -> Any:
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
    def handler(face: WdaFace, req: _Request) -> Any:
        using, value = req.string("using"), req.body.get("value")
        try:
            nodes = find(face.tree(), using, value)  # type: ignore[arg-type]
        except QueryError as exc:
            raise WdaError("invalid selector", str(exc), 400) from exc
        if not single:
            return face._cache(nodes)
        if not nodes:
            raise WdaError(
                "no such element", f"unable to find an element using '{using}', value '{value}'", 404
            )
        return face._cache(nodes[:1])[0]

    return handler


def _element_property(face: WdaFace, req: _Request) -> Any:
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


def _element_click(face: WdaFace, req: _Request) -> Any:
    x, y = face.element(req.params["uuid"]).rect.center
    face.device.tap(x, y)
    return None


def _settings(face: WdaFace, req: _Request) -> Any:
    if req.method == "POST":
        new = req.body.get("settings")
        if not isinstance(new, dict):
            raise _invalid_argument("'settings' must be an object")
        face.settings.update(new)
    return dict(face.settings)


def _r(name: str, method: str, path: str, session: SessionMode, handler: Handler) -> _Route:
    return _Route(name, method, re.compile(path), session, handler)


ROUTES: tuple[_Route, ...] = (
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
    _r("homescreen", "POST", "/wda/homescreen", "none", lambda f, r: f.device.home()),
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
        lambda f, r: [{"pid": pid_for(b), "bundleId": b} for b in (f.device.foreground(),)],
    ),
    _r("tap", "POST", "/wda/tap", "required", _tap),
    _r("tap.element", "POST", "/wda/tap/(?P<uuid>[^/]+)", "required", _tap),
    _r("keys", "POST", "/wda/keys", "required", _keys),
    _r("drag", "POST", "/wda/dragfromtoforduration", "required", _drag),
    _r("touchAndHold", "POST", "/wda/touchAndHold", "required", _touch_and_hold),
    _r("pressButton", "POST", "/wda/pressButton", "required", _press_button),
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
)
ROUTE_NAMES: tuple[str, ...] = (*dict.fromkeys(r.name for r in ROUTES), "unknown")


# --- HTTP -------------------------------------------------------------------------------------


class _HttpHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "WebDriverAgent"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _serve(self) -> None:
        face: WdaFace = self.server.face  # type: ignore[attr-defined]
        faults: FaultInjector = self.server.faults  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        name, answer = face.resolve(self.command, self.path, body)
        fault = faults.on_request(name)
        if fault is Fault.HANG:
            faults.wait_released()
            self.close_connection = True
            return
        if fault in (Fault.DROP, Fault.DIE):
            if fault is Fault.DIE:
                self.server.background.stop_from_handler()  # type: ignore[attr-defined]
            self.close_connection = True
            return
        if fault is Fault.MALFORMED:
            self._send(200, b"<html><body>\x00\xffWebDriverAgent</bo")
            return
        if fault is Fault.EMPTY:
            self._send(200, b"")
            return
        if fault is Fault.LOSE_SESSION:
            face.forget_session()
        status, value = answer()
        self._send(status, face.reply(status, value))

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = do_PUT = _serve


# --- the sim+wda:ios device spec --------------------------------------------------------------


def connect_face(target: str, options: Mapping[str, Any]) -> WdaDriver:
    """``sim+wda:ios``: serve a simulated iPhone over WDA and return a connected ``WdaDriver``.

    Options: ``device`` (a ``SimDevice`` to serve; else a fresh one with ``device_id``), ``faults``
    (a shared ``FaultInjector``), ``latency`` (seconds added to every request), and the driver's
    ``timeout`` and ``launch_timeout``. The driver's ``close()`` stops the face.
    """
    from drivers.wda import WdaDriver

    if target != "ios":
        raise ConfigError(f"sim+wda drives the simulated iPhone: use 'sim+wda:ios', not 'sim+wda:{target}'")
    unknown = sorted(set(options) - FACE_OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown option(s) {', '.join(unknown)} for sim+wda; accepted: {', '.join(sorted(FACE_OPTIONS))}"
        )
    device = options.get("device") or SimDevice("ios", options.get("device_id"))
    if not isinstance(device, SimDevice):
        raise ConfigError(f"option 'device' must be a SimDevice, got {type(device).__name__}")
    face = WdaFace(device, faults=options.get("faults"))
    face.faults.set_latency(float(options.get("latency", 0.0)))
    face.start()
    extra = {k: float(options[k]) for k in ("timeout", "launch_timeout") if k in options}
    driver = WdaDriver.from_url(face.url, device_id=device.device_id, on_close=face.stop, **extra)
    try:
        driver.connect()
    except BaseException:
        face.stop()
        raise
    return driver
