"""A WebDriverAgent HTTP face for the simulated iPhone, served on 127.0.0.1.

:class:`WdaFace` answers the WebDriverAgent routes facebook-wda (and Appium's XCUITest driver)
use, in WDA's JSON shapes: every reply is ``{"value": …, "sessionId": …}``, errors are
``{"value": {"error", "message", "traceback"}}`` with WDA's HTTP status codes, an unknown route
is ``unknown command``, and a request under a session id that is not the active one is ``invalid
session id``. One session is active at a time, as in WDA. The routes are the table in
:mod:`sim.wda_routes`; sources are rendered by :mod:`sim.render_wda` and element lookups answered
by :mod:`sim.wda_query`.

The device's :class:`~sim.profiles.IosProfile` decides what this WDA generation does (each from a
real output or WDA's source at that release, see :mod:`sim.profiles`): which tap route exists
(``/wda/tap/:uuid`` up to 5.x, ``/wda/tap`` from 6.0.0), how a launch of a missing app is answered
(no answer at all before 5.1.1; from 5.1.4 an HTTP 400 ``invalid argument`` whose message is
FrontBoard's NSError, ``tests/fixtures/real/ios/wda-5.1.4-…``), which keys ``/status`` has and
which attributes the XML source writes (``processId``/``bundleId`` on the application element only
from WDA 10.1.0, PR #1055). While a system permission prompt is up, SpringBoard is the active app
(``/wda/activeAppInfo``, ``/source``) and ``/wda/apps/state`` still answers 4 for the app under it.
SpringBoard is the active app too while the phone is locked or Notification Center or Control Center
is down (:mod:`sim.covers`); ``/wda/locked`` answers the device's lock (WDA's ``fb_isScreenLocked``,
SpringBoard's ``com.apple.springboard.lockstate``), ``/wda/lock`` and ``/wda/unlock`` change it, and a
launch on a locked phone is refused with FrontBoard's ``Locked`` reason.

Knobs that play other phones: ``face.locked`` (the device's lock), ``face.app_attributes``
(``processId``/``bundleId`` on the application element), ``face.disabled_routes`` (route names
answered ``unknown command``), and ``face.replies``: real answers played back by route name
(:class:`~sim.replay.Reply`, the body sent as it is).

Every request is counted per route name (:data:`ROUTE_NAMES`; ``face.count("tap")``) and passed
through the shared :class:`~sim.faults.FaultInjector`: ``HANG`` holds the request without
answering until the fault is cleared or the face stops, ``DROP`` closes the connection unanswered,
``RESET`` resets it (what iproxy does when the phone's port cannot be reached: libusbmuxd
tools/iproxy.c closes the accepted socket with the request unread, so the kernel sends a reset),
``DIE`` does that and stops the server (later requests are refused), ``CRASH`` drops it and
forgets the session (WDA crashed and its runner started a fresh one), ``CRASH_AT_START`` is a WDA
that never comes up (the server stops), ``MALFORMED`` answers bytes
that are not JSON, ``EMPTY`` an empty body, and ``LOSE_SESSION`` makes the face forget its session
before answering. A hung or dropped request never changes the device.

The face only serves: ``amc.drivers.connect`` composes it with the real adapter for ``sim+wda:ios``.
"""

from __future__ import annotations

import functools
import json
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..core.apps import SPRINGBOARD
from ..core.errors import AppLaunchFailed, AppNotInstalled, ConfigError
from ..core.http_input import BadRequest, json_value, query_fields, split_target
from .device import SimDevice
from .faults import Answer, Fault, FaultInjector
from .http_guard import guard
from .profiles import DEFAULT_IOS, IosProfile
from .render_wda import WdaNode, pid_for, render_xml, wda_tree
from .replay import Reply, hold, reset
from .server import BackgroundServer, FaceServerMixIn
from .wda_device_routes import WDA_ORIENTATIONS, settings_for
from .wda_routes import (
    ELEMENT_KEY,
    ROUTE_NAMES,
    ROUTES,
    Request,
    Route,
    WdaError,
    invalid_argument,
)

__all__ = ["ROUTE_NAMES", "WdaFace"]

_MAX_CACHED_ELEMENTS = 2048
MAX_QUERY_FIELDS = 100  # fields of a request's query (WDA's clients send none, or one or two)
_MAX_LAUNCH_WAIT = 5.0  # seconds a launch waits for the device's transition, at most


