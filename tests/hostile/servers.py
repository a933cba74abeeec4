"""Hostile servers on 127.0.0.1: a device server or a model server whose reply never ends, trickles,
or is huge, in front of the simulated device's real faces.

:class:`HttpProxy` stands in front of an HTTP face (WebDriverAgent, Appium) or alone (a model
server): requests whose path matches ``pattern`` get the hostile reply, the others are passed to the
face. :class:`AdbProxy` stands in front of the adb face: it passes the adb protocol through, and
once the client's bytes hold ``trigger`` (a uiautomator2 RPC's method name, a shell command) it
answers that request itself, hostilely (after ``OKAY`` for an adb service). Each counts the bytes it
sent hostilely (``sent``), which shows how much of a reply the client read before it stopped; and
each stops misbehaving when the test ends (at most :data:`LIMIT` seconds), so no thread outlives it.
"""

from __future__ import annotations

import http.client
import re
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["HOW", "LIMIT", "AdbProxy", "HttpProxy", "hostile_reply"]

LIMIT = 120.0  # the longest any hostile reply goes on (the tests end long before)
HUGE = 200 * 1024 * 1024
HOW = ("trickle", "chunks forever", "huge")


class _Count:
    def __init__(self) -> None:
        self.sent = 0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.sent += n


def hostile_reply(
    conn: socket.socket, how: str, count: _Count, stop: threading.Event, *, http: bool = True
) -> None:
    """Write one hostile reply on ``conn`` until the client goes away, ``stop`` is set or
    :data:`LIMIT` passes: ``trickle`` (a byte every 0.25 s of a body that says it is 10 MB),
    ``chunks forever`` (a small chunk every 0.05 s, never the last one) or ``huge`` (200 MB as fast as
    the client reads). With ``http`` False the body goes out bare (an adb shell's output)."""
    end = time.monotonic() + LIMIT
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json;charset=UTF-8\r\n"
    try:
        if how == "trickle":
            if http:
                conn.sendall(head + b"Content-Length: 10000000\r\n\r\n")
            while not stop.is_set() and time.monotonic() < end:
                conn.sendall(b"x")
                count.add(1)
                stop.wait(0.25)
        elif how == "chunks forever":
            if http:
                conn.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"40\r\n" + b"y" * 64 + b"\r\n" if http else b"y" * 64
            while not stop.is_set() and time.monotonic() < end:
                conn.sendall(chunk)
                count.add(len(chunk))
                stop.wait(0.05)
        else:
            if http:
                conn.sendall(head + f"Content-Length: {HUGE}\r\n\r\n".encode())
            block = b"z" * (1024 * 1024)
            while count.sent < HUGE and not stop.is_set() and time.monotonic() < end:
                conn.sendall(block)
                count.add(len(block))
    except OSError:
        return  # the client went away: what a bounded client does


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class HttpProxy:
    """See the module docstring. ``target`` None: every request gets the hostile reply."""

    def __init__(self, how: str, pattern: str = ".*", target: str | None = None) -> None:
        self.how, self.pattern, self.target = how, re.compile(pattern), target
        self.count = _Count()
        self.stop = threading.Event()
        self.hit = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if proxy.target is None or proxy.pattern.search(self.path):
                    proxy.hit += 1
                    hostile_reply(self.connection, proxy.how, proxy.count, proxy.stop)
                    self.close_connection = True
                    return
                host, port = proxy.target.split("//", 1)[1].split(":")
                upstream = http.client.HTTPConnection(host, int(port), timeout=30)
                try:
                    headers = {
                        k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")
                    }
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    reply = upstream.getresponse()
                    data = reply.read()
                finally:
                    upstream.close()
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.getheader("Content-Type") or "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PUT = _serve

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def sent(self) -> int:
        return self.count.sent

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> HttpProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()


class AdbProxy:
    """See the module docstring. ``http`` says whether the triggered request is HTTP (a uiautomator2
    RPC on a ``tcp:9008`` stream) or an adb service (a shell command: ``OKAY``, then its output)."""

    def __init__(self, how: str, trigger: bytes, target_port: int, *, http: bool) -> None:
        self.how, self.trigger, self.target_port, self.http = how, trigger, target_port, http
        self.count = _Count()
        self.stop = threading.Event()
        self.hit = 0
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy._pump(self.request)

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def sent(self) -> int:
        return self.count.sent

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def _pump(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target_port))
        hijacked = threading.Event()

        def down() -> None:  # the face's answers to the client, until the request is taken over
            try:
                while not hijacked.is_set():
                    data = upstream.recv(65536)
                    if hijacked.is_set():
                        return
                    if not data:  # the face ended the stream (a shell's output): so do we
                        client.shutdown(socket.SHUT_WR)
                        return
                    client.sendall(data)
            except OSError:
                return

        threading.Thread(target=down, daemon=True).start()
        seen = b""
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    return
                seen = (seen + data)[-4096:]
                if self.trigger in seen:
                    hijacked.set()
                    self.hit += 1
                    if not self.http:
                        client.sendall(b"OKAY")
                    hostile_reply(client, self.how, self.count, self.stop, http=self.http)
                    return
                upstream.sendall(data)
        except OSError:
            return
        finally:
            upstream.close()

    def __enter__(self) -> AdbProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()
