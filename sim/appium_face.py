"""The simulated device behind a W3C WebDriver / Appium 3 face on 127.0.0.1.

:class:`AppiumFace` answers the HTTP endpoints an Appium 3 server with the UiAutomator2
(Android) or XCUITest (iOS) driver answers, closely enough that ``Appium-Python-Client`` cannot
tell it from one: ``POST /session`` in the W3C shape ``{"value": {"sessionId", "capabilities"}}``,
page source in each platform's Appium format, find element(s) by xpath / id / accessibility id /
class name, element click / rect / text / value / attribute and the active element, W3C actions
(tap, long press and swipe from pointer moves, typing from key actions), window rect,
screenshot, Appium settings, and the ``mobile:`` executes ``activateApp``, ``terminateApp``,
``queryAppState``, ``activeAppInfo`` (iOS), ``getCurrentPackage`` / ``pressKey`` (Android) and
``pressButton`` (iOS). What each command does is in :mod:`sim.appium_commands`.

Errors are W3C JSON ``{"value": {"error", "message", "stacktrace"}}`` with the HTTP status Appium
uses: 404 for ``invalid session id``, ``no such element`` and ``unknown command``, 405 for
``unknown method``, 500 for ``unknown error``, ``session not created`` and ``unsupported
operation``. Every request first goes through the shared
:class:`~sim.faults.FaultInjector` under its route name (:data:`ROUTES`; an execute is
counted under its script, e.g. ``"mobile: activateApp"``), which counts it and may make the face
hang, drop the connection, forget the session, answer garbage or nothing, or die.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from ..core.http_input import BadRequest, json_value, split_target
from ..core.models import Platform
from .appium_commands import AppiumState
from .appium_errors import W3CError
from .appium_input import Gesture, HangRequest, execute_route
from .appium_state import STATE_ROUTES
from .device import SimDevice
from .faults import Answer, Fault, FaultInjector
from .http_guard import guard
from .replay import Reply, hold, reset
from .server import BackgroundServer, FaceServerMixIn

__all__ = ["MALFORMED_BODY", "ROUTES", "AppiumFace"]

_S = r"^/session/(?P<sid>[^/]+)"
_E = _S + r"/element/(?P<eid>[^/]+)"

# (HTTP method, path pattern, route name): the route name is what faults match and count.
ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (method, re.compile(pattern + "/?$"), name)
    for method, pattern, name in (
        ("GET", r"^/status", "status"),
        ("POST", r"^/session", "new_session"),
        ("DELETE", _S, "delete_session"),
        ("GET", _S, "get_session"),
        ("POST", _S + r"/timeouts", "timeouts"),
        ("GET", _S + r"/source", "source"),
        ("GET", _S + r"/element/active", "active_element"),
        ("POST", _S + r"/element", "find_element"),
        ("POST", _S + r"/elements", "find_elements"),
        ("POST", _E + r"/click", "element_click"),
        ("GET", _E + r"/rect", "element_rect"),
        ("GET", _E + r"/text", "element_text"),
        ("POST", _E + r"/value", "element_value"),
        ("POST", _E + r"/clear", "element_clear"),
        ("GET", _E + r"/displayed", "element_displayed"),
        ("GET", _E + r"/enabled", "element_enabled"),
        ("GET", _E + r"/attribute/(?P<name>[^/]+)", "element_attribute"),
        ("POST", _S + r"/actions", "actions"),
        ("DELETE", _S + r"/actions", "release_actions"),
        ("GET", _S + r"/window/rect", "window_rect"),
        ("GET", _S + r"/screenshot", "screenshot"),
        ("POST", _S + r"/execute/sync", "execute"),
        ("GET", _S + r"/appium/settings", "get_settings"),
        ("POST", _S + r"/appium/settings", "update_settings"),
        ("POST", _S + r"/back", "back"),
        ("POST", _S + r"/location", "location"),
        *((method, _S + path, name) for method, path, name in STATE_ROUTES),  # sim.appium_state
    )
)

# What a MALFORMED fault answers with status 200: the start of a reply, cut off mid-way.
MALFORMED_BODY = (
    b'{"value": "<?xml version=\'1.0\' encoding=\'UTF-8\'?><hierarchy rotation=\\"0\\"><android.wid'
)


def _route(method: str, path: str) -> tuple[str, dict[str, str]]:
    for route_method, pattern, name in ROUTES:
        match = pattern.match(path)
        if match is not None and route_method == method:
            return name, match.groupdict()
    return "unknown", {}


class _AppiumServer(FaceServerMixIn, ThreadingHTTPServer):
    """Appium's HTTP server: kept-alive connections (Appium-Python-Client's urllib3 pool reuses them)."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Appium's Express server
    server_version = "AppiumSim/3.8.0"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes: without this, Nagle's algorithm holds the body
        # until the client's delayed ACK (~40 ms a request), which no real server suffers from.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read counters, not logs
        return

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        face: AppiumFace = self.server.face  # type: ignore[attr-defined]
        if face.background.server is not self.server:  # stopped: answer nothing on kept-alive sockets
            self.close_connection = True
            return
        raw = guard(self)  # a browser's request, or a body over the limit, is refused here
        if raw is None:
            return
        try:
            route, params = _route(method, split_target(self.path)[0])
        except BadRequest as bad:
            self._reply(400, W3CError(400, "invalid argument", bad.message).body())
            return
        body: Any = None
        bad_json: str | None = None
        if raw:
            try:
                body = json_value(raw)
            except BadRequest as bad:
                bad_json = bad.message
        counted = execute_route(body) if route == "execute" else route
        fault = face.faults.on_request(counted)
        if fault is Fault.LOSE_SESSION:
            face.state.forget_sessions()
        elif fault is not Fault.NONE:
            self._misbehave(face, fault)
            return
        replayed = face.replies.get(counted)
        if replayed is not None:
            if replayed.hang:
                self._hold(face)
            else:
                self._write(replayed.status, replayed.body, replayed.content_type)
            return
        if bad_json is not None:
            self._reply(400, W3CError(400, "invalid argument", bad_json).body())
            return
        if route == "unknown":
            error = W3CError(
                404,
                "unknown command",
                "The requested resource could not be found, or a request was received using an HTTP "
                "method that is not supported by the mapped resource.",
            )
            self._reply(404, error.body())
            return
        try:
            value = face.state.handle(route, params, body)
        except W3CError as exc:
            self._reply(exc.status, exc.body(), counted)
            return
        except HangRequest:
            self._hold(face)
            return
        self._reply(200, {"value": value}, counted)

    def _hold(self, face: AppiumFace) -> None:
        hold(self.connection, lambda: face.background.server is self.server)
        self.close_connection = True

    def _misbehave(self, face: AppiumFace, fault: Fault) -> None:
        if fault is Fault.HANG:
            face.faults.wait_released()
            self.close_connection = True
        elif fault is Fault.MALFORMED:
            self._write(200, MALFORMED_BODY, "application/json; charset=utf-8")
        elif fault is Fault.EMPTY:
            self._write(200, b"", "application/json; charset=utf-8")
        elif fault is Fault.DIE:
            face.background.stop_from_handler()
            self.close_connection = True
        elif fault is Fault.RESET:
            reset(self.connection)
            self.close_connection = True
        else:  # DROP: close without a word
            self.close_connection = True

    def _reply(self, status: int, payload: Mapping[str, Any], route: str = "") -> None:
        answer = Answer(route, json.dumps(payload).encode("utf-8"), status, "application/json; charset=utf-8")
        if route:  # an answer of the server's own (not a refused request): the wire fuzz may rewrite it
            answer = self.server.face.faults.rewritten(answer)  # type: ignore[attr-defined]
        self._write(answer.status, answer.body, answer.content_type)

    def _write(self, status: int, data: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client gave up (its timeout): nothing to tell it


class AppiumFace:
    """One simulated device served as an Appium 3 server. Nothing binds until ``start()``."""

    def __init__(
        self,
        device: SimDevice,
        *,
        faults: FaultInjector | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        replies: dict[str, Reply] | None = None,
    ) -> None:
        self.device = device
        self.state = AppiumState(device)
        self.faults = faults or FaultInjector()
        # Real answers played back by route name (an execute by its script, "mobile: activateApp").
        self.replies: dict[str, Reply] = replies if replies is not None else {}
        self.background: BackgroundServer[_AppiumServer] = BackgroundServer(
            _AppiumServer, _Handler, host=host, port=port, faults=self.faults, face=self
        )

    @property
    def platform(self) -> Platform:
        return self.device.platform

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: what an Appium client is pointed at."""
        return self.background.url

    @property
    def running(self) -> bool:
        return self.background.running

    @property
    def gestures(self) -> list[Gesture]:
        """The taps, long presses and swipes performed from W3C actions, oldest first."""
        return list(self.state.gestures)

    def count(self, *routes: str) -> int:
        """Requests served on these routes (all when none given); see :data:`ROUTES`."""
        return self.faults.count(*routes)

    def start(self) -> AppiumFace:
        self.background.start()
        return self

    def stop(self) -> None:
        """Stop answering: the port is closed and kept-alive connections get no reply."""
        self.background.stop()

    def __enter__(self) -> AppiumFace:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url if self.running else "stopped"
        return f"AppiumFace({self.platform}, {self.device.device_id}, {where})"
