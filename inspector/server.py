"""The inspector's web page and its JSON API, served on 127.0.0.1 by the standard library.

``ThreadingHTTPServer`` serves three packaged files (the page, its script, its style: no other
file is ever read, whatever the path asks) and a small API over one
:class:`~amc.inspector.session.InspectorSession`:

==========================  ==========================================================
``GET  /api/screen``        the latest screen: device, window, elements, the draft
``GET  /api/screen.png``    its picture (``?v=VERSION``; PNG or JPEG as the device sent it)
``GET  /api/element``       one element's attributes and unique selectors (``?v=&ref=``)
``POST /api/refresh``       look at the device again
``POST /api/tap``           ``{"v", "ref"}``: tap the element (recorded with its selector)
``POST /api/type``          ``{"v", "text", "ref"?}``: type, into the element when given
``POST /api/back``          ``{"v"}``: back (Android's key; iOS's navigation-bar button)
``POST /api/swipe``         ``{"v", "direction"}``: swipe up, down, left or right
``POST /api/check``         ``{"v", "kind", "ref"?}``: record a check (shown, text, app)
==========================  ==========================================================

Every request is treated as hostile. The server binds 127.0.0.1 only and answers only requests
addressed to it (``Host`` naming 127.0.0.1 or localhost and its port) from no other origin. Every
``/api/`` request must carry the session's token (:data:`TOKEN_HEADER`), a random value made when
the server starts and written only into the page it serves at ``/``: a page on another site can
neither read that page (no CORS) nor load it under its own name (the ``Host`` check refuses a
DNS-rebinding name), so it cannot act, whatever it sends. A ``POST`` must be JSON with a
``Content-Length`` of at most 64 KiB; every request's framing, target, query and JSON are read by
the project's one rule for them (:mod:`amc.core.http_input`: two ``Content-Length`` headers, or one
beside ``Transfer-Encoding``, are refused as ambiguous). Any refusal or error closes the
connection, after reading and discarding (up to :data:`MAX_BODY`) a body the server did not
accept: bytes left on a kept-alive connection would otherwise be read as the next request, one
that no check saw coming from a page. Connections time out. Errors are JSON
``{"error": {"kind", "message", "hint"}}`` with a status from :data:`STATUSES`; no traceback ever
reaches the page. Responses forbid framing, sniffing and any script or picture from elsewhere
(a Content-Security-Policy).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from ..core.errors import (
    AppError,
    AssertionFailed,
    ConfigError,
    DeviceError,
    FlowError,
    HarnessError,
    StepArgumentError,
    TargetNotFound,
)
from ..core.http_input import BadRequest, body_length, json_value, query_fields, split_target
from .session import InspectorSession, Snapshot, StaleScreen

__all__ = ["LOOPBACK", "MAX_BODY", "STATUSES", "TOKEN_HEADER", "InspectorServer", "screen_json"]

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
MAX_BODY = 64 * 1024
MAX_QUERY_FIELDS = 8  # a query the page sends holds two (v, ref)
_BAD_KINDS = {411: "LengthRequired", 413: "PayloadTooLarge"}
TIMEOUT = 15.0
TOKEN_HEADER = "X-Amc-Token"
# Where the page's token goes: the packaged index.html holds this element, empty.
_TOKEN_SLOT = b'<meta name="amc-token" content="">'
# The HTTP status of each kind of error, most specific first.
STATUSES: tuple[tuple[type[HarnessError], HTTPStatus], ...] = (
    (StaleScreen, HTTPStatus.CONFLICT),
    (TargetNotFound, HTTPStatus.NOT_FOUND),
    (ConfigError, HTTPStatus.BAD_REQUEST),
    (StepArgumentError, HTTPStatus.BAD_REQUEST),
    (FlowError, HTTPStatus.BAD_REQUEST),
    (AssertionFailed, HTTPStatus.UNPROCESSABLE_ENTITY),
    (AppError, HTTPStatus.UNPROCESSABLE_ENTITY),
    (DeviceError, HTTPStatus.BAD_GATEWAY),
    (HarnessError, HTTPStatus.INTERNAL_SERVER_ERROR),
)
_ASSETS: dict[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/inspector.js": ("inspector.js", "text/javascript; charset=utf-8"),
    "/inspector.css": ("inspector.css", "text/css; charset=utf-8"),
}
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class _Refused(Exception):
    """A request the server will not serve: the status and the error to answer with."""

    def __init__(self, status: HTTPStatus, kind: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.hint = status, kind, message, hint


def _element_json(snapshot: Snapshot, number: int) -> dict[str, Any]:
    el = snapshot.elements[number]
    b = el.bounds
    return {
        "ref": number,
        "parent": snapshot.parents[number],
        "type": el.type,
        "text": el.text,
        "label": el.label,
        "id": el.identifier,
        "value": el.value,
        "bounds": [b.left, b.top, b.right, b.bottom],
        "visible": el.visible,
        "enabled": el.enabled,
        "clickable": el.clickable,
        "password": el.password,
        "children": len(el.children),
    }


def screen_json(session: InspectorSession, snapshot: Snapshot) -> dict[str, Any]:
    """What the page shows of one snapshot (and the draft, when recording)."""
    scene = snapshot.scene
    draft = session.draft
    return {
        "version": snapshot.version,
        "platform": scene.platform,
        "device": scene.device_id,
        "backend": scene.backend,
        "app": scene.foreground_app,
        "activity": scene.activity,
        "window": list(scene.window_size),
        "picture": {
            "url": f"/api/screen.png?v={snapshot.version}" if snapshot.picture else None,
            "error": snapshot.picture_error,
        },
        "elements": [_element_json(snapshot, n) for n in range(len(snapshot.elements))],
        "draft": None
        if draft is None
        else {
            "path": None if draft.path is None else str(draft.path),
            "steps": len(draft.steps),
            "text": draft.text(shown=True),
        },
    }


def _status(exc: HarnessError) -> HTTPStatus:
    return next(status for cls, status in STATUSES if isinstance(exc, cls))


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "amc-inspector"
    sys_version = ""

    # --- answering ----------------------------------------------------------------------------

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout)  # a connection that stalls is closed

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        refused = status >= HTTPStatus.BAD_REQUEST
        if refused:  # after any refusal or error the connection ends (see the module docstring)
            self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        if refused:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: HTTPStatus, data: Any) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _error(self, status: HTTPStatus, kind: str, message: str, hint: str | None = None) -> None:
        self._json(status, {"error": {"kind": kind, "message": message, "hint": hint}})

    def _handle(self, serve: Callable[[], None]) -> None:
        self._body_read = False
        try:
            self._check_host()
            self._check_origin()
            if split_target(self.path)[0].startswith("/api/"):
                self._check_token()
            serve()
        except _Refused as no:
            self._error(no.status, no.kind, no.message, no.hint)
        except BadRequest as bad:
            self._error(HTTPStatus(bad.status), _BAD_KINDS.get(bad.status, "BadRequest"), bad.message)
        except HarnessError as exc:
            self._error(_status(exc), exc.kind, exc.message, exc.hint)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # never a traceback to the page; the log keeps it
            log.exception("inspector: %s %s failed", self.command, self.path)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, "InternalError", f"unexpected {type(exc).__name__}")
        finally:
            if not self._body_read and self._declares_body():
                self._discard_body()

    def _declares_body(self) -> bool:
        return bool(self.headers.get_all("Transfer-Encoding")) or any(
            length.strip() != "0" for length in self.headers.get_all("Content-Length") or []
        )

    def _discard_body(self) -> None:
        """Read and drop a body the server did not take (at most :data:`MAX_BODY` bytes, within the
        connection's timeout), then end the connection: its bytes are never read as a request."""
        self.close_connection = True
        try:
            length = body_length(self.headers, MAX_BODY)
        except BadRequest:
            return  # nothing bounded to drain (ambiguous, chunked, too big): closing is enough
        with contextlib.suppress(OSError):  # a stalled or broken client: the connection ends anyway
            self.rfile.read(length)

    # --- checks -------------------------------------------------------------------------------

    def _check_host(self) -> None:
        host = self.headers.get("Host", "")
        if host not in self.server.hosts:
            raise _Refused(
                HTTPStatus.MISDIRECTED_REQUEST,
                "WrongHost",
                f"this inspector answers only requests to {self.server.url}",
            )

    def _check_origin(self) -> None:
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            raise _Refused(HTTPStatus.FORBIDDEN, "WrongOrigin", f"requests from {origin[:200]!r} are refused")

    def _check_token(self) -> None:
        given = self.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.server.token.encode("ascii")):
            raise _Refused(
                HTTPStatus.FORBIDDEN,
                "MissingToken" if not given else "WrongToken",
                f"every /api/ request must carry the {TOKEN_HEADER} the inspector's page was served with",
                hint=f"open {self.server.url} and act from that page",
            )

    def _body(self) -> Mapping[str, Any]:
        length = body_length(self.headers, MAX_BODY)  # ambiguous framing, chunks, too big: refused
        media = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            raise _Refused(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType", "the request body must be JSON"
            )
        if not self.headers.get_all("Content-Length"):
            raise _Refused(HTTPStatus.LENGTH_REQUIRED, "LengthRequired", "the request needs a Content-Length")
        data = self.rfile.read(length)
        self._body_read = True
        if len(data) != length:
            raise _Refused(HTTPStatus.BAD_REQUEST, "BadRequest", "the body ended early")
        try:
            body = json_value(data)
        except BadRequest as bad:
            raise _Refused(HTTPStatus.BAD_REQUEST, "BadJSON", bad.message) from None
        if not isinstance(body, dict):
            raise _Refused(HTTPStatus.BAD_REQUEST, "BadJSON", "the body must be a JSON object")
        return body

    def _query(self) -> dict[str, str]:
        query = query_fields(split_target(self.path)[1], MAX_QUERY_FIELDS)
        return {k: v[0] for k, v in query.items() if v}

    @staticmethod
    def _int(values: Mapping[str, Any], name: str) -> int:
        value = values.get(name)
        if isinstance(value, str) and value.isdigit() and len(value) <= 9:
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Refused(
            HTTPStatus.BAD_REQUEST, "BadRequest", f"{name!r} must be a whole number, got {value!r}"
        )

    # --- routes -------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._handle(self._get)

    def do_HEAD(self) -> None:
        self._handle(self._get)

    def do_POST(self) -> None:
        self._handle(self._post)

    _body_read = False

    def _not_allowed(self) -> None:
        refuse = HTTPStatus.METHOD_NOT_ALLOWED
        self._handle(lambda: self._error(refuse, "MethodNotAllowed", "GET or POST only"))

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

    def _get(self) -> None:
        path = split_target(self.path)[0]
        session = self.server.session
        if path in _ASSETS:
            name, content_type = _ASSETS[path]
            self._send(HTTPStatus.OK, self.server.asset(name), content_type)
        elif path == "/api/screen":
            self._json(HTTPStatus.OK, screen_json(session, session.latest()))
        elif path == "/api/screen.png":
            snapshot = session.latest()
            if self._int(self._query(), "v") != snapshot.version:
                raise StaleScreen(f"screen {snapshot.version} is the latest", hint="refresh")
            if snapshot.picture is None:
                raise TargetNotFound(f"screen {snapshot.version} has no picture: {snapshot.picture_error}")
            kind = "image/jpeg" if snapshot.picture.startswith(b"\xff\xd8") else "image/png"
            self._send(HTTPStatus.OK, snapshot.picture, kind)
        elif path == "/api/element":
            query = self._query()
            self._json(HTTPStatus.OK, session.details(self._int(query, "v"), self._int(query, "ref")))
        else:
            raise _Refused(HTTPStatus.NOT_FOUND, "NotFound", f"nothing is served at {path[:200]!r}")

    def _post(self) -> None:
        path = split_target(self.path)[0]
        actions: dict[str, Callable[[Mapping[str, Any]], Snapshot]] = {
            "/api/refresh": lambda body: self.server.session.look(),
            "/api/tap": lambda body: self.server.session.tap(body.get("v"), body.get("ref")),
            "/api/type": lambda body: self.server.session.type_text(
                body.get("v"), body.get("text"), body.get("ref")
            ),
            "/api/back": lambda body: self.server.session.back(body.get("v")),
            "/api/swipe": lambda body: self.server.session.swipe(body.get("v"), body.get("direction")),
            "/api/check": lambda body: self.server.session.check(
                body.get("v"), body.get("kind"), body.get("ref")
            ),
        }
        action = actions.get(path)
        if action is None:
            raise _Refused(HTTPStatus.NOT_FOUND, "NotFound", f"nothing is served at {path[:200]!r}")
        snapshot = action(self._body())
        self._json(HTTPStatus.OK, screen_json(self.server.session, snapshot))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    session: InspectorSession
    hosts: frozenset[str]
    origins: frozenset[str]
    url: str
    token: str
    request_timeout: float
    _assets: dict[str, bytes]

    def asset(self, name: str) -> bytes:
        return self._assets[name]

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that went away while its request was read (reset, timed out): nothing to answer.
        log.debug("inspector: the connection from %s broke", client_address, exc_info=True)


