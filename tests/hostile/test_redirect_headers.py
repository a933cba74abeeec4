"""A flow's ``http`` client drops every credential header on a redirect to another origin (issue 40, item 4).

Before, only ``Authorization`` and ``Cookie`` were dropped, and only when the ``host:port`` text
changed: ``X-Api-Key``, ``X-Auth-Token`` and ``Proxy-Authorization`` went on to another host, and
an ``https://`` to ``http://`` redirect on the same host and port kept ``Authorization``, sent in
clear. Servers here are on 127.0.0.1: :class:`Recorder` speaks TLS and plain HTTP on one port (it
looks at the first byte of each connection), so a scheme change alone can be tried; its
certificate is made by the ``openssl`` command and trusted through ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from amc.flows.js import HttpRequest
from amc.flows.js.client import HttpClient, credential_header

pytestmark = pytest.mark.timeout(60)

CREDENTIALS = {
    "Authorization": "Bearer tok-authorization-1",
    "Proxy-Authorization": "Basic cHJveHk6cHc=",
    "X-Api-Key": "api-key-value-2",
    "X-Auth-Token": "auth-token-value-3",
    "Cookie": "session=cookie-value-4",
}
PLAIN = {"X-Trace": "trace-5", "Accept": "application/json"}


class Recorder(ThreadingHTTPServer):
    """Answers ``/jump?to=URL`` with a 302 there, anything else with 200; keeps each request's
    headers (and whether it came over TLS)."""

    daemon_threads = True

    def __init__(self, context: ssl.SSLContext | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.context = context
        self.seen: list[tuple[str, bool, dict[str, str]]] = []

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def get_request(self) -> tuple[Any, Any]:
        conn, address = self.socket.accept()
        if self.context is not None and conn.recv(1, socket.MSG_PEEK) == b"\x16":  # a TLS hello
            conn = self.context.wrap_socket(conn, server_side=True)
        return conn, address


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        tls = isinstance(self.connection, ssl.SSLSocket)
        self.server.seen.append((parts.path, tls, {k: v for k, v in self.headers.items()}))
        target = parse_qs(parts.query).get("to")
        self.send_response(302 if target else 200)
        if target:
            self.send_header("Location", target[0])
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def _serve(context: ssl.SSLContext | None = None) -> Iterator[Recorder]:
    server = Recorder(context)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def first() -> Iterator[Recorder]:
    yield from _serve()


@pytest.fixture
def second() -> Iterator[Recorder]:
    yield from _serve()


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    """One port, TLS and plain HTTP; its self-signed certificate (for 127.0.0.1) trusted."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make the test server's certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    yield from _serve(context)


def _get(url: str) -> None:
    headers = tuple({**CREDENTIALS, **PLAIN}.items())
    assert HttpClient()(HttpRequest("GET", url, headers=headers, timeout=10)).status == 200


def _names(headers: dict[str, str]) -> set[str]:
    return {name.lower() for name in headers}


def test_every_credential_header_security_md_names_is_one() -> None:
    assert all(credential_header(name) for name in CREDENTIALS)
    assert not any(credential_header(name) for name in PLAIN)


def test_a_redirect_to_another_port_drops_every_credential_header(first: Recorder, second: Recorder) -> None:
    _get(f"http://127.0.0.1:{first.port}/jump?to=http://127.0.0.1:{second.port}/landed")
    ((path, _, headers),) = second.seen
    assert path == "/landed"
    assert _names(headers) & {n.lower() for n in CREDENTIALS} == set(), headers
    assert headers["X-Trace"] == "trace-5"
    ((_, _, sent),) = first.seen
    assert {n.lower() for n in CREDENTIALS} <= _names(sent)  # the first hop had them all


def test_a_redirect_to_another_host_name_drops_them(first: Recorder) -> None:
    _get(f"http://127.0.0.1:{first.port}/jump?to=http://localhost:{first.port}/landed")
    assert _names(first.seen[1][2]) & {n.lower() for n in CREDENTIALS} == set()


def test_a_redirect_from_https_to_http_on_the_same_host_and_port_drops_them(both: Recorder) -> None:
    _get(f"https://127.0.0.1:{both.port}/jump?to=http://127.0.0.1:{both.port}/landed")
    (_, tls_first, _), (path, tls_then, headers) = both.seen
    assert (tls_first, tls_then, path) == (True, False, "/landed")
    assert _names(headers) & {n.lower() for n in CREDENTIALS} == set(), headers


def test_a_redirect_on_the_same_origin_keeps_them(first: Recorder) -> None:
    _get(f"http://127.0.0.1:{first.port}/jump?to=/landed")
    assert {n.lower() for n in CREDENTIALS} <= _names(first.seen[1][2])


def test_once_dropped_they_stay_dropped_when_the_chain_comes_back(first: Recorder, second: Recorder) -> None:
    back = f"http://127.0.0.1:{first.port}/home"
    _get(f"http://127.0.0.1:{first.port}/jump?to=http://127.0.0.1:{second.port}/jump?to={back}")
    assert first.seen[-1][0] == "/home"
    assert _names(first.seen[-1][2]) & {n.lower() for n in CREDENTIALS} == set()
