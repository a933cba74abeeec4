"""``LLMPlanner``: a language model decides each step, through OpenAI-compatible chat completions.

It implements :class:`amc.runtime.planner.Planner`. Each turn it sends one request (see
:mod:`amc.agent.prompt`: the goal, the world state with its history and rationales, the
compact screen) offering one function tool per executor action, with the names and arguments
of the MCP tools (:func:`amc.agent.tools.action_tools`), plus ``done(summary)``; and it
turns the first tool call of the reply into a PlannedStep, the call's ``rationale``,
``thinking``, ``purpose`` and ``expected_outcome`` going onto the step and so, through the world
model, into the next request. It speaks to any server that implements ``/v1/chat/completions``
with tools (OpenAI, vLLM, Ollama, llama.cpp's server) through the official ``openai`` client.

The reply is hostile input. A reply that cannot be used — no tool call, an unknown tool,
arguments that are not a JSON object or that the tool does not take — is never raised: the
planner hands out a ``reply_error`` step, which the agent executor
(:func:`amc.agent.guard.agent_executor`) records as a failed step of kind ``ModelReplyError``
whose error the next request shows; the loop's ``max_consecutive_failures`` and ``max_steps``
bound how often the model is asked again. A server that does not answer (unreachable, a timeout,
an HTTP error, a body that is no completion) is not the model's doing: after the planner's own
bounded retries (``max_retries``, :data:`DEFAULT_RETRIES`; each one said to ``on_retry``, which
``amc agent`` prints and writes to the timeline) the planner raises
``ModelServerError`` ("the model server at URL did not answer: …"), which ends the task with
status ``infrastructure_error`` (exit 3) and records no step. The values of the arguments are the
executor's to check, as for any step.

It uses the world: a ``launch_app`` of the app that the world and the screen both show in front
is handed out as a ``skip`` step saying so (the rule flows follow). With ``allowed_apps`` it
stops the task (``GuardrailViolation``, status ``failed``) once the device has shown an app
outside them after two steps in a row; the agent executor refuses the launches themselves.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import openai

from ..core import stop
from ..core.errors import GuardrailViolation, Interrupted, ModelServerError, ReplyTooLarge, StepArgumentError
from ..core.models import PlannedStep
from ..core.steps import StepRecord
from ..flows.planner import skip_instead
from ..semantic.models import Observation
from ..world.models import WorldState
from .bounded_http import bounded_client
from .guard import REPLY_ERROR, outside_allowed
from .prompt import DEFAULT_HISTORY, request_messages
from .screen import DEFAULT_LIMIT
from .tools import DONE, LLM_REASON_FIELDS, MAX_REASON, ToolSpec, action_tools, openai_tools, step_from_call

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "NO_KEY", "LLMPlanner"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 60.0
# The planner's own bounded retries of a request the server failed (no answer in time, connection
# refused, 408, 409, 429, 5xx: what the ``openai`` client itself would retry, which is given no retries
# so that each is said), after a pause doubling from RETRY_PAUSE; a request that still fails stops
# the task as an infrastructure error.
DEFAULT_RETRIES = 1
RETRY_PAUSE = 0.5
RETRIED_STATUS = frozenset({408, 409, 429})
MAX_ARGUMENTS = 20_000  # characters of a tool call's arguments; longer is a bad reply
SHOWN = 300  # characters of a bad reply kept in the step that records it
NO_KEY = "no-key"  # sent when no key is set: local servers ignore it, as Ollama's docs show
OUTSIDE_IN_A_ROW = 2


def _cut(text: str, limit: int = SHOWN) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LLMPlanner:
    """Plans with ``model`` on ``client`` (an ``openai.OpenAI``; see :meth:`connect`).

    ``allowed_apps`` (optional) are the apps the task may use; ``max_steps`` is only shown to the
    model. ``summary`` holds what the model said when it called ``done``.
    """

    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        *,
        allowed_apps: Collection[str] = (),
        max_steps: int | None = None,
        max_history: int = DEFAULT_HISTORY,
        max_elements: int = DEFAULT_LIMIT,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("LLMPlanner needs the model's name")
        self.client = client
        self.model = model
        self.allowed_apps = frozenset(allowed_apps)
        self.max_steps = max_steps
        self.max_history = max_history
        self.max_elements = max_elements
        self.tools: tuple[ToolSpec, ...] = action_tools()
        self._by_name = {spec.name: spec for spec in self.tools}
        self._offered = openai_tools([*self.tools, DONE])
        self.summary: str | None = None
        self.requests = 0
        # Asking again after a request the server failed (connect() sets it; a client built by the
        # caller keeps its own retries), and who is told of each retry (a line for the user).
        self.retries = 0
        self.on_retry: Callable[[str], None] | None = None

    @classmethod
    def connect(
        cls,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        **options: Any,
    ) -> LLMPlanner:
        """A planner on the server at ``base_url`` (``…/v1``); builds the client, sends nothing. A
        query in the URL (``?api-key=…``, as Azure-style gateways take the key) is sent with every
        request, not glued before the path the client adds."""
        parts = urlsplit(base_url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        shown = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment=""))
        client = openai.OpenAI(
            base_url=urlunsplit(parts._replace(query="", fragment="")),
            api_key=api_key or NO_KEY,
            timeout=timeout,
            max_retries=0,  # the planner retries itself, and says so (_ask)
            default_query=query or None,
            http_client=bounded_client(shown, seconds=timeout),  # every reply bounded in time and size
        )
        planner = cls(client, model, **options)
        planner.retries = max_retries
        return planner

    @property
    def offered(self) -> list[dict[str, Any]]:
        """The function tools every request offers."""
        return self._offered

    # --- the turn ------------------------------------------------------------------------------

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        self._stop_outside_allowed(steps)
        messages = request_messages(
            goal=goal,
            observation=observation,
            world=world,
            steps=steps,
            allowed_apps=self.allowed_apps,
            max_steps=self.max_steps,
            max_history=self.max_history,
            max_elements=self.max_elements,
        )
        completion = self._ask(messages)
        step = self._step_from(completion)
        if step is None:
            return []
        return [skip_instead(step, observation.scene, world)]

    def _ask(self, messages: list[dict[str, Any]]) -> Any:
        """The completion for ``messages``: asked again (at most ``retries`` times, each said to
        ``on_retry``) when the server did not answer in a way worth asking again; with a stop request
        in force (Ctrl-C, :mod:`amc.core.stop`) the request runs on a thread of its own and is given
        up as soon as it is set (``Interrupted``; a request given up is never asked again)."""
        attempt = 0
        while True:
            attempt += 1
            self.requests += 1
            try:
                return self._request(messages)
            except _Failed as failed:
                if not failed.again or attempt > self.retries:
                    raise self._server_failed(failed.problem) from failed.__cause__
                pause = RETRY_PAUSE * 2 ** (attempt - 1)
                said = (
                    f"the model server at {self.url} did not answer: {failed.problem}; "
                    f"asking again in {pause:g} s (retry {attempt} of {self.retries})"
                )
                log.info("%s", said)  # run.log; on_retry says it on the console
                if self.on_retry is not None:
                    self.on_retry(said)
                stop.sleep(pause, "while waiting to ask the model server again")

    def _request(self, messages: list[dict[str, Any]]) -> Any:
        """One request; ``_Failed`` saying what went wrong and whether asking again may help."""
        create = self.client.chat.completions.create
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "tools": self._offered,
            "tool_choice": "auto",
        }
        try:
            if stop.current() is None:
                return create(**kwargs)
            future: Future[Any] = Future()
            threading.Thread(target=_fill, args=(future, create, kwargs), name="amc-llm", daemon=True).start()
            return stop.result(future, "while the model server was asked (its answer is not waited for)")
        except Interrupted:
            raise
        except ReplyTooLarge as exc:  # the bounded client's own refusal, as it reads the body
            raise _Failed(exc.message, again=False) from exc
        except openai.APITimeoutError as exc:
            raise _Failed(f"no answer in time: {_timed_out(exc, self.client)}", again=True) from exc
        except openai.APIStatusError as exc:
            again = exc.status_code in RETRIED_STATUS or exc.status_code >= 500
            raise _Failed(f"HTTP {exc.status_code}: {_cut(str(exc))}", again=again) from exc
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, ReplyTooLarge):  # the bounded client's own refusal
                raise _Failed(exc.__cause__.message, again=False) from exc
            cause = f" ({_cut(str(exc.__cause__), 120)})" if exc.__cause__ is not None else ""
            raise _Failed(f"{_cut(str(exc)).rstrip('.')}{cause}", again=True) from exc
        except Exception as exc:  # a body the client could not read as a completion
            log.warning("the chat completions request failed: %s: %s", type(exc).__name__, exc)
            raise _Failed(f"{type(exc).__name__}: {_cut(str(exc))}", again=False) from exc

    def _server_failed(self, problem: str) -> ModelServerError:
        """The task-stopping error for a request the server did not answer (never the model's)."""
        return ModelServerError(
            f"the model server at {self.url} did not answer: {problem}",
            hint="check that the server runs and --llm-url points at it (up to /v1); the model was not asked",
        )

    @property
    def url(self) -> str:
        """The server's base URL, as the client sends requests to it."""
        return str(self.client.base_url).rstrip("/")

    def _stop_outside_allowed(self, steps: Sequence[StepRecord]) -> None:
        recent = steps[-OUTSIDE_IN_A_ROW:]
        if len(recent) < OUTSIDE_IN_A_ROW or not all(
            outside_allowed(r.foreground_app, self.allowed_apps) for r in recent
        ):
            return
        app = recent[-1].foreground_app
        raise GuardrailViolation(
            f"the device has shown {app}, outside the allowed apps ({', '.join(sorted(self.allowed_apps))}), "
            f"after {OUTSIDE_IN_A_ROW} steps in a row; the task stops",
            hint="allow the app with --allow-app, or check what opened it in the run folder",
        )

    # --- reading the reply ---------------------------------------------------------------------

    def _step_from(self, completion: Any) -> PlannedStep | None:
        """The step the reply asks for; None for ``done``; a ``reply_error`` step for a bad reply."""
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            return _reply_error("the reply had no choices")
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        said = content.strip() if isinstance(content, str) else ""
        calls = getattr(message, "tool_calls", None)
        if not isinstance(calls, list) or not calls:
            return _reply_error(
                "the reply called no tool" + (f"; it said: {_cut(said)}" if said else ""),
            )
        if len(calls) > 1:
            log.warning("the reply had %d tool calls; only the first is run", len(calls))
        function = getattr(calls[0], "function", None)
        name = getattr(function, "name", None)
        raw = getattr(function, "arguments", None)
        if not isinstance(name, str) or not name:
            return _reply_error("the tool call names no tool")
        if isinstance(raw, dict):
            arguments: Any = raw  # a server that sends the object itself
        elif isinstance(raw, str):
            if len(raw) > MAX_ARGUMENTS:
                return _reply_error(f"the arguments of {name} are {len(raw)} characters long", tool=name)
            try:
                arguments = json.loads(raw) if raw.strip() else {}
            except (ValueError, RecursionError) as exc:
                return _reply_error(f"the arguments of {name} are not JSON ({exc})", tool=name, arguments=raw)
        else:
            return _reply_error(f"the tool call of {name} has no arguments string", tool=name)
        if not isinstance(arguments, dict):
            return _reply_error(
                f"the arguments of {name} must be a JSON object, got {type(arguments).__name__}",
                tool=name,
                arguments=str(raw),
            )
        if name == DONE.name:
            return self._done(arguments, raw)
        spec = self._by_name.get(name)
        if spec is None:
            known = ", ".join([*self._by_name, DONE.name])
            return _reply_error(f"there is no tool {name!r}; the tools are: {known}", tool=name)
        try:
            step = step_from_call(spec, arguments, LLM_REASON_FIELDS)
        except StepArgumentError as exc:
            return _reply_error(exc.message, tool=name, arguments=str(raw))
        if step.thinking is None and said:  # a model that reasons in its text: keep it with the step
            step = dataclasses.replace(step, thinking=said[:MAX_REASON])
        return step

    def _done(self, arguments: dict[str, Any], raw: Any) -> PlannedStep | None:
        summary = arguments.get("summary")
        unknown = sorted(k for k in arguments if k != "summary" and k not in LLM_REASON_FIELDS)
        if not isinstance(summary, str) or not summary.strip() or unknown:
            return _reply_error(
                "done takes one argument, summary: the text of what was done (or why it cannot be)",
                tool=DONE.name,
                arguments=str(raw),
            )
        self.summary = summary[:MAX_REASON]
        return None


class _Failed(Exception):
    """Internal: one request the server did not answer (``again``: asking again may help)."""

    def __init__(self, problem: str, *, again: bool) -> None:
        super().__init__(problem)
        self.problem, self.again = problem, again


def _fill(future: Future[Any], call: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    """Run ``call(**kwargs)`` into ``future`` (on the request's own thread)."""
    try:
        future.set_result(call(**kwargs))
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, which raises it
        future.set_exception(exc)


def _timed_out(exc: BaseException, client: Any) -> str:
    """What ran out: the reply's deadline (the client's timeout, for the whole reply)."""
    seconds = getattr(client, "timeout", None)
    limit = f"no whole reply within {seconds:g} s" if isinstance(seconds, int | float) else "no reply"
    return f"{limit} ({exc})"


def _reply_error(problem: str, *, tool: str | None = None, arguments: str | None = None) -> PlannedStep:
    args: dict[str, Any] = {"problem": problem}
    if tool is not None:
        args["tool"] = _cut(tool, 100)
    if arguments is not None:
        args["arguments"] = _cut(arguments)
    log.info("unusable model reply: %s", problem)
    return PlannedStep(REPLY_ERROR, args, expected_outcome="the model answers with one offered tool")
