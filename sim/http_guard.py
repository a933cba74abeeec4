"""What the simulated device's HTTP faces refuse before serving: requests a web browser sent.

The WebDriverAgent and Appium faces are test servers on 127.0.0.1, but a web page open in a
browser on the same machine can send requests to any local port (a ``no-cors`` ``fetch`` needs no
permission), and a DNS-rebinding name can point at 127.0.0.1. The faces must not be a way in, so
before a request is served :func:`refusal` decides whether it is one:

- its ``Host`` must name a loopback address (``127.0.0.1``, ``localhost``, ``[::1]``), as every
  real client writes it; a rebinding page's request names the page's own host;
- it must carry none of the headers only browsers send (``Origin``, ``Sec-Fetch-*``): facebook-wda
  (``requests``), Appium-Python-Client (``urllib3``) and the harness's own WebDriverAgent client
  send none of them, and a browser sends ``Origin`` with every ``POST`` and ``Sec-Fetch-Mode``
  with every request;
- its body has one ``Content-Length`` (no chunks, no second length, not both) of at most
  ``max_body`` bytes (:func:`amc.core.http_input.body_length`, the project's one framing rule).

A refused request is answered with a JSON error and ``Connection: close``, after reading and
dropping its body when that is small enough (:func:`refuse`), so no byte of it is ever read as the
next request. The adb face needs none of this: adb's protocol starts every request with four hex
digits of length, which no HTTP method is, so a browser's request ends the connection unread.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler

from ..core.http_input import BadRequest, body_length

__all__ = [
    "BROWSER_HEADERS",
    "LOOPBACK_HOSTS",
    "MAX_BODY",
    "Refusal",
    "guard",
    "read_body",
    "refusal",
    "refuse",
]

MAX_BODY = 16 * 1024 * 1024  # bytes of a request body a face reads
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
BROWSER_HEADERS = ("Origin", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-Dest")


@dataclass(frozen=True)
class Refusal:
    """Why a request is not served, and the HTTP status that says so."""

    status: int
    message: str


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def refusal(headers: Message, max_body: int = MAX_BODY) -> Refusal | None:
    """The refusal for a request with ``headers``, or None to serve it (see the module docstring)."""
    host = headers.get("Host")
    if host is None or _host_name(host) not in LOOPBACK_HOSTS:
        return Refusal(
            421, f"this simulated device serves requests to 127.0.0.1 or localhost only, not {host!r:.80}"
        )
    for name in BROWSER_HEADERS:
        if headers.get(name) is not None:
            return Refusal(403, f"requests from a web browser ({name}) are refused by the simulated device")
    try:
        body_length(headers, max_body)
    except BadRequest as bad:
        return Refusal(bad.status, bad.message)
    return None


def read_body(handler: BaseHTTPRequestHandler, max_body: int = MAX_BODY) -> bytes:
    """The body of a request :func:`refusal` let through."""
    length = body_length(handler.headers, max_body)
    return handler.rfile.read(length) if length > 0 else b""


def guard(handler: BaseHTTPRequestHandler, max_body: int = MAX_BODY) -> bytes | None:
    """The request's body when it may be served; else None, the refusal answered (:func:`refuse`)."""
    no = refusal(handler.headers, max_body)
    if no is not None:
        refuse(handler, no, max_body)
        return None
    return read_body(handler, max_body)


def refuse(handler: BaseHTTPRequestHandler, no: Refusal, max_body: int = MAX_BODY) -> None:
    """Answer ``no`` and end the connection, dropping a body of at most ``max_body`` bytes first."""
    handler.close_connection = True
    try:
        length = body_length(handler.headers, max_body)
    except BadRequest:
        length = 0  # ambiguous, chunked or too big: nothing bounded to drop, the connection ends
    if length:
        with contextlib.suppress(OSError):
            handler.rfile.read(length)
    data = json.dumps({"value": {"error": "refused", "message": no.message}}).encode("utf-8")
    with contextlib.suppress(OSError):
        handler.send_response(no.status)
        handler.send_header("Content-Type", "application/json;charset=UTF-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(data)
