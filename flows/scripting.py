"""The JavaScript of one flow run, as the flow interpreter (:mod:`amc.flows.planner`) runs it.

A Maestro flow's JavaScript runs in the interpreter when its turn comes, between device steps, in
one :class:`~amc.flows.js.ScriptContext` per run (made on first use: a flow without JavaScript
starts no engine), so ``output`` is shared by the flow, its hooks and its subflows:

- **variables**: a stack of scopes. The run starts from the flow's variables (``--env``, the
  environment, Maestro's ``MAESTRO_FILENAME`` …); a flow or subflow binds its env blocks when it
  starts (a ``runFlow``'s ``env``, then its header's: each block's values evaluated before any is
  bound) and drops them when it ends. ``${NAME}`` of a variable is its value (``undefined`` when
  none); any other ``${...}`` is evaluated with the scope's variables as globals, but for those of
  the process environment's own (``Flow.hidden``): scripts see what Maestro gives them;
- **secrets**: the values of variables named like a credential, what a request carries in its
  URL and credential headers, and every value a script puts in ``output`` under a name like a
  credential (or that holds a secret value) are handed to ``secrets`` (the run's one redactor)
  before any record of them is written;
- **output**: after each step, the ``output`` keys its JavaScript changed are values to remember
  (``output.NAME``: the world model's variables), the secret ones named so (shown as ``***``);
- **http**: every call goes through the handler the run was given (:mod:`amc.flows.js.client`, or
  a refusal), logged and kept for the step's record;
- **what a step records** (:meth:`FlowScripts.take`): the ``console.log`` lines, the HTTP calls,
  the time the JavaScript took, the values to remember.

Every failure is the harness's typed error (``ScriptError``, ``ScriptTimeout``,
``ScriptMemoryExceeded``, ``AssertionFailed``, a ``FlowError`` for a computed value a command does
not take), with the flow's or the script's file and line; the interpreter records it as the step's.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..actions.script import MAX_LOG_LINES, MAX_VALUE, recorded_error
from ..core.errors import AssertionFailed, HarnessError, ScriptError
from ..core.models import OnFailure, PlannedStep
from ..storage.redaction import named_like_credential
from .js import HttpHandler, HttpRequest, HttpResponse, JsValue, ScriptContext, ScriptLimits
from .js._process import Stop
from .js.client import refusing, request_secrets
from .js.http import HttpRefused
from .maestro.commands import Command
from .maestro.templates import interpolate, realize
from .maestro.values import SCRIPT_WORDS, is_true
from .model import Bindings, Flow, FlowStep, ScriptCommand, SourcePosition
from .nodes import NAME

__all__ = ["FlowScripts", "Taken", "script_step"]

log = logging.getLogger(__name__)

NO_HTTP = "HTTP is not allowed in this run"
MAX_CALLS_KEPT = 100  # lines a step keeps about its HTTP calls (an evaluation makes at most 100)

Secrets = Callable[[Iterable[str]], None]


@dataclass
class _Scope:
    values: dict[str, str]
    hidden: set[str]


@dataclass(frozen=True)
class Taken:
    """What a step's JavaScript left for its record: the ``console.log`` lines, the HTTP calls, the
    seconds it ran, the ``output`` values to remember (``output.NAME``) and which are secret."""

    logs: tuple[str, ...] = ()
    http: tuple[str, ...] = ()
    seconds: float = 0.0
    remember: dict[str, JsValue] = field(default_factory=dict)
    secret: tuple[str, ...] = ()

    def args(self) -> dict[str, Any]:
        """The values to remember as a step's common arguments (``remember``, ``secret``)."""
        if not self.remember:
            return {}
        out: dict[str, Any] = {"remember": dict(self.remember)}
        if self.secret:
            out["secret"] = list(self.secret)
        return out


