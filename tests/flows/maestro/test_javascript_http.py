"""A flow's scripts reach the team's backend through `http` (a small server on 127.0.0.1 that the
test starts): requests go where the flow says, bounded in time and size, logged with their secrets
hidden; a flow an agent runs over MCP (the MCP SDK's own client) reaches no network unless the
server was started with `--allow-http`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from amc import connect as connect_module
from amc.agent.mcp_server import build_server
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver
from amc.flows.js import HttpRequest
from amc.flows.js.client import HttpClient
from amc.flows.js.http import HttpRefused
from amc.storage.timeline import read_timeline
from mcp import Client
from mcp_types import TextContent

from ..helpers import amc, write_flow

TOKEN = "k3y-0f-the-team"  # the flow's API token: a secret variable (named like one)
SESSION = "srv-tok-998877"  # what the backend answers: under a key named like a credential
QUERY_KEY = "q-secret-555"  # a credential in a URL's query
BIG = 5 * 1024 * 1024  # over the 4 MiB a response body may hold


class Backend(ThreadingHTTPServer):
    """The team's test backend: creates users, answers too much, too slowly, or elsewhere."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Backend

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, body: bytes, kind: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.seen.append({"method": "GET", "path": self.path})
        if self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Length", str(BIG))
            self.end_headers()
            for _ in range(BIG // 65536):
                self.wfile.write(b"x" * 65536)
        elif self.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        elif self.path == "/moved":
            self._answer(302, b"", Location="/ping?from=moved")
        else:
            self._answer(200, b'{"pong": true}')

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.server.seen.append(
            {"method": "POST", "path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        user = {"id": 7, "email": "qa@example.com", "sessionToken": SESSION}
        self._answer(201, json.dumps(user).encode())


@pytest.fixture
def backend() -> Iterator[Backend]:
    server = Backend()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


CREATE_USER = f"""
const response = http.post(API + '/users', {{
  headers: {{Authorization: 'Bearer ' + API_TOKEN, 'Content-Type': 'application/json'}},
  body: JSON.stringify({{name: 'qa'}}),
}});
if (!response.ok) throw new Error('the backend answered ' + response.status);
output.user = json(response.body);
console.log('created user', output.user.id, response.headers['content-type']);
http.get(API + '/ping?api_key={QUERY_KEY}');
"""
FLOW = f"""
appId: com.example.amc.demo
env:
  API: ${{BASE}}
  API_TOKEN: {TOKEN}
---
- runScript: create_user.js
- launchApp
- tapOn: {{id: username}}
- inputText: ${{output.user.email}}
- evalScript: >-
    ${{output.big = (() => {{ try {{ http.get(API + '/big') }}
    catch (e) {{ return e.message }} }})()}}
- assertTrue: ${{output.big.indexOf('cap of 4,194,304 bytes') >= 0 && http.get(API + '/moved').ok}}
"""


def test_a_flow_sets_up_its_data_through_the_backend_bounded_and_logged_without_secrets(
    backend: Backend, tmp_path: Path
) -> None:
    (tmp_path / "create_user.js").write_text(CREATE_USER)
    flow = write_flow(tmp_path, FLOW)
    result = amc(
        "run",
        flow,
        "--device",
        "sim:android?timing=instant",
        "--out",
        tmp_path / "runs",
        "--env",
        f"BASE={backend.url}",
    )
    assert result.code == 0, result.out + result.err
    posted = backend.seen[0]
    assert posted == {"method": "POST", "path": "/users", "auth": f"Bearer {TOKEN}", "body": '{"name":"qa"}'}
    assert [s["path"] for s in backend.seen[1:]] == [
        f"/ping?api_key={QUERY_KEY}",
        "/big",
        "/moved",
        "/ping?from=moved",
    ]
    run_dir = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    steps = list(read_timeline(run_dir).steps)
    created = steps[0]["result"]["output"]
    assert created["logs"] == ["created user 7 application/json"]
    assert created["http"][0].startswith(f"POST {backend.url}/users -> 201, 70 bytes, ")
    assert created["http"][1].startswith(f"GET {backend.url}/ping?api_key=*** -> 200")
    typed = next(s for s in steps if s["action"] == "type_text")
    assert typed["step"]["args"]["text"] == "qa@example.com"
    assert steps[-1]["world"]["variables"]["output.user"] == "***"  # it holds a session token
    assert "the reply is larger than the cap of 4,194,304 bytes" in json.dumps(steps[-2])
    log = (run_dir / "run.log").read_text()
    assert f"http POST {backend.url}/users -> 201" in log
    for path in run_dir.iterdir():
        if path.is_file():
            text = path.read_text(errors="replace")
            for secret in (TOKEN, SESSION, QUERY_KEY):
                assert secret not in text, (secret, path.name)


def test_a_reply_must_arrive_whole_within_its_time_and_a_redirect_stays_an_http_one(backend: Backend) -> None:
    client = HttpClient()
    with pytest.raises(HttpRefused, match=r"no whole reply within 0\.5 s"):
        client(HttpRequest("GET", f"{backend.url}/trickle", timeout=0.5))  # 100 bytes over 5 s
    with pytest.raises(HttpRefused, match="ConnectionRefusedError"):
        client(HttpRequest("GET", "http://127.0.0.1:9/", timeout=1.0))
    moved = client(HttpRequest("GET", f"{backend.url}/moved", timeout=2.0))
    assert moved.status == 200 and moved.body == '{"pong": true}'


def _run_flow_over_mcp(tmp_path: Path, backend: Backend, **options: Any) -> tuple[Any, str]:
    flows = tmp_path / "flows"
    flows.mkdir(parents=True, exist_ok=True)
    (flows / "create_user.js").write_text(CREATE_USER)
    write_flow(
        flows,
        f"appId: com.example.amc.demo\nenv:\n  API: {backend.url}\n  API_TOKEN: {TOKEN}\n---\n"
        "- runScript: create_user.js\n",
        "setup.yaml",
    )
    service = DeviceService(
        SimDriver("android"), spec="sim:android", run_dir=tmp_path / "run", flow_root=flows, **options
    )
    service.start()
    replies: list[Any] = []

    async def main() -> None:
        async with Client(build_server(service)) as client:
            replies.append(await client.call_tool("run_flow", {"path": "setup.yaml"}))

    try:
        anyio.run(main)
    finally:
        service.close()
    first = replies[0].content[0]
    assert isinstance(first, TextContent)
    return replies[0], first.text


def test_a_flow_an_agent_runs_over_mcp_reaches_no_network_unless_the_server_allows_it(
    backend: Backend, tmp_path: Path
) -> None:
    refused, text = _run_flow_over_mcp(tmp_path, backend)
    assert refused.is_error and backend.seen == []
    assert "a flow an agent runs over MCP makes no HTTP request" in text and "--allow-http" in text
    allowed, text = _run_flow_over_mcp(tmp_path / "again", backend, allow_http=True)
    assert not allowed.is_error, text
    assert [s["method"] for s in backend.seen] == ["POST", "GET"]
    assert TOKEN not in text and SESSION not in text