class WdaFace:
    """WebDriverAgent over HTTP for one simulated iPhone. Construction does no I/O; ``start()`` binds."""

    def __init__(
        self,
        device: SimDevice | None = None,
        *,
        faults: FaultInjector | None = None,
        port: int = 0,
        replies: dict[str, Reply] | None = None,
    ) -> None:
        device = device if device is not None else SimDevice("ios")
        if device.platform != "ios":
            raise ConfigError(f"a WebDriverAgent face drives an iOS device, not {device.platform!r}")
        self.device: SimDevice = device
        self.profile: IosProfile = device.profile if isinstance(device.profile, IosProfile) else DEFAULT_IOS
        self.faults = faults if faults is not None else FaultInjector()
        self.replies: dict[str, Reply] = replies if replies is not None else {}
        # Routes this generation does not have, answered 'unknown command' (CHANGELOG 6.0.0: /wda/tap
        # replaced /wda/tap/:uuid).
        self.disabled_routes: set[str] = {"tap.element"} if self.profile.has_coordinate_tap else {"tap"}
        # processId/bundleId on the application element: WDA 10.1.0 and later (PR #1055).
        self.app_attributes = self.profile.app_attributes
        self.settings: dict[str, Any] = settings_for(self)
        self.pasteboard = b""
        self.simulated_location: dict[str, float] | None = None  # /wda/simulatedLocation
        self._session_id: str | None = None
        self._elements: dict[str, WdaNode] = {}
        self._lock = threading.Lock()
        self._server: BackgroundServer[_Server] = BackgroundServer(
            _Server, _HttpHandler, port=port, faults=self.faults, face=self
        )
        self._url: str | None = None

    # --- lifecycle and inspection -----------------------------------------------------------

    # The screen's orientation and appearance are the device's (sim.device_state), in WDA's words:
    # FBOrientationCommands.m's mapping of UIDeviceOrientation names, /wda/device/appearance's.
    @property
    def orientation(self) -> str:
        return WDA_ORIENTATIONS[self.device.orientation]

    @orientation.setter
    def orientation(self, name: str) -> None:
        self.device.set_orientation({v: k for k, v in WDA_ORIENTATIONS.items()}[name])

    @property
    def appearance(self) -> str:
        return "dark" if self.device.dark else "light"

    @appearance.setter
    def appearance(self, name: str) -> None:
        self.device.set_dark_mode(name == "dark")

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
    def connections(self) -> int:
        """TCP connections this face accepted (a kept-alive client opens one and reuses it)."""
        return self._server.connections

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
        try:
            raw_path, raw_query = split_target(target)
            query = {k: v[-1] for k, v in query_fields(raw_query, MAX_QUERY_FIELDS).items()}
        except BadRequest as bad:
            return "unknown", functools.partial(_bad_request, bad.message)
        path = re.sub(r"/{2,}", "/", raw_path)
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
            if found is not None and route.name in self.replies:
                return route.name, functools.partial(_replayed, self.replies[route.name])
            if found is not None and route.name not in self.disabled_routes:
                answer = functools.partial(
                    self._answer, route, method, path, sid, query, body, found.groupdict()
                )
                return route.name, answer
            if found is not None:
                return route.name, functools.partial(_unhandled, target, query)
        return "unknown", functools.partial(_unhandled, target, query)

    def _answer(
        self,
        route: Route,
        method: str,
        path: str,
        sid: str | None,
        query: Mapping[str, str],
        raw: bytes,
        params: Mapping[str, str],
    ) -> tuple[int, Any]:
        try:
            try:
                body = json_value(raw) if raw.strip() else {}
            except BadRequest as bad:
                raise invalid_argument(f"the request body is not JSON: {bad.message}") from None
            if not isinstance(body, dict):
                raise invalid_argument("the request body must be a JSON object")
            if sid is not None and sid != self._session_id:
                raise WdaError("invalid session id", "Session does not exist", 404)
            value = route.handler(self, Request(method, path, sid, query, body, params))
            if method == "POST":
                self.wait_for_idle()
            return 200, value
        except WdaError as exc:
            return exc.status, exc
        except Hang as exc:
            return 0, exc

    def reply(self, status: int, value: Any) -> bytes:
        """A reply body in WDA's shape; an error becomes ``{"value": {"error", "message", "traceback"}}``."""
        if isinstance(value, WdaError):
            value = {"error": value.error, "message": value.message, "traceback": ""}
        return json.dumps({"value": value, "sessionId": self._session_id}, ensure_ascii=False).encode()

    # --- helpers ----------------------------------------------------------------------------

    def tree(self) -> WdaNode:
        root = self.device.tree()
        bundle = root.package if self.app_attributes else None
        pid = pid_for(bundle, self.device.pid_of(bundle)) if bundle else None
        return wda_tree(root, bundle_id=bundle, pid=pid)

    def source_xml(self) -> str:
        """``GET /source`` as this generation writes it (placeholderValue from 9.1.0, traits from 9.12.0)."""
        return render_xml(
            self.tree(),
            placeholders=self.profile.wda_at_least("9.1.0"),
            traits=self.profile.wda_at_least("9.12.0"),
        )

    @property
    def locked(self) -> bool:
        """What ``/wda/locked`` answers: whether the device is locked."""
        return self.device.locked

    @locked.setter
    def locked(self, flag: bool) -> None:
        if flag:
            self.device.lock()
        else:
            self.device.unlock()

    def active_bundle(self) -> str:
        """The app WDA reports active: SpringBoard while its permission prompt, the lock screen or
        a panel covers the app (the session has no app under test, so WDA takes the app at its
        detection point: SpringBoard's window there)."""
        if self.device.system_prompt() is not None or self.device.screen_cover() is not None:
            return SPRINGBOARD
        return self.device.foreground()

    def wait_for_idle(self) -> None:
        """XCTest returns from an event only once the app is idle (animations over), waiting at most
        the session's ``waitForIdleTimeout`` (FBConfiguration, 10 s by default): the face answers an
        action after the device's transition, as WDA does."""
        limit = self.settings.get("waitForIdleTimeout", 10)
        limit = float(limit) if isinstance(limit, int | float) and not isinstance(limit, bool) else 10.0
        time.sleep(min(self.device.transition_left(), max(0.0, limit), _MAX_LAUNCH_WAIT))

    def serving(self) -> bool:
        return self._server.running

    def new_session(self) -> str:
        """Start a new session (the old one ends, as in WDA) and return its id."""
        with self._lock:
            self._session_id = str(uuid.uuid4()).upper()
            self._elements.clear()
            return self._session_id

    def cache(self, nodes: list[WdaNode]) -> list[dict[str, str]]:
        """Remember found elements under new ids; the reply items for ``POST …/elements``."""
        out = []
        with self._lock:
            for node in nodes:
                if len(self._elements) >= _MAX_CACHED_ELEMENTS:
                    self._elements.pop(next(iter(self._elements)))
                uid = str(uuid.uuid4()).upper()
                self._elements[uid] = node
                out.append({"ELEMENT": uid, ELEMENT_KEY: uid})
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

    def launch(
        self, bundle_id: str, arguments: tuple[str, ...] = (), environment: dict[str, str] | None = None
    ) -> None:
        """``[XCUIApplication launch]``: it returns once the app is in front (XCTest waits for it),
        so the answer comes after the device's transition; a missing app is answered per
        generation, see :meth:`missing`."""
        try:
            if arguments or environment:
                self.device.launch(bundle_id, arguments, environment)
            else:
                self.device.launch(bundle_id)
        except AppNotInstalled as exc:
            raise self.missing(bundle_id) from exc
        except AppLaunchFailed as exc:
            # FrontBoard's refusal (the phone is locked): XCTest's NSError, relayed as WDA 5.1.4+
            # relays a launch error; before, WDA's exception handler answered it as an unknown
            # error (not collected).
            if self.profile.wda_at_least("5.1.4"):
                raise invalid_argument(exc.message) from exc
            raise WdaError("unknown error", exc.message, 500) from exc
        time.sleep(min(self.device.transition_left(), _MAX_LAUNCH_WAIT))

    def missing(self, bundle_id: str) -> WdaError:
        """WDA's answer to launching an app that is not installed. From 5.1.4 the XCTest launch error
        is an ``invalid argument`` carrying FrontBoard's NSError, verbatim in layout from
        ``tests/fixtures/real/ios/wda-5.1.4-apps-launch-not-installed-invalid-argument.txt`` (its
        ``FBSOpenApplicationRequestID`` and pointer values are WDA's per request). Before 5.1.1 there
        is no answer at all: :class:`Hang`."""
        if self.profile.hangs_on_missing_app:
            raise Hang(f"[XCUIApplication launch] of {bundle_id} never returns (WebDriverAgent PR #704)")
        return invalid_argument(
            f'Error Domain=FBSOpenApplicationServiceErrorDomain Code=4 "The request to open "{bundle_id}" '
            f'failed." UserInfo={{BSErrorCodeDescription=InvalidRequest, NSLocalizedDescription=The '
            f'request to open "{bundle_id}" failed., FBSOpenApplicationRequestID=0x13b9, '
            f"NSUnderlyingError=0x280c2d1a0 {{Error Domain=FBSOpenApplicationErrorDomain Code=4 "
            f'"Application info provider (FBSApplicationLibrary) returned nil for "{bundle_id}"" '
            f"UserInfo={{BSErrorCodeDescription=NotFound, NSLocalizedFailureReason=Application info "
            f'provider (FBSApplicationLibrary) returned nil for "{bundle_id}"}}}}}}'
        )

    def session_info(self) -> dict[str, Any]:
        """The session reply's value, in the shape of ``tests/fixtures/real/ios/wda-ios12.5.5-…``."""
        active = self.active_bundle()
        return {
            "sessionId": self._session_id,
            "capabilities": {
                "device": "iphone",
                "browserName": " " if active == SPRINGBOARD else active,
                "sdkVersion": self.device.os_version,
                "CFBundleIdentifier": active,
            },
        }