class _Calls:
    """The run's HTTP handler, wrapped: what a request carries that is secret is told first, then
    the call is made, logged and kept for the step's record."""

    def __init__(self, handler: HttpHandler, secrets: Secrets) -> None:
        self.handler = handler
        self.secrets = secrets
        self.lines: list[str] = []

    def __call__(self, request: HttpRequest, /) -> HttpResponse:
        found = request_secrets(request)
        if found:
            self.secrets(found)
        started = time.monotonic()
        shown = f"{request.method} {request.url}"
        try:
            response = self.handler(request)
        except (HttpRefused, HarnessError, OSError) as exc:
            self._note(f"{shown} -> failed after {time.monotonic() - started:.2f} s: {exc}")
            raise
        size = (
            len(response.body.encode("utf-8", "surrogatepass")) if isinstance(response, HttpResponse) else 0
        )
        status = response.status if isinstance(response, HttpResponse) else "?"
        self._note(f"{shown} -> {status}, {size:,} bytes, {time.monotonic() - started:.2f} s")
        return response

    def _note(self, line: str) -> None:  # logged by take(), on the run's thread (the engine has its own)
        if len(self.lines) < MAX_CALLS_KEPT:
            self.lines.append(line)


def _credentials(value: JsValue, whole: bool) -> tuple[bool, list[str]]:
    """Whether ``value`` holds a key named like a credential (at any depth), and the strings that
    are secret in it: every one when ``whole`` (the value's own name is a credential's), else those
    under such keys."""
    found: list[str] = []
    named = False
    pending: list[tuple[JsValue, bool]] = [(value, whole)]
    while pending:
        item, secret = pending.pop()
        if isinstance(item, str):
            if secret:
                found.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                credential = named_like_credential(key)
                named = named or credential
                pending.append((inner, secret or credential))
        elif isinstance(item, list):
            pending.extend((inner, secret) for inner in item)
    return named, found


