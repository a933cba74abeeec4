"""Issue 34, part 1: the inspector must not obey a request hidden in one it refused, nor any request
that lacks the token its page was served with.

Before the fix a refused POST (wrong Origin 403, wrong content type 415, wrong Host 421, unknown
path 404) was answered before its body was read and the kept-alive connection stayed open: the body
was then read as the next request, which carried its own Host and no Origin, passed every check and
typed into the device (and into the ``--record`` flow). A page on another origin did it 27 times
through Chromium's ``fetch(..., {mode: 'no-cors'})``; both reproductions are here, the second in a
real headless Chromium.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from amc.connect.simulated import SimDriver
from amc.inspector import FlowDraft, InspectorServer, InspectorSession
from amc.inspector.server import TOKEN_HEADER

from tests.browser import chromium
from tests.hostile.counting import CountingSim

pytestmark = pytest.mark.timeout(90)

START = [{"launch_app": {"app_id": "com.example.amc.demo"}}]  # what a recording starts with


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[InspectorServer, CountingSim, FlowDraft]]:
    driver = CountingSim("android")
    driver.launch_app("com.example.amc.demo")
    driver.acted.clear()
    draft = FlowDraft("com.example.amc.demo", platform="android", name="rec", path=tmp_path / "rec.yaml")
    with InspectorServer(InspectorSession(driver, draft=draft)) as server:
        yield server, driver, draft


def _port(server: InspectorServer) -> int:
    return int(server.url.rsplit(":", 1)[1].strip("/"))


def _version(server: InspectorServer) -> int:
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=5) as conn:
        conn.sendall(
            f"GET /api/screen HTTP/1.1\r\nHost: 127.0.0.1:{_port(server)}\r\n"
            f"{TOKEN_HEADER}: {server.token}\r\nConnection: close\r\n\r\n".encode()
        )
        reply = _read_until_closed(conn)
    return int(json.loads(reply.split(b"\r\n\r\n", 1)[1])["version"])


def _read_until_closed(conn: socket.socket) -> bytes:
    data = b""
    while len(data) < 4 * 1024 * 1024:
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


def _hidden(port: int, version: int, *, token: str | None) -> bytes:
    """A whole request to type into the device, as the body of the request that carries it."""
    body = json.dumps({"v": version, "text": "PWNED"}).encode()
    extra = f"{TOKEN_HEADER}: {token}\r\n" if token else ""
    return (
        f"POST /api/type HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


# Each refusal the issue names, as the request that carries the hidden one (its body).
JSON = {"Content-Type": "application/json"}
REFUSALS = {
    "wrong origin (403)": ("POST /api/type", {"Origin": "http://evil.example", **JSON}),
    "wrong content type (415)": ("POST /api/type", {"Content-Type": "text/plain"}),
    "wrong Host (421)": ("POST /api/type", {"Host": "evil.example:80", **JSON}),
    "unknown path (404)": ("POST /api/nothing", JSON),
    "method not allowed (405)": ("PUT /api/type", JSON),
    "no token (403)": ("POST /api/type", {**JSON, TOKEN_HEADER: ""}),
    "a GET with a body": ("GET /api/screen", {}),
}


@pytest.mark.parametrize("name", list(REFUSALS))
@pytest.mark.parametrize("with_token", [False, True], ids=["hidden without token", "hidden with token"])
def test_a_request_hidden_in_a_refused_body_is_never_run(
    served: tuple[InspectorServer, CountingSim, FlowDraft], name: str, with_token: bool
) -> None:
    server, driver, draft = served
    port = _port(server)
    line, headers = REFUSALS[name]
    headers = {"Host": f"127.0.0.1:{port}", TOKEN_HEADER: server.token, **headers}
    hidden = _hidden(port, _version(server), token=server.token if with_token else None)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items() if v)
    with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
        conn.sendall(f"{line} HTTP/1.1\r\n{head}Content-Length: {len(hidden)}\r\n\r\n".encode() + hidden)
        reply = _read_until_closed(conn)
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)
    if name == "a GET with a body":
        assert statuses == [b"200"]  # the GET is served; its body is not a request
    else:
        assert len(statuses) == 1 and statuses[0] != b"200", reply[:300]
        assert b"Connection: close" in reply
    assert driver.acted == [] and draft.steps == START  # the device and the recording are untouched


def test_every_api_request_needs_the_token_of_the_page(
    served: tuple[InspectorServer, CountingSim, FlowDraft],
) -> None:
    server, driver, draft = served
    port = _port(server)
    version = _version(server)
    for token in (None, "", "x" * 43, server.token[:-1] + ("A" if server.token[-1] != "A" else "B")):
        for method, path, body in (
            ("GET", "/api/screen", b""),
            ("GET", f"/api/screen.png?v={version}", b""),
            ("POST", "/api/type", json.dumps({"v": version, "text": "x"}).encode()),
            ("POST", "/api/back", json.dumps({"v": version}).encode()),
        ):
            extra = f"{TOKEN_HEADER}: {token}\r\n" if token is not None else ""
            with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
                conn.sendall(
                    f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    f"Content-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                reply = _read_until_closed(conn)
            assert reply.startswith(b"HTTP/1.1 403 "), (token, path, reply[:200])
            assert b'"MissingToken"' in reply or b'"WrongToken"' in reply
    # The page carries the token, and only the page: a rebinding name cannot load it.
    with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
        conn.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        assert f'content="{server.token}"'.encode() in _read_until_closed(conn)
    with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
        conn.sendall(f"GET / HTTP/1.1\r\nHost: rebound.example:{port}\r\n\r\n".encode())
        page = _read_until_closed(conn)
        assert page.startswith(b"HTTP/1.1 421 ") and server.token.encode() not in page
    assert driver.acted == [] and draft.steps == START


def test_each_server_start_makes_a_new_token() -> None:
    session = InspectorSession(SimDriver("ios"))
    with InspectorServer(session) as first:
        one = first.token
    with InspectorServer(session) as second:
        assert second.token != one and len(second.token) >= 40


class _Attacker(BaseHTTPRequestHandler):
    """Serves one page, on another origin, that posts hidden requests to the inspector."""

    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_a_page_on_another_origin_cannot_act_through_a_browser(
    served: tuple[InspectorServer, CountingSim, FlowDraft], tmp_path: Path
) -> None:
    """The issue's reproduction in a real Chromium: 27 no-cors posts, each hiding a typing request
    (with the Host the inspector accepts and no Origin), sent from http://127.0.0.1:OTHER/."""
    server, driver, draft = served
    port = _port(server)
    hidden = _hidden(port, _version(server), token=None).decode()
    script = f"""
      const target = "http://127.0.0.1:{port}";
      const hidden = {json.dumps(hidden)};
      const kinds = [
        ["/api/type", "text/plain"], ["/api/nothing", "text/plain"], ["/api/type", "application/json"]];
      (async () => {{
        for (let i = 0; i < 27; i++) {{
          const [path, type] = kinds[i % kinds.length];
          try {{
            await fetch(target + path, {{method: "POST", mode: "no-cors", headers: {{"Content-Type": type}},
                                        body: hidden}});
          }} catch (e) {{}}
        }}
        document.title = "sent";
      }})();
    """
    _Attacker.page = f"<!DOCTYPE html><title>waiting</title><script>{script}</script>".encode()
    attacker = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    thread = threading.Thread(target=attacker.serve_forever, daemon=True)
    thread.start()
    try:
        with chromium(tmp_path / "profile") as browser:
            from selenium.webdriver.support.ui import WebDriverWait

            browser.get(f"http://127.0.0.1:{attacker.server_address[1]}/")
            WebDriverWait(browser, 30).until(lambda b: b.title == "sent", message="the page's posts")
    finally:
        attacker.shutdown()
        attacker.server_close()
    assert driver.acted == [] and draft.steps == START
