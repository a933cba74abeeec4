"""Every HTTP server of the project refuses ambiguous framing and answers every malformed parameter
with a 4xx JSON error (issue 40, item 7).

The servers (``grep -rn BaseHTTPRequestHandler``, and the parser of ``sim/u2_rpc.py``): the
inspector (``inspector/server.py``), the simulated device's WebDriverAgent and Appium faces
(``sim/http_guard.py``), and its uiautomator2 server (``sim/u2_rpc.py``, HTTP over an adb
``tcp:9008`` stream). Before, the inspector served a request with two ``Content-Length``
headers by the first, and 500 query parameters or a 4,400-digit number were ``500 InternalError
(unexpected ValueError)``; the faces took the first length too (the uiautomator2 server the last),
and a body nested 100,000 deep was a traceback and a closed connection. Each request here is raw
bytes on a socket to 127.0.0.1, and none may reach the device.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.inspector import FlowDraft, InspectorServer, InspectorSession
from amc.inspector.server import TOKEN_HEADER
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.u2_rpc import U2Server
from amc.sim.wda_face import WdaFace

from tests.hostile.counting import CountingSim

pytestmark = pytest.mark.timeout(90)

BIG_NUMBER = "1" * 4400
DEEP = b"[" * 100_000 + b"]" * 100_000


def _exchange(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
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


def _statuses(reply: bytes) -> list[int]:
    return [int(s) for s in re.findall(rb"HTTP/1\.[01] (\d{3}) ", reply)]


def _json_body(reply: bytes) -> object:
    return json.loads(reply.split(b"\r\n\r\n", 1)[1])


@pytest.fixture
def inspector(tmp_path: Path) -> Iterator[tuple[InspectorServer, CountingSim]]:
    driver = CountingSim("android")
    driver.launch_app("com.example.amc.demo")
    driver.acted.clear()
    draft = FlowDraft("com.example.amc.demo", platform="android", name="rec", path=tmp_path / "rec.yaml")
    with InspectorServer(InspectorSession(driver, draft=draft)) as server:
        yield server, driver


def _inspector_port(server: InspectorServer) -> int:
    return int(server.url.rsplit(":", 1)[1].strip("/"))


def _inspector(server: InspectorServer, line: str, body: bytes = b"", extra: str = "") -> bytes:
    port = _inspector_port(server)
    head = (
        f"{line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{TOKEN_HEADER}: {server.token}\r\n"
        f"Content-Type: application/json\r\n{extra}"
    )
    if "Content-Length" not in extra and "Transfer-Encoding" not in extra:
        head += f"Content-Length: {len(body)}\r\n"
    return _exchange(port, (head + "Connection: close\r\n\r\n").encode() + body)


def _hidden_type(port: int, token: str) -> bytes:
    body = b'{"v": 1, "text": "PWNED"}'
    return (
        f"POST /api/type HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{TOKEN_HEADER}: {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def test_the_inspector_refuses_two_content_lengths(inspector: tuple[InspectorServer, CountingSim]) -> None:
    server, driver = inspector
    hidden = _hidden_type(_inspector_port(server), server.token)
    extra = f"Content-Length: 2\r\nContent-Length: {2 + len(hidden)}\r\n"
    reply = _inspector(server, "POST /api/refresh", b"{}" + hidden, extra)
    assert _statuses(reply) == [400], reply[:300]
    assert _json_body(reply) == {
        "error": {
            "kind": "BadRequest",
            "message": "the request has more than one Content-Length header (ambiguous framing)",
            "hint": None,
        }
    }
    assert driver.acted == []


def test_the_inspector_refuses_a_length_beside_chunks(inspector: tuple[InspectorServer, CountingSim]) -> None:
    server, driver = inspector
    extra = "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"
    reply = _inspector(server, "POST /api/refresh", b"{}", extra)
    assert _statuses(reply) == [400] and b"ambiguous framing" in reply
    assert driver.acted == []


@pytest.mark.parametrize(
    ("line", "body", "says"),
    [
        ("GET /api/element?" + "&".join(f"p{n}=1" for n in range(500)), b"", "more than 8 fields"),
        (f"GET /api/element?v={BIG_NUMBER}&ref=1", b"", "must be a whole number"),
        ("POST /api/tap", f'{{"v": {BIG_NUMBER}, "ref": 1}}'.encode(), "4,400 characters; the limit is 40"),
        ("POST /api/tap", b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
        ("GET http://[/api/screen", b"", "not a URL path"),
    ],
    ids=[
        "500 query parameters",
        "a 4,400-digit query number",
        "a 4,400-digit JSON number",
        "deep JSON",
        "http://[",
    ],
)
def test_the_inspector_answers_a_malformed_parameter_with_a_4xx_json_error(
    inspector: tuple[InspectorServer, CountingSim], line: str, body: bytes, says: str
) -> None:
    server, driver = inspector
    reply = _inspector(server, line, body)
    (status,) = _statuses(reply)
    assert 400 <= status < 500, reply[:300]
    error = _json_body(reply)
    assert isinstance(error, dict) and says in error["error"]["message"], error
    assert driver.acted == []


@pytest.fixture
def wda() -> Iterator[WdaFace]:
    with WdaFace(SimDevice("ios")) as face:
        yield face


@pytest.fixture
def appium() -> Iterator[AppiumFace]:
    with AppiumFace(SimDevice("android")) as face:
        yield face


def _face_port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


@pytest.mark.parametrize("which", ["wda", "appium"])
@pytest.mark.parametrize(
    "framing",
    ["Content-Length: 2\r\nContent-Length: {n}\r\n", "Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n"],
    ids=["two lengths", "a length and chunks"],
)
def test_the_faces_refuse_ambiguous_framing_and_never_serve_the_hidden_request(
    which: str, framing: str, request: pytest.FixtureRequest
) -> None:
    face: WdaFace | AppiumFace = request.getfixturevalue(which)
    port = _face_port(face.url)
    hidden = (
        f"POST /wda/homescreen HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 2\r\n\r\n{{}}"
    ).encode()
    head = f"POST /session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n" + framing.format(n=2 + len(hidden))
    reply = _exchange(port, head.encode() + b"\r\n{}" + hidden)
    assert _statuses(reply) == [400], reply[:300]
    assert b"ambiguous framing" in reply and not reply.endswith(b"<still open>")
    assert face.count() == 0


@pytest.mark.parametrize("which", ["wda", "appium"])
@pytest.mark.parametrize(
    ("line", "body"),
    [
        ("POST /session", f'{{"capabilities": {BIG_NUMBER}}}'.encode()),
        ("POST /session", DEEP),
        ("GET http://[/status", b""),
    ],
    ids=["a 4,400-digit number", "JSON nested 100,000 deep", "http://["],
)
def test_the_faces_answer_a_malformed_request_with_a_4xx_json_error(
    which: str, line: str, body: bytes, request: pytest.FixtureRequest
) -> None:
    face: WdaFace | AppiumFace = request.getfixturevalue(which)
    port = _face_port(face.url)
    head = (
        f"{line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    reply = _exchange(port, head.encode() + body)
    (status,) = _statuses(reply)
    assert 400 <= status < 500, reply[:300]
    error = _json_body(reply)
    assert isinstance(error, dict) and error["value"]["error"] == "invalid argument", error


def _u2(raw: bytes) -> bytes:
    server = U2Server(SimDevice("android"), faults=FaultInjector())
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(raw)
        theirs.shutdown(socket.SHUT_WR)
        server.serve(ours)
        ours.shutdown(socket.SHUT_WR)
        return theirs.recv(1 << 20)


def test_the_uiautomator2_server_refuses_ambiguous_framing() -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": []}'
    for framing in (
        f"Content-Length: 2\r\nContent-Length: {len(body)}",
        f"Content-Length: {len(body)}\r\nTransfer-Encoding: chunked",
    ):
        reply = _u2(f"POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1\r\n{framing}\r\n\r\n".encode() + body)
        assert _statuses(reply) == [400], reply[:300]
        answer = _json_body(reply)
        assert isinstance(answer, dict) and "ambiguous framing" in answer["error"]["message"]


@pytest.mark.parametrize("body", [DEEP, b"[1, 2]", f'{{"method": "x", "id": {BIG_NUMBER}}}'.encode()])
def test_the_uiautomator2_server_answers_a_malformed_body_with_a_json_rpc_error(body: bytes) -> None:
    reply = _u2(f"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    assert _statuses(reply) == [200]  # JSON-RPC errors travel in a 200, as the real server sends them
    answer = _json_body(reply)
    assert isinstance(answer, dict) and answer["error"]["code"] == -32700
