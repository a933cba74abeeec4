"""The engine's side of a script context: one jsbox runtime, driven by messages.

This module runs inside the engine's own process (:mod:`amc.flows.js._child`), so it imports
nothing of the harness: only ``jsbox`` and the standard library. A :class:`Session` answers the
messages of :mod:`amc.flows.js._process` (plain JSON values, see there): ``start`` makes the
runtime and runs the prelude, ``eval`` evaluates one source. Every answer is a dict: ``{"ok":
value}``, or ``{"error": {...}, "logs": [...]}`` where the error says what the engine raised as
data (``kind``: ``timeout``, ``js`` with the JavaScript error's name, message and stack, ``value``
for a value the engine would not convert, ``other`` for anything else), so the harness types every
failure, whatever it was.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["Session", "describe"]

Ask = Callable[[list[Any]], Any]  # the http host function: the call's arguments -> its answer


def describe(error: BaseException) -> dict[str, Any]:
    """What ``error`` was, as JSON data the harness can type (see the module docstring)."""
    jsbox = importlib.import_module("jsbox")
    text = str(error)[:4096]
    if isinstance(error, jsbox.JsTimeoutError):
        return {"kind": "timeout", "text": text}
    if isinstance(error, jsbox.JavaScriptError):
        return {
            "kind": "js",
            "text": text,
            "name": _short(getattr(error, "name", None)),
            "message": _short(getattr(error, "message", None)),
            "stack": _short(getattr(error, "stack", None)),
        }
    if isinstance(error, (ValueError, TypeError)):
        return {"kind": "value", "text": text}
    return {"kind": "other", "type": type(error).__name__, "text": text}


def _short(value: object) -> str | None:
    return None if value is None else str(value)[:16384]


class Session:
    """One runtime, made by :meth:`start`; ``ask`` carries the prelude's ``http`` calls out."""

    def __init__(self, ask: Ask) -> None:
        self._ask = ask
        self._engine: Any = None

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """The answer to one message of the harness."""
        op = message.get("op")
        try:
            if op == "start":
                return {"ok": self._start(message)}
            if op == "eval":
                return {"ok": self._engine.eval(message["code"], timeout=message["timeout"])}
        except BaseException as error:  # noqa: BLE001 - every failure goes back as data
            answer: dict[str, Any] = {"error": describe(error), "logs": []}
            if op == "eval" and message.get("reset") and self._engine is not None:
                answer["logs"] = self._reset()
            return answer
        return {"error": {"kind": "other", "type": "Protocol", "text": f"unknown message {op!r}"}, "logs": []}

    def _start(self, message: dict[str, Any]) -> list[str]:
        jsbox = importlib.import_module("jsbox")
        engine = jsbox.Runtime(
            memory_limit=message["memory_limit"],
            max_stack_size=message["stack_limit"],
            max_value_bytes=message["max_value_bytes"],
        )
        engine.bind_function(message["host_http"], lambda *args: self._ask(list(args)))
        engine.eval(message["prelude"])
        self._engine = engine
        return [str(name) for name in engine.eval("__amc.names()")]

    def _reset(self) -> list[str]:
        """After a failed evaluation: its variables and globals removed, its log lines taken."""
        try:
            logs = self._engine.eval("__amc.reset()", timeout=1.0)
        except Exception:  # noqa: BLE001 - the failure being reported matters more than its logs
            return []
        return [str(line) for line in logs] if isinstance(logs, list) else []
