"""One kept-alive HTTP/1.1 connection per WebDriverAgent, for every request of one driver.

facebook-wda 1.5.4 (``wda.usbmux.fetch``) builds a new ``http.client.HTTPConnection`` for every
request and drops it afterwards, so each request costs a TCP connect (over USB, a usbmuxd connect
too) and the server a new connection. WebDriverAgent's HTTP server (GCDWebServer, then
CocoaHTTPServer-derived ``FBWebServer``) keeps HTTP/1.1 connections open, as Appium's own WDA
client does (a kept-alive agent). :class:`KeepAlive` holds one connection and reuses it:

- requests are serialised, one at a time per WebDriverAgent, as facebook-wda's ``httpdo`` does
  with its per-address lock;
- before reusing the connection it checks, as urllib3 does (``is_connection_dropped``), that the
  server has not closed it while idle (a readable idle socket is an EOF or stray bytes): then it
  opens a new one. A request that fails on the wire is never repeated here (a tap must not happen
  twice); the connection is dropped and the error raised as facebook-wda raises it
  (``wda.usbmux.exceptions.HTTPError`` around the socket error), so the error table maps it;
- a reply that says ``Connection: close`` (or HTTP/1.0) closes it after reading;
- the connection's socket is a :class:`~drivers.bounded.BoundedSocket`: a reply must arrive whole
  within the request's timeout and hold at most :data:`~drivers.bounded.MAX_REPLY_BYTES` (a
  ``DeviceTimeout`` or ``ReplyTooLarge`` otherwise, and the connection is dropped).

:func:`decode` turns a reply into facebook-wda's ``AttrDict`` and its error classes exactly as
``wda._unsafe_httpdo`` does, so callers see what the stock client returns.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from http.client import HTTPConnection
from typing import Any
from urllib.parse import urlsplit

import wda
from wda.usbmux import HTTPResponseWrapper, http_create
from wda.usbmux.exceptions import HTTPError
from wda.utils import convert

from ...core.errors import HarnessError
from ..bounded import BoundedSocket
from .answers import NotWdaReply

__all__ = ["KeepAlive", "decode"]

# The classes facebook-wda's _unsafe_httpdo tries, in its order, on a reply whose value has "error".
_ERROR_CLASSES = (
    wda.WDAInvalidSessionIdError,
    wda.WDAPossiblyCrashedError,
    wda.WDAKeyboardNotPresentError,
    wda.WDAUnknownError,
    wda.WDAStaleElementReferenceError,
)


def _dropped(conn: HTTPConnection) -> bool:
    """The server closed the idle connection (or sent bytes no request asked for)."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class KeepAlive:
    """One reused HTTP connection to the WebDriverAgent at ``base`` (see the module docstring).

    ``opened`` counts the connections it made (what a many-device run pays in TCP handshakes).
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.opened = 0
        self._conn: HTTPConnection | None = None
        self._lock = threading.Lock()

    def _connection(self, timeout: float | None) -> HTTPConnection:
        conn = self._conn
        if conn is not None and _dropped(conn):
            conn.close()
            conn = None
        if conn is None:
            conn = http_create(self.base)
            conn.timeout = timeout
            conn.connect()
            if conn.sock is not None and conn.sock.family in (socket.AF_INET, socket.AF_INET6):
                # as urllib3 does (HTTPConnection.default_socket_options): on a kept connection a
                # request's last segment must not wait for the server's delayed ACK
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if isinstance(conn.sock, socket.socket):
                conn.sock = BoundedSocket(conn.sock, what=f"WebDriverAgent at {self.base}")
            self.opened += 1
            self._conn = conn
        if conn.sock is not None:  # also a usbmux socket, which facebook-wda connects without one
            conn.sock.settimeout(timeout)
        return conn

    def fetch(
        self, method: str, url: str, data: Any = None, timeout: float | None = None
    ) -> HTTPResponseWrapper:
        """One request on the kept connection; ``url`` is absolute (under ``base``)."""
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        method = method.upper()
        with self._lock:
            try:
                conn = self._connection(timeout)
                if data:
                    body = json.dumps(data)
                    conn.request(method, path, body, headers={"Content-Type": "application/json"})
                else:
                    conn.request(method, path)
                response = conn.getresponse()
                content = response.read()
                if response.will_close:
                    self.close_locked()
                return HTTPResponseWrapper(content, response.status)
            except HarnessError:  # a reply over the size limit, already the harness's error
                self.close_locked()
                raise
            except Exception as exc:
                self.close_locked()
                raise HTTPError(exc) from exc

    def close_locked(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        with self._lock:
            self.close_locked()


def decode(response: HTTPResponseWrapper, method: str, url: str, data: Any) -> Any:
    """facebook-wda's reading of a reply (``wda._unsafe_httpdo``): an ``AttrDict``, or its errors;
    a body that is not JSON is :class:`~drivers.wda.answers.NotWdaReply` with its status and text
    (facebook-wda's ``WDAError`` there keeps 100 characters and no status)."""
    if response.status_code == 502:  # Bad Gateway
        raise wda.WDABadGateway(response.status_code, response.text)
    try:
        retjson = response.json()
    except json.JSONDecodeError:
        if response.text == "":
            raise wda.WDAEmptyResponseError(method, url, data) from None
        raise NotWdaReply(method, url, response.status_code, response.text) from None
    if isinstance(retjson, dict):
        retjson["status"] = retjson.get("status", 0)
    reply = convert(retjson)
    value = getattr(reply, "value", None)
    if isinstance(value, dict) and value.get("error"):
        value = value.copy()
        value.pop("traceback", None)
        for error_class in _ERROR_CLASSES:
            if error_class.check(value):
                raise error_class(wda.Status.ERROR, value)
        raise wda.WDARequestError(wda.Status.ERROR, value)
    return reply
