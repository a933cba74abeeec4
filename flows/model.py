"""Validated flow values: what a flow file asks for, and where in the file it asks it.

The loader (:mod:`amc.flows.loader`) builds these from YAML; nothing here reads files. A
:class:`FlowStep` keeps the executor arguments it will run with, except the app ID of app steps,
which is chosen per platform (:class:`AppRef`) when the flow is turned into ``PlannedStep`` s for
one device.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..actions import flow_commands
from ..core.errors import FlowError
from ..core.models import OnFailure, PlannedStep, Platform
from ..core.steps import describe_step
from .conditions import Combined, Condition, Script, Seen

__all__ = [
    "APP_COMMANDS",
    "BLOCK_COMMANDS",
    "COMMANDS",
    "DEFAULT_TIMEOUTS",
    "MAX_PLANNED",
    "AppRef",
    "Bindings",
    "Flow",
    "FlowStep",
    "FlowValidationError",
    "Node",
    "Repeat",
    "Retry",
    "RunFlow",
    "ScriptCommand",
    "SourcePosition",
    "Template",
]

# The commands a flow may use (each an action's, in the actions' order) and the blocks; the actions
# say everything else about each command (amc.actions: its arguments, short form, default wait).
COMMANDS: tuple[str, ...] = tuple(flow_commands())
# Commands that hold other steps (read by the loader, run by the planner, never by the executor).
BLOCK_COMMANDS: tuple[str, ...] = ("run_flow", "repeat", "retry")
# Commands whose app is chosen per platform when the flow is planned for a device.
APP_COMMANDS = frozenset(
    command for command, action in flow_commands().items() if (p := action.param("app_id")) and p.required
)
# How long a step that waits for the screen waits when neither the step nor the flow's
# `defaults: {timeout: …}` says: the action's own default.
DEFAULT_TIMEOUTS: Mapping[str, float] = MappingProxyType(
    {command: action.waits for command, action in flow_commands().items() if action.waits is not None}
)
MAX_PLANNED = 100_000  # the most steps one flow run may execute (repeats and retries included)
# A ``${...}`` that is more than a variable's name: JavaScript (Maestro's interpolation, models/util/Env.kt).
_SCRIPT = re.compile(r"(?<!\\)\$\{(?!\s*[A-Za-z_][A-Za-z0-9_]*\s*\})[^$]*\}")


@dataclass(frozen=True)
class SourcePosition:
    """A place in a flow file; ``line`` and ``column`` count from 1."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def error(self, message: str, hint: str | None = None) -> FlowError:
        return FlowError(message, file=self.file, line=self.line, column=self.column, hint=hint)


class FlowValidationError(FlowError):
    """A flow file with one or more problems. The message is the first; ``problems`` has them all."""

    def __init__(self, problems: tuple[FlowError, ...]) -> None:
        if not problems:
            raise ValueError("FlowValidationError needs at least one problem")
        first = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        super().__init__(first.message + more, hint=first.hint)
        self.file, self.line, self.column = first.file, first.line, first.column
        self.problems = problems


@dataclass(frozen=True)
class AppRef:
    """An app named per platform (``{android: …, ios: …}``) or once for every platform."""

    by_platform: Mapping[str, str] = field(default_factory=dict)
    default: str | None = None

    def for_platform(self, platform: str) -> str | None:
        return self.by_platform.get(platform, self.default)

    @property
    def platforms(self) -> frozenset[str]:
        """The platforms this reference names an app for."""
        if self.default is not None:
            return frozenset({"android", "ios"})
        return frozenset(self.by_platform)

    def describe(self) -> str:
        if self.default is not None:
            return self.default
        return " / ".join(f"{p}: {a}" for p, a in sorted(self.by_platform.items()))


# An ``env`` block of a Maestro flow: (name, value as written), every value read before any is bound.
Bindings = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Template:
    """A Maestro command whose values JavaScript computes (a ``${...}`` that is not a variable known
    when the flow is read): its value as written (``node``, the YAML node), read again when the step
    runs, with every ``${...}`` evaluated then (:mod:`amc.flows.maestro.templates`)."""

    command: str
    node: Any = field(compare=False, repr=False)
    app_id: str | None = None
    base: str = "."


@dataclass(frozen=True)
class ScriptCommand:
    """Maestro's ``evalScript`` / ``assertTrue`` (``text``: the expression as written) or
    ``runScript`` (``text``: the file as written; ``file``: its path and ``source``: its content,
    both read with the flow; ``env``: its variables as written)."""

    command: str
    text: str
    file: str | None = None
    source: str = field(default="", repr=False, compare=False)
    env: Bindings = ()
    line: int = 0  # where ``text`` starts in the flow file (0: at the command)
    column: int = 0


def _app_arg(args: Mapping[str, Any]) -> str | None:
    app = args.get("app_id")
    return app if isinstance(app, str) else None


