"""The script context of one flow run, and the syntax check that runs before any flow does.

A :class:`ScriptContext` holds one JavaScript runtime (QuickJS-ng through the ``jsbox`` package:
``docs/maestro.md`` says why that engine) with Maestro's globals (:mod:`amc.flows.js.prelude`),
the ``output`` object the flow and its subflows share, and the bounds of
:class:`~amc.flows.js.limits.ScriptLimits`. Its runtime lives in a process of its own
(:mod:`amc.flows.js._process`), which the harness ends when a script outlives its time limit and
grace or the run is interrupted, whatever the script runs; any thread may call it, one call at a
time.

Every failure is typed (``amc.core.errors``), with the place in the flow or script file:
``ScriptSyntaxError`` (a ``FlowError``), ``ScriptError`` (the script threw; a value out of bounds),
``ScriptTimeout``, ``ScriptMemoryExceeded``, and ``Interrupted`` when the run's stop request ended
a script. After a script error, or a limit the engine enforced itself, the context goes on: the next
evaluation sees the same ``output``. After its engine had to be ended (a native built-in past the
limit and grace, an interruption, the engine's process gone) the context is given up: every later
call is a ``ScriptError`` saying why.
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
from typing import Any, Literal, Protocol

from ...core.errors import (
    HarnessError,
    Interrupted,
    ScriptError,
    ScriptMemoryExceeded,
    ScriptSyntaxError,
    ScriptTimeout,
    Unsupported,
)
from ._process import Died, ProcessHost, Stop, Stopped, Stuck
from ._session import describe
from ._worker import ThreadHost
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
START_WAIT = 30.0  # seconds the engine's process may take to start and run the prelude (a loaded machine)
ADDRESS_ALLOWANCE = 512 * 1024 * 1024  # address space the engine's process may take past its heap limit


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

    def serve(self, args: list[Any]) -> dict[str, Any]:
        """One call as the engine passes it: ``[method, url, params]``."""
        method, url, params = [*args, None, None, None][:3]
        return self(method, url, params)

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


Isolation = Literal["process", "thread"]


class ScriptContext:
    """The JavaScript of one flow run: ``output`` shared by its evaluations, Maestro's globals,
    ``platform`` (``"android"``, ``"ios"``) as ``maestro.platform`` and the variable
    ``MAESTRO_PLATFORM`` (which a caller's variable of that name overrides).

    ``http`` makes the requests scripts ask for; without one a script's ``http.get`` throws.
    ``stop`` (the run's :class:`~amc.runtime.cancel.Cancel`, or any object with ``is_set()``):
    once set, a running script is ended within :data:`~amc.flows.js._process.POLL` s
    (``Interrupted``). ``isolation``: ``"process"`` (the engine in a child process the harness
    kills at the limit: :mod:`amc.flows.js._process`) or ``"thread"`` (the engine in this process,
    whose native built-ins then hold it whole: for measuring, and hosts that cannot start
    processes). Made without I/O: the engine starts on the first evaluation. Close it (or use it
    in a ``with``); one that is dropped unclosed ends its engine when it is collected.
    """

    def __init__(
        self,
        *,
        platform: str,
        http: HttpHandler | None = None,
        limits: ScriptLimits | None = None,
        stop: Stop | None = None,
        isolation: Isolation = "process",
    ) -> None:
        if not isinstance(platform, str) or not platform or len(platform) > 32:
            raise ValueError(f"platform must be a short name such as 'android', not {platform!r}")
        if isolation not in ("process", "thread"):
            raise ValueError(f"isolation is 'process' or 'thread', not {isolation!r}")
        self.platform = platform
        self.limits = limits or ScriptLimits()
        self._stop = stop
        self._http = _Http(http, self.limits)
        self._host: ProcessHost | ThreadHost = (
            ProcessHost(self._http.serve, _max_answer(self.limits))
            if isolation == "process"
            else ThreadHost(f"amc-js-{platform}", self._http.serve)
        )
        self._reserved: frozenset[str] | None = None
        self._unreadable: dict[str, str] = {}  # output keys the harness could not read back, and why
        self._given_up: str | None = None
        self._finalizer = weakref.finalize(self, self._host.close)

    @property
    def engine_pid(self) -> int | None:
        """The process id of the engine's process while it runs (None: not started, or ``thread``)."""
        return self._host.pid

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
        self._eval(f"__amc.copied({literal})", _Origin("maestro.copiedText"), 1.0)

    def output(self) -> dict[str, JsValue]:
        """A copy of ``output`` as it is now (for the world model's remembered variables)."""
        text = self._eval("__amc.output()", _Origin("output"), 1.0)
        return self._output_copy(text, _Origin("output"))[0]

    def close(self) -> None:
        """End the context's engine; the context cannot be used after."""
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
        reserved = self._start(origin)
        taken = sorted(name for name in given if name in reserved or not name)
        if taken:
            raise ScriptError(
                f"the variable name(s) {', '.join(map(repr, taken))} are taken by JavaScript or Maestro "
                "(output, maestro, http, json, relativePoint, console, the built-ins)",
                file=origin.file,
            )
        code = f"__amc.run({json.dumps(STRICT + source)},{literal},{'true' if with_output else 'false'})"
        self._http.begin()
        answer = self._eval(code, origin, limits.time_limit, reset=True)
        if not (isinstance(answer, list) and len(answer) == 4):
            raise ScriptError(
                f"the engine answered {type(answer).__name__}, not the runner's result", file=origin.file
            )
        text, value, logs, output = answer
        lines = tuple(str(line) for line in logs) if isinstance(logs, list) else ()
        after: dict[str, JsValue] | None = None
        if isinstance(output, str):
            after, unreadable = self._output_copy(output, origin)
            fresh = {key: why for key, why in unreadable.items() if self._unreadable.get(key) != why}
            self._unreadable = unreadable
            if fresh:
                key, why = next(iter(fresh.items()))
                raise ScriptError(
                    f"output.{key} cannot be read back by the harness ({why}); the flow goes on without it",
                    file=origin.file,
                    logs=lines,
                )
        return ScriptResult(
            value=_read(value if isinstance(value, str) else None, limits, "the script's value", origin),
            text=str(text),
            logs=lines,
            output=after,
        )

    def _output_copy(self, text: object, origin: _Origin) -> tuple[dict[str, JsValue], dict[str, str]]:
        """``output`` as the prelude's ``readOutput`` gave it: the keys read back, and why each of
        the others could not be (too deep, too big, a getter that threw)."""
        try:
            pairs = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            pairs = None
        if not isinstance(pairs, list):
            raise ScriptError("the engine gave output in a form the harness does not read", file=origin.file)
        copy: dict[str, JsValue] = {}
        unreadable: dict[str, str] = {}
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 3 and isinstance(pair[0], str)):
                continue
            key, value_text, why = pair
            if why is None:
                try:
                    copy[key] = _read(value_text, self.limits, f"output.{key}", origin)
                    continue
                except ScriptError as error:
                    why = error.message
            unreadable[key] = str(why)[:500]
        return copy, unreadable

    def _start(self, origin: _Origin) -> frozenset[str]:
        """The engine started (once), with the prelude run: the names variables may not take."""
        if self._reserved is None:
            _jsbox()  # not installed: Unsupported, with the hint, before any process starts
            config = {
                "platform": self.platform,
                "maxLogLines": self.limits.max_log_lines,
                "maxLogLine": self.limits.max_log_line,
                "maxValueBytes": self.limits.max_value_bytes,
            }
            names = self._call(
                {
                    "op": "start",
                    "memory_limit": self.limits.memory_limit,
                    "stack_limit": self.limits.stack_limit,
                    "max_value_bytes": self.limits.max_value_bytes,
                    "host_http": HOST_HTTP,
                    "prelude": f"({PRELUDE})({json.dumps(config)})",
                    "address_space": self.limits.memory_limit + ADDRESS_ALLOWANCE,
                },
                origin,
                START_WAIT,
            )
            self._reserved = frozenset(str(n) for n in names) if isinstance(names, list) else frozenset()
        return self._reserved

    def _eval(self, code: str, origin: _Origin, time_limit: float, *, reset: bool = False) -> object:
        self._start(origin)
        message = {"op": "eval", "code": code, "timeout": time_limit, "reset": reset}
        return self._call(message, origin, time_limit + self.limits.grace)

    def _call(self, message: dict[str, Any], origin: _Origin, wait: float) -> object:
        if self._given_up is not None:
            raise ScriptError(self._given_up, file=origin.file)
        if not self._finalizer.alive:
            raise RuntimeError("this ScriptContext is closed")
        try:
            answer = self._host.call(message, wait, self._stop)
        except Stuck:
            self._give_up(f"a script was still running {wait:.0f} s after its start and its engine was ended")
            raise ScriptTimeout(
                f"the script ran past its time limit of {self.limits.time_limit:g} s and did not stop "
                "(its engine was ended)",
                limit=self.limits.time_limit,
                file=origin.file,
            ) from None
        except Stopped:
            self._give_up("the run was interrupted while a script ran, and its engine was ended")
            raise Interrupted(f"the run was interrupted (Ctrl-C) while {origin.file}'s script ran") from None
        except KeyboardInterrupt:
            self._give_up("the run was interrupted while a script ran, and its engine was ended")
            raise
        except Died as died:
            self._give_up(f"{died}")
            if died.code not in _OUT_OF_MEMORY:
                raise ScriptError(f"{died} while the script ran", file=origin.file) from None
            raise ScriptMemoryExceeded(
                f"{died} while the script ran: it went past the {_mib(self.limits.memory_limit)} MiB its "
                "engine may use (a native allocation the engine's own limit does not count)",
                limit=self.limits.memory_limit,
                file=origin.file,
            ) from None
        if "ok" in answer:
            return answer["ok"]
        error = answer.get("error")
        logs = answer.get("logs")
        raise _translate(
            error if isinstance(error, dict) else {},
            origin,
            tuple(str(line) for line in logs) if isinstance(logs, list) else (),
            self.limits,
        )

    def _give_up(self, why: str) -> None:
        self._given_up = f"this flow's JavaScript context was given up: {why}"
        self._host.close()


# How the engine's process ends when an allocation fails past its address-space cap: Rust aborts
# (SIGABRT, its default alloc error handler), or the kernel's OOM killer sends SIGKILL.
_OUT_OF_MEMORY = frozenset({-6, -9})


def _mib(size: int) -> int:
    return size // (1024 * 1024)


def _max_answer(limits: ScriptLimits) -> int:
    """Bytes one answer of the engine may hold: the value and ``output`` (each within the value
    cap, six bytes a character at worst as ASCII JSON) and the logs."""
    return 12 * limits.max_value_bytes + 6 * limits.max_log_lines * (limits.max_log_line + 64) + 65536


def _read(text: str | None, limits: ScriptLimits, what: str, origin: _Origin) -> JsValue:
    """``from_json`` of a value from the engine, with the place of the script that made it."""
    try:
        return from_json(text, limits, what)
    except ScriptError as error:
        raise ScriptError(str(error), file=origin.file) from None
    except (ValueError, RecursionError, MemoryError) as error:  # whatever the text holds: typed
        raise ScriptError(
            f"{what} could not be read back: {type(error).__name__}", file=origin.file
        ) from None


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
    error: Mapping[str, Any], origin: _Origin, logs: tuple[str, ...], limits: ScriptLimits
) -> HarnessError:
    """The harness's error for what the engine raised (:func:`amc.flows.js._session.describe`'s data)."""
    kind = error.get("kind")
    text = str(error.get("text") or "")
    if kind == "timeout":
        return ScriptTimeout(
            f"the script ran past its time limit of {limits.time_limit:g} s and was stopped",
            limit=limits.time_limit,
            file=origin.file,
            logs=logs,
        )
    if kind == "js":
        name = error.get("name")
        name = str(name) if name is not None else None
        message = str(error.get("message") or "").strip() or (text.splitlines() or [""])[0]
        stack = str(error.get("stack") or "")
        found_kind = next((k for n, says, k in _ERRORS if n == name and says(message, stack)), "thrown")
        found = _COMPILED.match(stack) if found_kind == "syntax" else _THROWN.search(stack)
        line, column = origin.place(int(found[1]), int(found[2])) if found else (None, None)
        if found_kind == "memory":
            bare = " (the engine threw null: no memory was left to say more)" if name is None else ""
            return ScriptMemoryExceeded(
                f"the script ran out of its {_mib(limits.memory_limit)} MiB of memory{bare}",
                limit=limits.memory_limit,
                file=origin.file,
                logs=logs,
            )
        if found_kind == "syntax":
            return ScriptSyntaxError(message, file=origin.file, line=line, column=column)
        shown = f"{name}: {message}" if name else f"uncaught {message}"
        return ScriptError(
            shown, file=origin.file, line=line, column=column, js_name=name, js_message=message, logs=logs
        )
    if kind == "value":  # the engine would not copy a value across
        why = f"over the limit of {limits.max_value_bytes:,} bytes" if "max_value_bytes" in text else text
        return ScriptError(
            f"a value could not cross from the script to the harness: {why}", file=origin.file, logs=logs
        )
    if error.get("type") == "MemoryError":
        return ScriptMemoryExceeded(
            f"the script's engine ran out of memory (its limit is {_mib(limits.memory_limit)} MiB)",
            limit=limits.memory_limit,
            file=origin.file,
            logs=logs,
        )
    what = str(error.get("type") or "an unknown error")
    return ScriptError(
        f"the script's engine failed: {what}: {text[:500]}"
        if text
        else f"the script's engine failed: {what}",
        file=origin.file,
        logs=logs,
    )


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
        raise _translate(describe(exc), origin, (), limits) from exc
