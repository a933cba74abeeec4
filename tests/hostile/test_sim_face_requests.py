"""Issue 34, part 1 for the simulated device's HTTP faces: test servers, but not a way in.

A web page can send requests to any local port; the WebDriverAgent and Appium faces refuse what a
browser sends (an ``Origin`` or ``Sec-Fetch-*`` header), a ``Host`` that is not a loopback name (DNS
rebinding) and a body over the limit, answer with ``Connection: close``, and never read a refused
body as the next request. The real clients (facebook-wda, Appium-Python-Client) are served as
before: the driver tests run them against these faces.
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
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.http_guard import MAX_BODY
from amc.sim.wda_face import WdaFace

from tests.browser import chromium

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def wda() -> Iterator[WdaFace]:
    with WdaFace(SimDevice("ios")) as face:
        yield face


@pytest.fixture
def appium() -> Iterator[AppiumFace]:
    with AppiumFace(SimDevice("android")) as face:
        yield face


def _exchange(url: str, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", _port(url)), timeout=3) as conn:
        conn.sendall(raw)
        data = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                return data + b"<still open>"
            if not chunk:
                return data
            data += chunk


def _request(line: str, headers: dict[str, str], body: bytes, port: int) -> bytes:
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items()).replace("{port}", str(port))
    return f"{line} HTTP/1.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


JSON = {"Content-Type": "application/json"}
CASES = {
    "a browser's POST (Origin)": ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403),
    "a browser's request (Sec-Fetch-Mode)": ({"Sec-Fetch-Mode": "no-cors"}, 403),
    "a DNS-rebinding name": ({"Host": "rebound.example:{port}", "Content-Type": "application/json"}, 421),
    "chunks beside a Content-Length (ambiguous)": ({"Transfer-Encoding": "chunked"}, 400),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_wda_face_refuses_browsers_and_never_runs_what_their_body_hides(wda: WdaFace, case: str) -> None:
    headers, status = CASES[case]
    port = _port(wda.url)
    hidden = _request("POST /wda/homescreen", {"Host": "127.0.0.1:{port}"}, b"{}", port)
    sent = _request("POST /wda/homescreen", {"Host": "127.0.0.1:{port}", **headers}, hidden, port)
    reply = _exchange(wda.url, sent)
    assert re.findall(rb"HTTP/1\.[01] (\d{3}) ", reply) == [str(status).encode()], reply[:300]
    assert b"Connection: close" in reply and not reply.endswith(b"<still open>")
    assert wda.count() == 0  # nothing was served, the hidden request included


@pytest.mark.parametrize("case", list(CASES))
def test_the_appium_face_refuses_browsers_and_never_runs_what_their_body_hides(
    appium: AppiumFace, case: str
) -> None:
    headers, status = CASES[case]
    port = _port(appium.url)
    hidden = _request("POST /session", {"Host": "127.0.0.1:{port}", **JSON}, b"{}", port)
    sent = _request("POST /session", {"Host": "127.0.0.1:{port}", **headers}, hidden, port)
    reply = _exchange(appium.url, sent)
    assert re.findall(rb"HTTP/1\.[01] (\d{3}) ", reply) == [str(status).encode()], reply[:300]
    assert appium.count() == 0


def test_a_body_over_the_limit_is_refused_from_its_length_and_the_rest_is_never_a_request(
    wda: WdaFace, appium: AppiumFace
) -> None:
    for face in (wda, appium):
        port = _port(face.url)
        home = _request("POST /wda/homescreen", {"Host": "127.0.0.1:{port}", **JSON}, b"{}", port)
        head = f"POST /session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n"
        reply = _exchange(face.url, head.encode() + home)
        assert re.findall(rb"HTTP/1\.[01] (\d{3}) ", reply) == [b"413"]
        assert face.count() == 0


def test_the_real_clients_requests_are_served(wda: WdaFace) -> None:
    import wda as facebook_wda

    client = facebook_wda.Client(wda.url)
    assert client.status()["ready"] is True  # facebook-wda's requests pass the guard
    assert wda.count("status") == 1


class _Attacker(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_a_page_in_a_browser_cannot_press_home_through_the_wda_face(wda: WdaFace, tmp_path: Path) -> None:
    """Chromium's no-cors posts from another origin, plain and with a request hidden in the body."""
    port = int(wda.url.rsplit(":", 1)[1])
    hidden = f"POST /wda/homescreen HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 2\r\n\r\n{{}}"
    script = f"""
      (async () => {{
        for (const body of ["{{}}", {json.dumps(hidden)}]) {{
          for (const path of ["/wda/homescreen", "/status"]) {{
            const headers = {{"Content-Type": "text/plain"}};
            const options = {{method: "POST", mode: "no-cors", headers, body}};
            try {{ await fetch("http://127.0.0.1:{port}" + path, options); }}
            catch (e) {{}}
          }}
        }}
        try {{ await fetch("http://127.0.0.1:{port}/status", {{mode: "no-cors"}}); }} catch (e) {{}}
        document.title = "sent";
      }})();
    """
    _Attacker.page = f"<!DOCTYPE html><title>waiting</title><script>{script}</script>".encode()
    attacker = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        with chromium(tmp_path / "profile") as browser:
            from selenium.webdriver.support.ui import WebDriverWait

            browser.get(f"http://127.0.0.1:{attacker.server_address[1]}/")
            WebDriverWait(browser, 30).until(lambda b: b.title == "sent", message="the page's requests")
    finally:
        attacker.shutdown()
        attacker.server_close()
    assert wda.count() == 0