def _expected_outcome(command: str, args: Mapping[str, Any], app: str | None) -> str:
    """What a person should see after the step, in words (secrets never appear: see describe_step)."""
    target = describe_step(command, args)
    outcomes = {
        "launch_app": f"{app} is in the foreground",
        "terminate_app": f"{app} is no longer running",
        "tap": f"{target} was tapped",
        "long_press": f"{target} was touched and held",
        "type_text": f"{target} was typed",
        "swipe": f"the screen was swiped ({target})",
        "press": f"the {target} key was pressed",
        "wait_for": f"{target} appears within {args.get('timeout')} s",
        "assert_visible": f"{target} is on screen",
        "assert_not_visible": f"{target} is not on screen",
        "assert_app": f"{app} is in the foreground",
        "remember": f"the world model holds {target}",
        "screenshot": "a screenshot of the screen is saved",
        "scroll_until_visible": f"{target} was scrolled into view",
        "hide_keyboard": "the keyboard is hidden",
        "open_link": f"{args.get('url')} is open",
        "clear_state": f"{app}'s data is cleared",
    }
    return outcomes.get(command, f"{command} {target}")


@dataclass(frozen=True)
class FlowStep:
    """One validated command. ``number`` counts from 1 in file order within its list; ``args`` are
    executor arguments (without the app ID, which ``app`` holds per platform). ``args`` is left out
    of ``repr`` because a ``secret`` step's text is in it. ``optional``: a failure is a warning;
    ``when``: the step runs only if the condition holds (else it is recorded as skipped)."""

    number: int
    command: str
    position: SourcePosition
    args: Mapping[str, Any] = field(default_factory=dict, repr=False)
    app: AppRef | None = None
    optional: bool = False
    when: Condition | None = None
    # A Maestro step: its command as written (``tapOn: Sign in``), its ``label``, and why no backend
    # here can run it (a command without an action, JavaScript until it is wired), if so.
    written: str | None = None
    label: str | None = None
    unsupported: str | None = None
    # JavaScript: a command whose values a script computes (read again when it runs), or a script.
    template: Template | None = None
    script: ScriptCommand | None = None

    @property
    def shown(self) -> str:
        """The command as a report shows it: as written in a Maestro flow, else its name."""
        return self.written or self.command

    @property
    def secret(self) -> bool:
        return self.args.get("secret") is True

    def to_planned(self, flow_name: str, platform: str, *, on_failure: OnFailure = "fail") -> PlannedStep:
        """The ``PlannedStep`` for a device of ``platform``; a ``FlowError`` when the step names no app
        for that platform."""
        args = dict(self.args)
        app_id: str | None = None
        if self.app is not None:
            app_id = self.app.for_platform(platform)
            if app_id is None:
                raise self.position.error(
                    f"{self.command} names no app for {platform} (only for {self.app.describe()})",
                    hint=f"add `{platform}: APP_ID` to the step, or give one app ID as a plain string",
                )
            args["app_id"] = app_id
        label = f" ({self.label})" if self.label else ""
        return PlannedStep(
            self.command,
            args,
            rationale=f"{self.position}: `{self.shown}` as written in the flow{label}",
            purpose=self.label or f"flow {flow_name} step {self.number}",
            # a Maestro step names its app in its arguments (the header's appId), not as an AppRef
            expected_outcome=_expected_outcome(self.command, args, app_id or _app_arg(args)),
            on_failure=on_failure,
        )


@dataclass(frozen=True)
class RunFlow:
    """``run_flow``: another flow file's steps, read with its own ``env`` values."""

    number: int
    position: SourcePosition
    flow: Flow
    optional: bool = False
    when: Condition | None = None
    command: str = "run_flow"
    label: str | None = None
    unsupported: str | None = None


@dataclass(frozen=True)
class Repeat:
    """``repeat``: ``steps`` ``times`` times, or while ``condition`` holds, at most ``limit`` times."""

    number: int
    position: SourcePosition
    steps: tuple[Node, ...]
    limit: int
    condition: Condition | None = None
    optional: bool = False
    when: Condition | None = None
    command: str = "repeat"
    label: str | None = None
    unsupported: str | None = None
    times_text: str | None = None  # ``times`` as written, when JavaScript computes it (when it runs)


@dataclass(frozen=True)
class Retry:
    """``retry``: ``steps``, run again after a failure, at most ``times`` more times."""

    number: int
    position: SourcePosition
    steps: tuple[Node, ...]
    times: int
    optional: bool = False
    when: Condition | None = None
    command: str = "retry"
    label: str | None = None
    unsupported: str | None = None
    times_text: str | None = None  # ``maxRetries`` as written, when JavaScript computes it


Node = FlowStep | RunFlow | Repeat | Retry