class FlowScripts:
    """The JavaScript of one run of ``flow`` on a device of ``platform`` (see the module docstring).
    ``http`` makes the requests scripts ask for (None: every call throws saying HTTP is not
    allowed); ``secrets`` is told of every secret value found; ``stop`` (the run's ``Cancel``),
    once set, ends a running script within a tenth of a second. Made without I/O."""

    def __init__(
        self,
        flow: Flow,
        platform: str,
        *,
        http: HttpHandler | None = None,
        secrets: Secrets | None = None,
        limits: ScriptLimits | None = None,
        stop: Stop | None = None,
    ) -> None:
        self.platform = platform
        self._stop = stop
        self.limits = limits or ScriptLimits()
        self._told: Secrets = secrets or (lambda values: None)
        self._secrets: set[str] = set(flow.secrets)
        self._calls = _Calls(http or refusing(NO_HTTP), self._secret)
        self._scopes = [_Scope(dict(flow.variables), set(flow.hidden))]
        self._js: ScriptContext | None = None
        self._copied: str | None = None
        self._remembered: dict[str, str] = {}  # output key -> its JSON when last remembered
        self._logs: list[str] = []
        self._seconds = 0.0
        self._ran = False
        self._output: dict[str, JsValue] | None = None  # output after the last evaluation, if known

    # --- the context, secrets ------------------------------------------------------------------

    def _context(self) -> ScriptContext:
        if self._js is None:
            self._js = ScriptContext(
                platform=self.platform, http=self._calls, limits=self.limits, stop=self._stop
            )
            if self._copied is not None:
                self._js.set_copied_text(self._copied)
        return self._js

    def _secret(self, values: Iterable[str]) -> None:
        new = [v for v in values if isinstance(v, str) and v and v not in self._secrets]
        if new:
            self._secrets.update(new)
            self._told(new)

    def copied(self, text: str) -> None:
        """What ``copyTextFrom`` (or ``setClipboard``) left: ``maestro.copiedText`` from now on."""
        self._copied = text
        if self._js is not None:
            self._js.set_copied_text(text)

    def close(self) -> None:
        if self._js is not None:
            self._js.close()

    # --- variables -----------------------------------------------------------------------------

    def enter(self, bindings: tuple[Bindings, ...], where: SourcePosition) -> None:
        """A flow or subflow starts: a new scope, with its env blocks bound in order (each block's
        values evaluated before any is bound). Call :meth:`leave` after, even when this raised."""
        top = self._scopes[-1]
        self._scopes.append(_Scope(dict(top.values), set(top.hidden)))
        for block in bindings:
            values = {name: self.text(written, where) for name, written in block}
            scope = self._scopes[-1]
            scope.values.update(values)
            scope.hidden.difference_update(values)
            self._secret(v for n, v in values.items() if named_like_credential(n))

    def leave(self) -> None:
        if len(self._scopes) > 1:
            self._scopes.pop()

    def _variables(self, extra: Mapping[str, str] | None = None) -> dict[str, JsValue]:
        scope = self._scopes[-1]
        seen: dict[str, JsValue] = {k: v for k, v in scope.values.items() if k not in scope.hidden}
        return {**seen, **(extra or {})}

    # --- evaluations ---------------------------------------------------------------------------

    def _evaluate(self, expression: str, where: SourcePosition) -> str:
        """One ``${...}``: a variable's value (the process environment's too, as the flow reads it),
        or the expression evaluated by the engine."""
        value = self._scopes[-1].values.get(expression) if NAME.fullmatch(expression) else None
        if value is not None and expression not in SCRIPT_WORDS:
            if named_like_credential(expression):  # a secret whatever its source (the environment too)
                self._secret([value])
            return value
        self._ran = True
        started = time.monotonic()
        try:
            result = self._context().evaluate(
                expression, variables=self._variables(), where=where, with_output=True
            )
        except HarnessError as exc:
            self._logs.extend(getattr(exc, "logs", ()))
            self._output = None  # it may have changed before the failure: read it again
            raise
        finally:
            self._seconds += time.monotonic() - started
        self._logs.extend(result.logs)
        self._output = result.output
        return result.text

    def text(self, written: str, where: SourcePosition) -> str:
        """``written`` with every ``${...}`` evaluated now."""
        return interpolate(written, lambda inner: self._evaluate(inner, where))

    def truth(self, written: str, where: SourcePosition) -> bool:
        """A ``when: {true: …}`` / ``while: {true: …}``: ``written`` interpolated, by Maestro's rule."""
        return is_true(self.text(written, where))

    def count(self, written: str, where: SourcePosition, what: str, high: int) -> int:
        """A ``repeat``'s ``times`` or a ``retry``'s ``maxRetries`` a script computes, from 0 to ``high``."""
        text = self.text(written, where)
        try:
            number = int(float(text))
        except (ValueError, OverflowError):
            raise where.error(f"{what} must be a number, and {written!r} gave {text[:40]!r}") from None
        return max(0, min(high, number))

    def selector(self, value: Any, where: SourcePosition) -> Any:
        """A condition's selector with the ``${...}`` of its texts evaluated now."""
        if isinstance(value, str):
            return self.text(value, where) if "${" in value else value
        if isinstance(value, Mapping):
            return {key: self.selector(item, where) for key, item in value.items()}
        if isinstance(value, list):
            return [self.selector(item, where) for item in value]
        return value

    def realize(self, step: FlowStep) -> Command:
        """A command whose values hold JavaScript, read again with them evaluated now."""
        assert step.template is not None
        file = step.position.file

        def evaluate(inner: str, line: int, column: int) -> str:
            return self._evaluate(inner, SourcePosition(file, line, column))

        return realize(step.template, file, evaluate)

    def run(self, script: ScriptCommand, where: SourcePosition) -> str | None:
        """``evalScript`` / ``assertTrue`` (their text interpolated: the value) or ``runScript`` (its
        file run with the scope's variables and its own ``env`` on top: no value)."""
        at = SourcePosition(where.file, script.line or where.line, script.column or where.column)
        if script.command == "runScript":
            env = {name: self.text(written, at) for name, written in script.env}
            self._secret(v for n, v in env.items() if named_like_credential(n))
            self._ran = True
            started = time.monotonic()
            try:
                result = self._context().run_script(
                    script.source,
                    filename=script.file or where.file,
                    env=self._variables(env),
                    with_output=True,
                )
            except HarnessError as exc:
                self._logs.extend(getattr(exc, "logs", ()))
                self._output = None
                raise
            finally:
                self._seconds += time.monotonic() - started
            self._logs.extend(result.logs)
            self._output = result.output
            return None
        value = self.text(script.text, at)
        if script.command == "assertTrue" and not is_true(value):
            raise AssertionFailed(
                f"{at}: assertTrue is false: {script.text[:200]} gave {value[:200]!r}",
                hint="false is '', false, 0, null or undefined",
            )
        return value

    # --- what a step records ---------------------------------------------------------------------

    def _read_output(self) -> dict[str, JsValue]:
        """``output`` as it is now; nothing when the context was given up (its failure is the step's)."""
        assert self._js is not None
        try:
            return self._js.output()
        except ScriptError:
            return {}

    def take(self, *, secret_too: bool = True) -> Taken:
        """What the JavaScript since the last ``take`` left: its logs, calls and time, and the
        ``output`` keys it changed (the secret ones only with ``secret_too``; else they wait for
        the next step that may carry them)."""
        logs, self._logs = tuple(self._logs), []
        calls, self._calls.lines = tuple(self._calls.lines), []
        seconds, self._seconds = self._seconds, 0.0
        remember: dict[str, JsValue] = {}
        secret: list[str] = []
        if self._ran and self._js is not None:
            self._ran = False
            now = self._output if self._output is not None else self._read_output()
            for key, value in now.items():
                text = json.dumps(value, sort_keys=True)
                if self._remembered.get(key) == text:
                    continue
                whole = named_like_credential(key)
                inside, found = _credentials(value, whole)
                holds = any(json.dumps(s)[1:-1] in text for s in self._secrets if len(s) >= 4)
                if whole or inside or holds:
                    self._secret(found)
                    if not secret_too:
                        self._ran = True  # taken by a later step
                        continue
                    secret.append(f"output.{key}")
                self._remembered[key] = text
                remember[f"output.{key}"] = value
        for line in calls:  # after output's secrets are known: a call may carry what output now holds
            log.info("http %s", line)
        return Taken(logs, calls, seconds, remember, tuple(secret))