class InspectorServer:
    """Serves ``session`` on 127.0.0.1:``port`` (0: any free port). Nothing is bound before
    :meth:`start`."""

    def __init__(
        self, session: InspectorSession, *, port: int = 0, host: str = LOOPBACK, timeout: float = TIMEOUT
    ) -> None:
        if host != LOOPBACK:
            raise ConfigError(f"the inspector serves on {LOOPBACK} only, not {host!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ConfigError(f"--port must be a port number from 0 to 65535, got {port!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 600:
            raise ConfigError(f"the inspector's request timeout must be in (0, 600] s, got {timeout!r}")
        self.session = session
        self.port = port
        self.timeout = float(timeout)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise ConfigError("the inspector is not serving", hint="call start() first")
        return self._server.url

    @property
    def token(self) -> str:
        """The session's token, which the page at :attr:`url` carries (see the module docstring)."""
        if self._server is None:
            raise ConfigError("the inspector is not serving", hint="call start() first")
        return self._server.token

    def start(self) -> str:
        """Bind, start serving in a thread, and return the page's address."""
        pages = resources.files(__package__).joinpath("page")
        assets = {name: pages.joinpath(name).read_bytes() for name, _ in _ASSETS.values()}
        token = secrets.token_urlsafe(32)
        if assets["index.html"].count(_TOKEN_SLOT) != 1:
            raise ConfigError("the inspector's packaged page has no place for its token")
        assets["index.html"] = assets["index.html"].replace(
            _TOKEN_SLOT, b'<meta name="amc-token" content="' + token.encode("ascii") + b'">'
        )
        try:
            server = _Server((LOOPBACK, self.port), _Handler)
        except OSError as exc:
            raise ConfigError(
                f"cannot serve on {LOOPBACK}:{self.port}: {exc.strerror or exc}",
                hint="choose another --port, or --port 0 for any free one",
            ) from exc
        port = server.server_address[1]
        server.session = self.session
        server.url = f"http://{LOOPBACK}:{port}/"
        server.hosts = frozenset({f"{LOOPBACK}:{port}", f"localhost:{port}"})
        server.origins = frozenset({f"http://{LOOPBACK}:{port}", f"http://localhost:{port}"})
        server.request_timeout = self.timeout
        server.token = token
        server._assets = assets
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.1,), name="amc-inspector", daemon=True
        )
        self._thread.start()
        return server.url

    def wait(self, timeout: float | None = None) -> None:
        """Block until the server stops (or ``timeout`` seconds pass)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> InspectorServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