def leaves(nodes: tuple[Node, ...]) -> Iterator[FlowStep]:
    """Every command of ``nodes``, blocks and subflows (with their hooks) opened, in file order."""
    for node in nodes:
        if isinstance(node, FlowStep):
            yield node
        elif isinstance(node, RunFlow):
            yield from leaves(node.flow.on_start + node.flow.steps + node.flow.on_complete)
        else:
            yield from leaves(node.steps)


def uses_javascript(node: Node) -> bool:
    """Whether ``node`` (its blocks and subflows opened) runs JavaScript."""
    if node.when is not None and _has_script(node.when):
        return True
    if isinstance(node, FlowStep):
        return node.template is not None or node.script is not None
    if isinstance(node, RunFlow):
        return node.flow.scripted
    if node.times_text is not None:
        return True
    if isinstance(node, Repeat) and node.condition is not None and _has_script(node.condition):
        return True
    return any(uses_javascript(child) for child in node.steps)


def _has_script(condition: Condition) -> bool:
    """Whether checking ``condition`` runs JavaScript (a ``true:``, a selector with ``${...}``)."""
    if isinstance(condition, Script):
        return True
    if isinstance(condition, Seen):
        return "${" in repr(condition.selector)
    if isinstance(condition, Combined):
        return any(_has_script(part) for part in condition.parts)
    return False


def count(nodes: tuple[Node, ...], *, most: bool) -> int | None:
    """How many steps running ``nodes`` executes: exactly (``most`` False; None when conditions or
    retries make it unknown) or at most (``most`` True)."""
    total = 0
    for node in nodes:
        if isinstance(node, FlowStep):
            n: int | None = 1
        elif isinstance(node, RunFlow):
            n = count(node.flow.on_start + node.flow.steps + node.flow.on_complete, most=most)
        elif isinstance(node, Repeat):
            inner = count(node.steps, most=most)
            n = None if inner is None or (node.condition is not None and not most) else inner * node.limit
        else:
            inner = count(node.steps, most=most)
            n = None if inner is None or not most else inner * (node.times + 1)
        if n is None or (node.when is not None and not most):
            return None
        total += n
    return total


@dataclass(frozen=True)
class Flow:
    """A validated flow file. ``secrets`` holds every value the flow (and the flows it runs) marks
    secret (typed or remembered with ``secret: true``) so that records of a run can hide them; it
    is never shown. ``tags`` select flows on the command line; ``default_timeout`` is the
    ``defaults: {timeout: …}`` its steps were read with."""

    name: str
    path: str
    steps: tuple[Node, ...]
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    platform: Platform | None = None
    description: str | None = None
    secrets: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    tags: tuple[str, ...] = ()
    default_timeout: float | None = None
    # A Maestro flow: its dialect, its header's appId, the steps of its onFlowStart / onFlowComplete
    # hooks (run before the steps, and after them even when they failed) and what its check noted
    # (warnings: nothing stops the run).
    dialect: str = "amc"
    app_id: str | None = None
    on_start: tuple[Node, ...] = ()
    on_complete: tuple[Node, ...] = ()
    notes: tuple[FlowError, ...] = field(default=(), compare=False)
    # A Maestro flow's variables: the env blocks bound when it starts (a runFlow's, then its
    # header's), and, for the flow a run starts with, the variables it starts from (``--env``, the
    # environment, Maestro's own) and those its scripts do not see (the process environment's own).
    bindings: tuple[Bindings, ...] = ()
    variables: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    hidden: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    @property
    def scripted(self) -> bool:
        """Whether running the flow runs JavaScript (a script, a ``${...}``, a condition or count)."""
        return any(uses_javascript(node) for node in self.every_step) or any(
            _SCRIPT.search(value) for block in self.bindings for _, value in block
        )

    @property
    def default_platform(self) -> Platform:
        """The platform the flow says, else the one its app steps allow if only one, else android."""
        if self.platform is not None:
            return self.platform
        allowed = {"android", "ios"}
        for step in leaves(self.steps):
            if step.app is not None:
                allowed &= step.app.platforms
        return "ios" if allowed == {"ios"} else "android"

    @property
    def every_step(self) -> tuple[Node, ...]:
        """The hooks' steps and the flow's, in the order they run."""
        return self.on_start + self.steps + self.on_complete

    @property
    def total(self) -> int | None:
        """How many steps a run executes, when the flow says it exactly (no condition, no retry)."""
        return count(self.every_step, most=False)

    @property
    def most_steps(self) -> int:
        """The most steps a run may execute (every repeat and retry to its limit), capped."""
        return min(MAX_PLANNED, count(self.every_step, most=True) or 1)

    def planned_steps(self, platform: str) -> tuple[PlannedStep, ...]:
        """Every command as a ``PlannedStep`` for ``platform`` (blocks opened once, in file order);
        the first that cannot run there raises a ``FlowError`` naming its line, before anything runs."""
        return tuple(
            step.to_planned(self.name, platform)
            for step in leaves(self.every_step)
            if step.unsupported is None
        )