class Hang(Exception):
    """A request WDA never answers; the face holds the connection until the client gives up."""


def _replayed(reply: Reply) -> tuple[int, Any]:
    return reply.status, reply


def _bad_request(message: str) -> tuple[int, Any]:
    error = invalid_argument(message)
    return error.status, error


def _unhandled(target: str, query: Mapping[str, str]) -> tuple[int, Any]:
    return 404, WdaError("unknown command", f"Unhandled endpoint: {target} with parameters {query}", 404)


# --- HTTP -------------------------------------------------------------------------------------


class _Server(FaceServerMixIn, ThreadingHTTPServer):
    """Quiet about clients that hang up first (a client timeout is an expected event here)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


class _HttpHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with kept-alive connections: every reply carries its Content-Length, and only a
    fault (a hang, a dropped answer) closes the connection."""

    protocol_version = "HTTP/1.1"
    server_version = "WebDriverAgent"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes: on a kept-alive connection Nagle's algorithm would
        # hold the body until the client's delayed ACK (~40 ms a request), which no real server
        # suffers from (the Appium face does the same).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _serve(self) -> None:
        face: WdaFace = self.server.face  # type: ignore[attr-defined]
        faults: FaultInjector = self.server.faults  # type: ignore[attr-defined]
        body = guard(self)  # a browser's request, or a body over the limit, is refused here
        if body is None:
            return
        name, answer = face.resolve(self.command, self.path, body)
        fault = faults.on_request(name)
        if fault is Fault.HANG:
            faults.wait_released()
            self.close_connection = True
            return
        if fault is Fault.RESET:
            reset(self.connection)
            self.close_connection = True
            return
        if fault in (Fault.DROP, Fault.DIE, Fault.CRASH_AT_START):
            if fault is not Fault.DROP:  # a WDA that dies, or never comes up, listens no more
                self.server.background.stop_from_handler()  # type: ignore[attr-defined]
            self.close_connection = True
            return
        if fault is Fault.CRASH:
            # WDA crashed on this request (no answer); its runner starts a new one, which knows no
            # session: the next request under the old id is 'invalid session id'.
            face.forget_session()
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
        if isinstance(value, Hang) or (isinstance(value, Reply) and value.hang):
            hold(self.connection, face.serving)
            self.close_connection = True
            return
        if isinstance(value, Reply):
            sent = Answer(name, value.body, value.status, value.content_type)
        else:
            sent = Answer(name, face.reply(status, value), status, "application/json;charset=UTF-8")
        sent = faults.rewritten(sent)
        self._send(sent.status, sent.body, sent.content_type)

    def _send(
        self, status: int, payload: bytes, content_type: str = "application/json;charset=UTF-8"
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = do_PUT = _serve
