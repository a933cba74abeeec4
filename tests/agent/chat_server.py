"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for the LLM planner's tests.

Each ``POST /v1/chat/completions`` is answered with the next scripted :class:`Reply` and its
request body is kept (``requests``), so a test drives the real ``openai`` client and asserts on
what crossed the wire. A reply with a tool call has the shape of a real one: the gpt-4o
non-streaming tool-call response captured in CtwoC/agent_kit ``client/output_style/openai_output.md``
(``id`` ``chatcmpl-…``, ``object`` ``chat.completion``, ``choices[0].message.tool_calls[0]`` with
``id`` ``call_…``, ``type`` ``function`` and ``function.arguments`` as a JSON string,
``finish_reason`` ``tool_calls``, ``usage``). An HTTP error has the body OpenAI's API sends
(``{"error": {"message", "type", "param", "code"}}``, as openai-python's ``APIStatusError`` reads it).
When the script runs out, every further request is answered with ``done``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ChatServer", "Reply", "garbage", "hang", "status", "text", "tool"]

MAX_HANG = 5.0
_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a completion body, or an HTTP status with an error body, or a delay."""

    body: Any = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    n = next(_ids)
    return {
        "id": f"chatcmpl-scripted{n:06d}",
        "object": "chat.completion",
        "created": 1748496646,
        "model": "scripted-model",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        "system_fingerprint": None,
    }


def tool(name: str, arguments: dict[str, Any] | str | None = None, *, content: str | None = None) -> Reply:
    """A reply calling ``name``; ``arguments`` a mapping (sent as JSON text) or the raw text to send."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    call = {
        "id": f"call_scripted{next(_ids):06d}",
        "type": "function",
        "function": {"name": name, "arguments": raw},
    }
    message = {"role": "assistant", "content": content, "refusal": None, "tool_calls": [call]}
    return Reply(_completion(message, "tool_calls"))


def text(content: str) -> Reply:
    """A reply that calls no tool."""
    return Reply(_completion({"role": "assistant", "content": content, "refusal": None}, "stop"))


def status(code: int, message: str = "scripted failure") -> Reply:
    error = {"message": message, "type": "server_error", "param": None, "code": None}
    return Reply({"error": error}, status=code)


def hang(seconds: float) -> Reply:
    """Answer only after ``seconds`` (at most 5 s), as a server that is too slow."""
    return Reply(_completion({"role": "assistant", "content": "late"}, "stop"), delay=min(seconds, MAX_HANG))


def garbage(raw: bytes = b"<html>not json</html>") -> Reply:
    return Reply(raw=raw)


@dataclass
class ChatServer:
    """Serves ``replies`` in order on 127.0.0.1 (a free port) until :meth:`close`."""

    replies: Iterable[Reply] = ()
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # names lower-cased

    def __post_init__(self) -> None:
        self._script = list(self.replies)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                reply = server._take(self.path, body, {k.lower(): v for k, v in self.headers.items()})
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): nothing to answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="chat-server", daemon=True
        )
        self._thread.start()

    def _take(self, path: str, body: bytes, headers: dict[str, str]) -> Reply:
        with self._lock:
            if urlsplit(path).path != "/v1/chat/completions":  # a query (?api-key=…) is the client's
                return status(404, f"no route {path}")
            self.requests.append(json.loads(body))
            self.headers.append(headers)
            return self._script.pop(0) if self._script else tool("done", {"summary": "script exhausted"})

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # --- reading what was sent ---------------------------------------------------------------

    def user_content(self, n: int) -> dict[str, Any]:
        """The JSON object of the ``n``-th request's user message."""
        messages = self.requests[n]["messages"]
        return json.loads(next(m["content"] for m in messages if m["role"] == "user"))

    def system_prompt(self, n: int) -> str:
        return str(next(m["content"] for m in self.requests[n]["messages"] if m["role"] == "system"))

    def tool_names(self, n: int) -> list[str]:
        return [t["function"]["name"] for t in self.requests[n]["tools"]]
