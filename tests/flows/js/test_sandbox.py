"""A script reaches nothing of the host: no modules, files, processes, environment, timers or network.
Only what the caller hands in (variables, the copied text, an HTTP handler) is there."""

from __future__ import annotations

import socket

import pytest
from amc.core.errors import ScriptError, ScriptSyntaxError
from amc.flows.js import ScriptContext

from .conftest import Backend

HOST_NAMES = [
    "require", "process", "module", "exports", "std", "os", "fetch", "XMLHttpRequest", "WebSocket",
    "setTimeout", "setInterval", "python", "pm", "Deno", "Bun", "load", "read", "readFile", "scriptArgs",
    "print", "WebAssembly", "__amc_http", "window", "document", "navigator", "importScripts",
]  # fmt: skip


@pytest.mark.parametrize("name", HOST_NAMES)
def test_no_host_object_is_there(js: ScriptContext, name: str) -> None:
    assert js.evaluate(f"typeof {name}").text == "undefined"


@pytest.mark.parametrize("module", ["fs", "os", "std", "child_process", "./secret.js", "file:///etc/passwd"])
def test_no_module_can_be_imported(js: ScriptContext, module: str) -> None:
    """A script is no module (``import`` is a syntax error), and ``import()`` gives a promise that
    no module ever comes out of."""
    with pytest.raises(ScriptSyntaxError):
        js.run_script(f"import x from '{module}'", filename="a.js")
    started = js.evaluate(f"import('{module}').then(m => output.module = m, e => output.refused = String(e))")
    assert started.text == "[object Promise]"
    assert js.evaluate("typeof output.module").text == "undefined"


def test_the_host_environment_is_not_visible(js: ScriptContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMC_TEST_SECRET", "tr0ub4dor-in-the-environment")
    found = js.evaluate(
        """
        const seen = new Set(), hits = [];
        const walk = (value, depth) => {
          const inside = value !== null && (typeof value === 'object' || typeof value === 'function');
          if (!inside || seen.has(value) || depth > 6) {
            if (typeof value === 'string' && value.includes('tr0ub4dor')) hits.push(value);
            return;
          }
          seen.add(value);
          for (const key of Reflect.ownKeys(value)) {
            if (String(key).includes('AMC_TEST_SECRET')) hits.push(String(key));
            let inner;
            try { inner = value[key]; } catch (e) { continue; }
            walk(inner, depth + 1);
          }
        };
        walk(globalThis, 0);
        hits
        """
    )
    assert found.value == []
    assert js.evaluate("typeof AMC_TEST_SECRET").text == "undefined"


def test_the_engine_opens_no_socket(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every HTTP call goes to the caller's handler: with sockets made impossible, the script's
    calls still reach the handler and get its answers."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "__init__", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    with ScriptContext(platform="android", http=backend) as js:
        result = js.run_script(
            "const r = http.post('http://127.0.0.1:8080/users', {body: '{}'});\n"
            "r.status + ' ' + json(r.body).message",
            filename="create.js",
        )
    assert result.text == "200 ok"
    assert [(r.method, r.url) for r in backend.requests] == [("POST", "http://127.0.0.1:8080/users")]


def test_without_a_handler_http_is_refused() -> None:
    with (
        ScriptContext(platform="android") as js,
        pytest.raises(ScriptError, match=r"http\.get: HTTP is not allowed in this run"),
    ):
        js.run_script("http.get('http://127.0.0.1/')", filename="a.js")


def test_the_language_cannot_reach_the_host_either(js: ScriptContext) -> None:
    """``Function``, ``eval`` and prototypes lead back to the same sandboxed global, nothing more."""
    source = (
        "[Function('return typeof require')(), (0, eval)('typeof process'),"
        " typeof ({}).constructor.constructor('return this')().std]"
    )
    assert js.evaluate(source).value == ["undefined", "undefined", "undefined"]
