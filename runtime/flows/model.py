"""Validated flow values: what a flow file asks for, and where in the file it asks it.

The loader (:mod:`runtime.flows.loader`) builds these from YAML; nothing here reads files. A
:class:`FlowStep` keeps the executor arguments it will run with, except the app ID of app steps,
which is chosen per platform (:class:`AppRef`) when the flow is turned into ``PlannedStep`` s for
one device.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import FlowError
from ...core.models import PlannedStep, Platform
from ...core.steps import describe_step

__all__ = [
    "APP_COMMANDS",
    "COMMANDS",
    "DEFAULT_TIMEOUTS",
    "AppRef",
    "Flow",
    "FlowStep",
    "FlowValidationError",
    "SourcePosition",
]

# The commands a flow may use, in the order the docs list them.
COMMANDS: tuple[str, ...] = (
    "launch_app",
    "terminate_app",
    "tap",
    "long_press",
    "type_text",
    "swipe",
    "press",
    "wait_for",
    "assert_visible",
    "assert_not_visible",
    "assert_app",
    "remember",
    "screenshot",
)
APP_COMMANDS = frozenset({"launch_app", "terminate_app", "assert_app"})

# Bounded polls: how long a step waits for the screen when the flow does not say.
DEFAULT_TIMEOUTS: Mapping[str, float] = {
    "wait_for": 10.0,
    "assert_visible": 3.0,
    "assert_not_visible": 3.0,
    "assert_app": 3.0,
}


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
    }
    return outcomes.get(command, f"{command} {target}")


@dataclass(frozen=True)
class FlowStep:
    """One validated step. ``number`` counts from 1 in file order; ``args`` are executor arguments
    (without the app ID, which ``app`` holds per platform). ``args`` is left out of ``repr`` because
    a ``secret`` step's text is in it."""

    number: int
    command: str
    position: SourcePosition
    args: Mapping[str, Any] = field(default_factory=dict, repr=False)
    app: AppRef | None = None

    @property
    def secret(self) -> bool:
        return self.args.get("secret") is True

    def to_planned(self, flow_name: str, platform: str) -> PlannedStep:
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
        )


@dataclass(frozen=True)
class Flow:
    """A validated flow file. ``secrets`` holds every value the flow marks secret (typed or
    remembered with ``secret: true``) so that records of a run can hide them; it is never shown."""

    name: str
    path: str
    steps: tuple[FlowStep, ...]
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    platform: Platform | None = None
    description: str | None = None
    secrets: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    @property
    def default_platform(self) -> Platform:
        """The platform the flow says, else the one its app steps allow if only one, else android."""
        if self.platform is not None:
            return self.platform
        allowed = {"android", "ios"}
        for step in self.steps:
            if step.app is not None:
                allowed &= step.app.platforms
        return "ios" if allowed == {"ios"} else "android"

    def planned_steps(self, platform: str) -> tuple[PlannedStep, ...]:
        """Every step as a ``PlannedStep`` for ``platform``; the first step that cannot run there
        raises a ``FlowError`` naming its line, before anything runs."""
        return tuple(step.to_planned(self.name, platform) for step in self.steps)
