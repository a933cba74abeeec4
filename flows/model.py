"""Validated flow values: what a flow file asks for, and where in the file it asks it.

The loader (:mod:`amc.flows.loader`) builds these from YAML; nothing here reads files. A
:class:`FlowStep` keeps the executor arguments it will run with, except the app ID of app steps,
which is chosen per platform (:class:`AppRef`) when the flow is turned into ``PlannedStep`` s for
one device.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..actions import flow_commands
from ..core.errors import FlowError
from ..core.models import OnFailure, PlannedStep, Platform
from ..core.steps import describe_step
from .conditions import Condition

__all__ = [
    "APP_COMMANDS",
    "BLOCK_COMMANDS",
    "COMMANDS",
    "DEFAULT_TIMEOUTS",
    "MAX_PLANNED",
    "AppRef",
    "Flow",
    "FlowStep",
    "FlowValidationError",
    "Node",
    "Repeat",
    "Retry",
    "RunFlow",
    "SourcePosition",
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
        return PlannedStep(
            self.command,
            args,
            rationale=f"{self.position}: `{self.command}` as written in the flow",
            purpose=f"flow {flow_name} step {self.number}",
            expected_outcome=_expected_outcome(self.command, args, app_id),
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


Node = FlowStep | RunFlow | Repeat | Retry


def leaves(nodes: tuple[Node, ...]) -> Iterator[FlowStep]:
    """Every command of ``nodes``, blocks and subflows opened, in file order."""
    for node in nodes:
        if isinstance(node, FlowStep):
            yield node
        elif isinstance(node, RunFlow):
            yield from leaves(node.flow.steps)
        else:
            yield from leaves(node.steps)


def count(nodes: tuple[Node, ...], *, most: bool) -> int | None:
    """How many steps running ``nodes`` executes: exactly (``most`` False; None when conditions or
    retries make it unknown) or at most (``most`` True)."""
    total = 0
    for node in nodes:
        if isinstance(node, FlowStep):
            n: int | None = 1
        elif isinstance(node, RunFlow):
            n = count(node.flow.steps, most=most)
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
    def total(self) -> int | None:
        """How many steps a run executes, when the flow says it exactly (no condition, no retry)."""
        return count(self.steps, most=False)

    @property
    def most_steps(self) -> int:
        """The most steps a run may execute (every repeat and retry to its limit), capped."""
        return min(MAX_PLANNED, count(self.steps, most=True) or 1)

    def planned_steps(self, platform: str) -> tuple[PlannedStep, ...]:
        """Every command as a ``PlannedStep`` for ``platform`` (blocks opened once, in file order);
        the first that cannot run there raises a ``FlowError`` naming its line, before anything runs."""
        return tuple(step.to_planned(self.name, platform) for step in leaves(self.steps))
