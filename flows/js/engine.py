"""The script context of one flow run, and the syntax check that runs before any flow does.

A :class:`ScriptContext` holds one JavaScript runtime (QuickJS-ng through the ``jsbox`` package:
``docs/maestro.md`` says why that engine) with Maestro's globals (:mod:`amc.flows.js.prelude`),
the ``output`` object the flow and its subflows share, and the bounds of
:class:`~amc.flows.js.limits.ScriptLimits`. Its runtime lives on a thread of its own
(:mod:`amc.flows.js._worker`), so any thread may call it, one call at a time.

Every failure is typed (``amc.core.errors``), with the place in the flow or script file:
``ScriptSyntaxError`` (a ``FlowError``), ``ScriptError`` (the script threw; a value out of bounds),
``ScriptTimeout``, ``ScriptMemoryExceeded``. After any of them the context goes on: the next
evaluation sees the same ``output``.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, Protocol

from ...core.errors import (
    HarnessError,
    ScriptError,
    ScriptMemoryExceeded,
    ScriptSyntaxError,
    ScriptTimeout,
    Unsupported,
)
from ._worker import Stuck, Worker
from .http import HttpHandler, HttpRefused, HttpRequest, request_from_script, response_for_script
from .limits import ScriptLimits
from .prelude import HOST_HTTP, LINE_OFFSET, PRELUDE, SCRIPT_FILE, STRICT
from .values import JsValue, from_json, to_json

__all__ = ["EXPRESSION_FILE", "Location", "ScriptContext", "ScriptResult", "check_syntax"]

EXPRESSION_FILE = "<expression>"  # the file an expression is said to be in when the caller names none
# In the engine's stack: a source that did not compile is its first line, a bare position followed by the
# ``eval`` that compiled it (or nothing: the syntax check); an error thrown as it ran has the script's
# frames, ``at f (<input>:3:7)``, the first of them where it was thrown (``JSON.parse`` of bad text is one:
# its SyntaxError names the text's position bare, then ``at parse (native)``, then the script's call).
_COMPILED = re.compile(
    rf"\s*at (?:{re.escape(SCRIPT_FILE)}|check):(\d+):(\d+)\n(?:\s*at eval \(native\)|\s*\Z)"
)
_THROWN = re.compile(rf"\({re.escape(SCRIPT_FILE)}:(\d+):(\d+)\)")


class Location(Protocol):
    """Where an expression starts in its flow file (``amc.flows``' ``SourcePosition`` is one)."""

    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...


@dataclass(frozen=True)
class ScriptResult:
    """What one evaluation gave: ``value`` as JSON sees it (:mod:`amc.flows.js.values`), ``text``
    as it is written into a string (``String(value)``; arrays and plain objects as JSON), ``logs``
    the ``console.log`` lines, in order, and ``output`` a copy of ``output`` right after the
    evaluation when it was asked for (it saves a second call). A promise is not awaited (its
    ``then`` callbacks do not run): Maestro's scripts are synchronous, ``http`` included."""

    value: JsValue
    text: str
    logs: tuple[str, ...] = ()
    output: dict[str, JsValue] | None = None  # ``output`` right after, when asked for (``with_output``)


@dataclass(frozen=True)
class _Origin:
    """Where an evaluated source starts: a position inside it, moved to its file."""

    file: str
    line: int = 1
    column: int = 1

    def place(self, line: int, column: int) -> tuple[int, int]:
        line = max(line - LINE_OFFSET, 1)
        return self.line + line - 1, (self.column + column - 1 if line == 1 else column)


def _jsbox() -> ModuleType:
    try:
        return importlib.import_module("jsbox")
    except ImportError:
        raise Unsupported(
            "JavaScript in flows needs the jsbox package, which is not installed here",
            hint="pip install jsbox (it has wheels for Linux, macOS on arm64 and Windows on x86_64; "
            "elsewhere pip builds it from source with a Rust toolchain)",
        ) from None


class _Http:
    """The ``http`` host function of one runtime: the caller's handler, the evaluation's deadline
    and call count. Holds nothing of the context, so a context nobody closed can still be freed."""

    def __init__(self, handler: HttpHandler | None, limits: ScriptLimits) -> None:
        self.handler = handler
        self.limits = limits
        self.deadline = 0.0
        self.calls = 0

    def begin(self) -> None:
        self.deadline = time.monotonic() + self.limits.time_limit
        self.calls = 0

    def __call__(self, method: object, url: object, params: object) -> dict[str, Any]:
        """Called by the prelude's ``http.*``: ``{response}`` for the script, or ``{error}`` to throw."""
        try:
            left = self.deadline - time.monotonic()
            request = request_from_script(
                method,
                url,
                params,
                timeout=max(min(self.limits.http_timeout, left), 0.001),
                limits=self.limits,
            )
            return {"response": response_for_script(self._send(request), request)}
        except HttpRefused as refused:
            return {"error": str(refused)}

    def _send(self, request: HttpRequest) -> object:
        verb = request.method.lower()
        if self.handler is None:
            raise HttpRefused(f"http.{verb}: HTTP is not allowed in this run")
        self.calls += 1
        if self.calls > self.limits.http_max_calls:
            raise HttpRefused(
                f"http.{verb}: more than {self.limits.http_max_calls} HTTP calls in one evaluation"
            )
        try:
            return self.handler(request)
        except (HarnessError, OSError, HttpRefused) as exc:
            raise HttpRefused(f"http.{verb} {request.url}: {exc}") from exc


@dataclass
class _Runtime:
    """What the worker thread keeps: the engine's runtime, the names variables may not take, ``http``."""

    engine: Any
    reserved: frozenset[str]
    http: _Http


def _start(platform: str, handler: HttpHandler | None, limits: ScriptLimits) -> _Runtime:
    """Make a runtime and run the prelude in it (on the worker's thread)."""
    jsbox = _jsbox()
    engine = jsbox.Runtime(
        memory_limit=limits.memory_limit,
        max_stack_size=limits.stack_limit,
        max_value_bytes=limits.max_value_bytes,
    )
    http = _Http(handler, limits)
    engine.bind_function(HOST_HTTP, http)
    config = {"platform": platform, "maxLogLines": limits.max_log_lines, "maxLogLine": limits.max_log_line}
    engine.eval(f"({PRELUDE})({json.dumps(config)})")
    reserved = frozenset(engine.eval("__amc.names()"))
    return _Runtime(engine, reserved, http)


class _Failed(Exception):
    """An evaluation failed on the worker's thread; ``logs`` are what it wrote before."""

    def __init__(self, error: BaseException, logs: tuple[str, ...]) -> None:
        super().__init__(str(error))
        self.error = error
        self.logs = logs


class ScriptContext:
    """The JavaScript of one flow run: ``output`` shared by its evaluations, Maestro's globals,
    ``platform`` (``"android"``, ``"ios"``) as ``maestro.platform`` and the variable
    ``MAESTRO_PLATFORM`` (which a caller's variable of that name overrides).

    ``http`` makes the requests scripts ask for; without one a script's ``http.get`` throws. Made
    without I/O: the runtime and its thread start on the first evaluation. Close it (or use it in a
    ``with``); one that is dropped unclosed stops its thread when it is collected.
    """

    def __init__(
        self, *, platform: str, http: HttpHandler | None = None, limits: ScriptLimits | None = None
    ) -> None:
        if not isinstance(platform, str) or not platform or len(platform) > 32:
            raise ValueError(f"platform must be a short name such as 'android', not {platform!r}")
        self.platform = platform
        self.limits = limits or ScriptLimits()
        limits_ = self.limits
        self._worker: Worker[_Runtime] = Worker(f"amc-js-{platform}", lambda: _start(platform, http, limits_))
        self._given_up: str | None = None
        self._finalizer = weakref.finalize(self, self._worker.close)

    def evaluate(
        self,
        expression: str,
        *,
        variables: Mapping[str, JsValue] | None = None,
        where: Location | None = None,
        with_output: bool = False,
    ) -> ScriptResult:
        """Evaluate a ``${...}`` expression (or an ``evalScript``, a ``when``/``while`` condition) with
        ``variables`` (the flow's env and parameters) as globals for this evaluation only.
        ``where`` is the expression's place in its flow file, for errors; ``with_output``: the
        result carries ``output`` as it is after the evaluation."""
        origin = (
            _Origin(where.file, where.line, where.column) if where is not None else _Origin(EXPRESSION_FILE)
        )
        return self._evaluate(expression, variables, origin, with_output)

    def run_script(
        self,
        source: str,
        *,
        filename: str,
        env: Mapping[str, JsValue] | None = None,
        with_output: bool = False,
    ) -> ScriptResult:
        """Run a ``runScript`` file's ``source`` (``filename`` for errors) with its ``env`` as globals."""
        return self._evaluate(source, env, _Origin(filename), with_output)

    def set_copied_text(self, text: str | None) -> None:
        """What ``copyTextFrom`` copied: ``maestro.copiedText`` from now on."""
        if text is not None and not isinstance(text, str):
            raise TypeError("the copied text is a string or None")
        literal = to_json(text, self.limits, "the copied text")
        self._call(lambda state: state.engine.eval(f"__amc.copied({literal})"), "maestro.copiedText", 1.0)

    def output(self) -> dict[str, JsValue]:
        """A copy of ``output`` as it is now (for the world model's remembered variables)."""
        text = self._call(lambda state: state.engine.eval("__amc.output()"), "output", 1.0)
        value = from_json(text if isinstance(text, str) else None, self.limits, "output")
        return value if isinstance(value, dict) else {}

    def close(self) -> None:
        """Stop the context's thread; the context cannot be used after."""
        self._finalizer()

    def __enter__(self) -> ScriptContext:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # --- one evaluation ----------------------------------------------------------------------------

    def _evaluate(
        self, source: str, variables: Mapping[str, JsValue] | None, origin: _Origin, with_output: bool = False
    ) -> ScriptResult:
        limits = self.limits
        if not isinstance(source, str):
            raise TypeError("a script's source is a string")
        if len(source) > limits.max_source:
            raise ScriptError(
                f"the script is {len(source):,} characters, over the limit of {limits.max_source:,}",
                file=origin.file,
            )
        given: dict[str, JsValue] = {"MAESTRO_PLATFORM": self.platform, **(variables or {})}
        literal = to_json(given, limits, "the variables")
        code = f"__amc.run({json.dumps(STRICT + source)},{literal},{'true' if with_output else 'false'})"

        def job(state: _Runtime) -> object:
            taken = sorted(name for name in given if name in state.reserved or not name)
            if taken:
                raise ScriptError(
                    f"the variable name(s) {', '.join(map(repr, taken))} are taken by JavaScript or Maestro "
                    "(output, maestro, http, json, relativePoint, console, the built-ins)",
                    file=origin.file,
                )
            state.http.begin()
            try:
                return state.engine.eval(code, timeout=limits.time_limit)
            except Exception as exc:
                raise _Failed(exc, _reset(state)) from exc

        answer = self._call(job, origin.file, limits.time_limit + limits.grace, origin)
        if not (isinstance(answer, list) and len(answer) == 4):
            raise ScriptError(
                f"the engine answered {type(answer).__name__}, not the runner's result", file=origin.file
            )
        text, value, logs, output = answer
        after = from_json(output, limits, "output") if isinstance(output, str) else None
        return ScriptResult(
            value=from_json(value, limits, "the script's value"),
            text=str(text),
            logs=tuple(str(line) for line in logs),
            output=after if isinstance(after, dict) else None,
        )

    def _call(
        self, job: Callable[[_Runtime], object], file: str, wait: float, origin: _Origin | None = None
    ) -> object:
        if self._given_up is not None:
            raise ScriptError(self._given_up, file=file)
        if not self._finalizer.alive:
            raise RuntimeError("this ScriptContext is closed")
        try:
            return self._worker.run(job, wait)
        except Stuck:
            self._given_up = (
                f"this flow's JavaScript context was given up: a script was still running {wait:.0f} s after "
                "its start (one long operation the engine could not interrupt)"
            )
            self._worker.close()
            raise ScriptTimeout(
                f"the script ran past its time limit of {self.limits.time_limit:g} s and did not stop",
                limit=self.limits.time_limit,
                file=file,
            ) from None
        except _Failed as failed:
            raise _translate(
                failed.error, origin or _Origin(file), failed.logs, self.limits
            ) from failed.error


def _reset(state: _Runtime) -> tuple[str, ...]:
    """After a failed evaluation: its variables and globals removed, its log lines taken."""
    try:
        logs = state.engine.eval("__amc.reset()", timeout=1.0)
    except Exception:  # noqa: BLE001 - the failure being reported matters more than its logs
        return ()
    return tuple(str(line) for line in logs) if isinstance(logs, list) else ()


# --- the engine's errors, as the harness's ---------------------------------------------------------

# (the JavaScript error's name, whether its message and stack say so) -> the harness's error; first wins;
# any other error is the script's own ("thrown"). When an allocation fails with too little memory
# left to make the error itself, the engine throws a bare null (measured: a 16 MiB context whose
# array of strings fills it throws one or the other, depending on what is left), so an uncaught
# null with no stack is taken for the memory limit too (a script's own `throw null` reads so).
_ERRORS: tuple[tuple[str | None, Callable[[str, str], bool], str], ...] = (
    ("InternalError", lambda message, stack: message == "out of memory", "memory"),
    (None, lambda message, stack: message == "null" and not stack.strip(), "memory"),
    ("SyntaxError", lambda message, stack: _COMPILED.match(stack) is not None, "syntax"),
)


def _translate(
    error: BaseException, origin: _Origin, logs: tuple[str, ...], limits: ScriptLimits
) -> HarnessError:
    jsbox = _jsbox()
    if isinstance(error, HarnessError):
        return error
    if isinstance(error, jsbox.JsTimeoutError):
        return ScriptTimeout(
            f"the script ran past its time limit of {limits.time_limit:g} s and was stopped",
            limit=limits.time_limit,
            file=origin.file,
            logs=logs,
        )
    if isinstance(error, jsbox.JavaScriptError):
        name = getattr(error, "name", None)
        message = str(getattr(error, "message", "") or "").strip() or str(error).splitlines()[0]
        stack = str(getattr(error, "stack", "") or "")
        kind = next((k for n, says, k in _ERRORS if n == name and says(message, stack)), "thrown")
        found = _COMPILED.match(stack) if kind == "syntax" else _THROWN.search(stack)
        line, column = origin.place(int(found[1]), int(found[2])) if found else (None, None)
        if kind == "memory":
            bare = " (the engine threw null: no memory was left to say more)" if name is None else ""
            return ScriptMemoryExceeded(
                f"the script ran out of its {limits.memory_limit // (1024 * 1024)} MiB of memory{bare}",
                limit=limits.memory_limit,
                file=origin.file,
                logs=logs,
            )
        if kind == "syntax":
            return ScriptSyntaxError(message, file=origin.file, line=line, column=column)
        shown = f"{name}: {message}" if name else f"uncaught {message}"
        return ScriptError(
            shown, file=origin.file, line=line, column=column, js_name=name, js_message=message, logs=logs
        )
    if isinstance(error, (ValueError, TypeError)):  # the engine would not copy a value across
        why = (
            f"over the limit of {limits.max_value_bytes:,} bytes"
            if "max_value_bytes" in str(error)
            else error
        )
        return ScriptError(
            f"a value could not cross from the script to the harness: {why}", file=origin.file, logs=logs
        )
    raise error


# --- the syntax check ----------------------------------------------------------------------------

_CHECKERS = threading.local()


def check_syntax(
    source: str, filename: str, *, line: int = 1, column: int = 1, limits: ScriptLimits | None = None
) -> None:
    """Parse ``source`` as a flow's script is run (strict mode) without running any of it;
    ``ScriptSyntaxError`` with the file, line and column of the first error. ``line``/``column``:
    where the source starts in ``filename`` (an expression inside a flow file)."""
    limits = limits or ScriptLimits()
    origin = _Origin(filename, line, column)
    if len(source) > limits.max_source:
        raise ScriptError(
            f"the script is {len(source):,} characters, over the limit of {limits.max_source:,}",
            file=filename,
        )
    checker = getattr(_CHECKERS, "runtime", None)
    if checker is None:
        checker = _jsbox().Runtime(memory_limit=limits.memory_limit, max_stack_size=limits.stack_limit)
        _CHECKERS.runtime = checker
    try:
        checker.check_syntax(STRICT + source)
    except Exception as exc:
        raise _translate(exc, origin, (), limits) from exc
