"""A secret is a secret whatever its source, and in any mixture of encodings (issue 40, items 2 and 3).

Before: ``${PASSWORD}`` / ``${GITHUB_TOKEN}`` read from the process environment were shown in clear
(console, timeline, report, page sources) where the same names given with ``--env`` were hidden,
and a ``runScript`` ``env:`` handed them on under any name; the password of a ``--device`` URL was
written into the header comment of flows saved by MCP ``save_flow`` and recorded by the inspector;
a token a script put in ``output`` reached ``run.log`` (the line of an HTTP call carrying it)
before it was known as a secret; and a typed secret with non-ASCII letters and a TAB was found in
no page-source file, which wrote the TAB as ``&#9;`` and the rest in clear.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver
from amc.inspector import FlowDraft
from amc.storage.redaction import Redactor

from tests.flows.helpers import amc, write_flow
from tests.hostile.test_secret_sinks import _everything, leaks

pytestmark = pytest.mark.timeout(90)

ENV_TOKEN = "ghp-EnvT0ken-77881"
ENV_PASSWORD = "Env-Passw0rd-55120"


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _run(tmp_path: Path, text: str, *argv: str, files: dict[str, str] | None = None) -> dict[str, str]:
    for name, body in (files or {}).items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    flow = write_flow(tmp_path, text)
    out = tmp_path / "runs"
    result = amc("run", flow, "--device", "sim:android", "--out", out, "--screenshots", "always", *argv)
    assert "Traceback" not in result.err
    return _everything(out, ("stdout", result.out), ("stderr", result.err))


MAESTRO = """
appId: com.example.amc.demo
---
- launchApp
- tapOn: {id: username}
- inputText: ${GITHUB_TOKEN}
- tapOn: {id: password}
- inputText: ${PASSWORD}
- runScript:
    file: show.js
    env:
      SHOWN: ${GITHUB_TOKEN}
- evalScript: ${console.log('as typed', maestro.platform)}
- assertVisible: not on this screen
"""
OWN = """
name: own
steps:
  - launch_app: com.example.amc.demo
  - type_text: {text: "${PASSWORD}", target: {id: username}}
  - assert_visible: {text: "not on this screen", timeout: 0}
"""


def test_credential_variables_from_the_process_environment_are_hidden_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", ENV_TOKEN)
    monkeypatch.setenv("PASSWORD", ENV_PASSWORD)
    texts = _run(tmp_path, MAESTRO, files={"show.js": "console.log('shown', SHOWN)"})
    assert "***" in texts["stdout"]
    assert any(name.endswith(".xml") for name in texts), sorted(texts)  # page sources were written
    assert leaks(ENV_TOKEN, texts) == [] and leaks(ENV_PASSWORD, texts) == []


def test_the_same_holds_in_the_harness_own_dialect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PASSWORD", ENV_PASSWORD)
    texts = _run(tmp_path, OWN)
    assert leaks(ENV_PASSWORD, texts) == []


class _Api(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ApiHandler)


class _ApiHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def api() -> Iterator[str]:
    server = _Api()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_token_a_script_puts_in_output_is_hidden_in_run_log_from_its_first_line(
    tmp_path: Path, api: str
) -> None:
    script = (
        "const t = ['sess', 'ion-Tok', '3n-40917'].join('');\n"
        "output.authToken = t;\n"
        f"http.get('{api}/ping?session=' + t);\n"
    )
    flow = "appId: com.example.amc.demo\n---\n- launchApp\n- runScript: login.js\n"
    texts = _run(tmp_path, flow, files={"login.js": script})
    logs = [text for name, text in texts.items() if name.endswith("run.log")]
    assert logs and any("/ping?session=***" in text for text in logs), logs
    assert leaks("session-Tok3n-40917", texts) == []


DEVICE_PASSWORD = "Dev1ce-Pw-30303"
DEVICE = f"appium:http://qa:{DEVICE_PASSWORD}@127.0.0.1:9/wd/hub"


def test_a_flow_saved_by_mcp_carries_no_password_of_the_device_url(tmp_path: Path) -> None:
    service = DeviceService(SimDriver("android"), spec=DEVICE, run_dir=tmp_path / "run", flow_root=tmp_path)
    service.start()
    try:
        assert not service.call("launch_app", {"app_id": "com.example.amc.demo"}).is_error
        saved = service.call("save_flow", {"path": str(tmp_path / "saved.yaml")})
        assert not saved.is_error, saved.text
    finally:
        service.close()
    text = (tmp_path / "saved.yaml").read_text(encoding="utf-8")
    assert "Saved by the MCP tool save_flow" in text and "http://qa:***@127.0.0.1:9/wd/hub" in text
    assert DEVICE_PASSWORD not in text


@pytest.mark.parametrize("format", ["amc", "maestro"])
def test_a_flow_the_inspector_records_carries_no_password_of_the_device_url(
    tmp_path: Path, format: str
) -> None:
    draft = FlowDraft(
        "com.example.amc.demo",
        platform="android",
        name="rec",
        path=tmp_path / "rec.yaml",
        device=f"{DEVICE} (emulator-5554)",
        format=format,
    )
    draft.save()
    text = (tmp_path / "rec.yaml").read_text(encoding="utf-8")
    assert "Recorded with `amc inspect --serve --record` on appium:http://qa:***@" in text
    assert DEVICE_PASSWORD not in text


MIXED = "Pässwört\tZugang-8842"  # non-ASCII letters and a TAB


@pytest.mark.parametrize(
    "written",
    [
        "Pässwört&#9;Zugang-8842",  # lxml's attribute: the TAB as a reference, the rest in clear
        "P&#228;sswört&#x9;Zugang-8842",  # some letters escaped too, in either base
        "P&#xE4;ssw&#246;rt&#009;Zugang-8842",
        "Pässw\\u00f6rt\\tZugang-8842",  # JSON, half escaped
    ],
)
def test_a_secret_is_found_in_any_mixture_of_encodings(written: str) -> None:
    assert Redactor([MIXED]).text(f'<node text="{written}" />') == '<node text="***" />'


def test_a_typed_secret_with_a_tab_and_umlauts_leaks_into_no_page_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET", MIXED)
    flow = """
    name: mixed
    steps:
      - launch_app: com.example.amc.demo
      - type_text: {text: "${SECRET}", target: {id: username}, secret: true}
      - assert_visible: {text: "not on this screen", timeout: 0}
    """
    texts = _run(tmp_path, flow)
    sources = {name: text for name, text in texts.items() if name.endswith(".xml")}
    assert sources, sorted(texts)
    for text in sources.values():
        assert "Zugang-8842" not in text, text[:2000]
    assert leaks(MIXED, texts) == []