def script_step(
    command: str,
    node: FlowStep | None,
    position: SourcePosition,
    flow: str,
    number: int,
    *,
    taken: Taken,
    on_failure: OnFailure,
    file: str | None = None,
    value: str | None = None,
    error: HarnessError | None = None,
) -> PlannedStep:
    """The ``script`` step that records what a command's JavaScript did (``error``: why it failed)."""
    args: dict[str, Any] = {"command": command, "file": file or position.file}
    if value is not None:
        args["value"] = value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"
    if taken.logs:
        more = len(taken.logs) - MAX_LOG_LINES
        args["logs"] = list(taken.logs[:MAX_LOG_LINES]) + ([f"({more} more lines)"] if more > 0 else [])
    if taken.http:
        args["http"] = list(taken.http)
    args["seconds"] = round(taken.seconds, 4)
    if error is not None:
        args["error"] = recorded_error(error)
    args.update(taken.args())
    shown = node.shown if node is not None else command
    label = f" ({node.label})" if node is not None and node.label else ""
    return PlannedStep(
        "script",
        args,
        rationale=f"{position}: `{shown}` as written in the flow{label}",
        purpose=(node.label if node is not None and node.label else None) or f"flow {flow} step {number}",
        expected_outcome="unchanged",  # nothing is sent to the device
        on_failure=on_failure,
    )
