"""One description of what an agent can do, generated from the executor's action table.

The MCP server's tools, the LLM planner's function tools and the action reference in
``docs/planners.md`` all come from :func:`action_tools`, which reads
:data:`amc.runtime.executor.ACTIONS`: an action added to the table becomes a tool everywhere,
with the same name and arguments, and none can drift from another. What the table does not say
(what each argument means and its JSON type) is said once, per argument name, in
:data:`ARGUMENTS`; a test fails when an action takes an argument described nowhere.

A tool shows the one spelling of each argument: ``app_id`` (not the ``bundle_id`` / ``package``
aliases flows accept) and ``target`` (a selector, not the selector fields inline). Acting tools
also take the reasons a planner gives (:data:`REASON_FIELDS`), which go onto the PlannedStep and
so into the world history. :func:`read_call` checks a call's arguments (refusing one the tool
does not show) and :func:`step_from_call` turns an action tool's call into a PlannedStep; the
executor then checks every value as it checks a flow's.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType, NoneType, UnionType
from typing import Any

from ..core.errors import StepArgumentError
from ..core.limits import check_structure
from ..core.models import PlannedStep
from ..core.selectors import Selector
from ..core.steps import APP_ID_KEYS, SELECTOR_KEYS
from ..drivers.base import KEYS, MAX_GESTURE
from ..runtime.executor import ACTIONS, MAX_SWIPES, MAX_WAIT, SWIPE_DIRECTIONS, Action

__all__ = [
    "ARGUMENTS",
    "DONE",
    "LLM_REASON_FIELDS",
    "PLANNER_ONLY",
    "REASON_FIELDS",
    "SELECTOR_FIELDS",
    "SESSION_TOOLS",
    "Argument",
    "Call",
    "ToolSpec",
    "action_tools",
    "mcp_tools",
    "openai_tools",
    "read_call",
    "selector_schema",
    "step_from_call",
    "undescribed_arguments",
]

# The reasons every acting tool takes (MCP and LLM alike); the LLM tools also take ``thinking``.
REASON_FIELDS: tuple[str, ...] = ("rationale", "purpose", "expected_outcome")
LLM_REASON_FIELDS: tuple[str, ...] = ("thinking", *REASON_FIELDS)
MAX_REASON = 2000  # the world history keeps this much of each reason

# Kept short: these go into every acting tool's schema, on every request the LLM planner sends.
_REASONS: Mapping[str, str] = {
    "rationale": "why this step (shown back next turn)",
    "thinking": "your reasoning (optional)",
    "purpose": "what the step is for in the task",
    "expected_outcome": "what the screen should show after it",
}

# Executor actions no tool offers: ``skip`` records a step a planner decided not to send (the
# LLM planner writes it itself when the world shows the app already in front).
PLANNER_ONLY = frozenset({"skip"})

# What a selector field means, said once in the selector's schema (it is in several tools).
SELECTOR_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        "text": "exact text",
        "text_contains": "a substring of it",
        "text_regex": "a regex searched in it",
        "id": "resource-id or accessibility id",
        "label": "content-desc or accessibility label",
        "type": "e.g. Button",
        "index": "the n-th match, from 0",
        "enabled": "enabled or not",
        "visible": "visible (default) or hidden",
        "xpath": "XPath over the screen",
    }
)


def _json_type(annotation: Any) -> str:
    """The JSON type of a selector field, from its annotation (``str | None`` -> ``string``)."""
    args = typing.get_args(annotation) if isinstance(annotation, UnionType) else (annotation,)
    kinds = {str: "string", bool: "boolean", int: "integer", float: "number"}
    named = [kinds[a] for a in args if a is not NoneType and a in kinds]
    if len(named) != 1:
        raise TypeError(f"selector field annotation {annotation!r} has no single JSON type")
    return named[0]


def selector_schema(description: str) -> dict[str, Any]:
    """The JSON schema of a selector: a bare string (its text) or a mapping of the fields of
    :class:`~amc.core.selectors.Selector`, read from the dataclass itself."""
    hints = typing.get_type_hints(Selector)
    names = [f.name for f in fields(Selector)]
    properties = {name: {"type": _json_type(hints[name])} for name in names}
    meaning = "; ".join(f"{name}: {SELECTOR_FIELDS[name]}" for name in names if name in SELECTOR_FIELDS)
    return {
        "description": description,
        "anyOf": [
            {"type": "string", "description": "the element's exact text"},
            {
                "type": "object",
                "description": f"fields, all of which must match ({meaning})",
                "properties": properties,
                "additionalProperties": False,
                "minProperties": 1,
            },
        ],
    }


@dataclass(frozen=True)
class Argument:
    """What one argument name means wherever an action takes it: its JSON schema (with its
    description) and, per action, whether it is required."""

    schema: Mapping[str, Any]
    required_by: frozenset[str] = frozenset()


def _text(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **more}


def _number(description: str, minimum: float | None = None, maximum: float | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


_SELECTOR_WANTED = frozenset({"wait_for", "assert_visible", "assert_not_visible", "scroll_until_visible"})
_COORDINATE = "in screen pixels, as element bounds are"

ARGUMENTS: Mapping[str, Argument] = MappingProxyType(
    {
        "app_id": Argument(
            _text("the app: Android package or iOS bundle id (com.android.settings)"),
            frozenset({"launch_app", "terminate_app", "assert_app", "clear_state"}),
        ),
        "target": Argument(
            selector_schema('the element: the `target` the screen lists for it, e.g. {"text": "Wi-Fi"}'),
            _SELECTOR_WANTED,
        ),
        "x": Argument(_number(f"x {_COORDINATE}; with y, instead of target")),
        "y": Argument(_number(f"y {_COORDINATE}; with x, instead of target")),
        "duration": Argument(_number("seconds to hold or to take", 0, MAX_GESTURE)),
        "text": Argument(
            _text("the text to type (into target when given, else the focused field)"),
            frozenset({"type_text"}),
        ),
        "secret": Argument(
            {"type": "boolean", "description": "true hides the typed text or remembered values as ***"}
        ),
        "direction": Argument(
            _text("swipe this way (scroll_until_visible: scroll this way)", enum=list(SWIPE_DIRECTIONS))
        ),
        "max_swipes": Argument(_number("at most this many swipes", 0, MAX_SWIPES)),
        "url": Argument(_text("the link to open (https://…, myapp://…)"), frozenset({"open_link"})),
        "x1": Argument(_number(f"start x {_COORDINATE}; instead of direction")),
        "y1": Argument(_number(f"start y {_COORDINATE}")),
        "x2": Argument(_number(f"end x {_COORDINATE}")),
        "y2": Argument(_number(f"end y {_COORDINATE}")),
        "key": Argument(_text("the key to press", enum=list(KEYS)), frozenset({"press"})),
        "name": Argument(_text("a name for the picture in the run folder")),
        "timeout": Argument(_number("seconds to keep looking before failing", 0, MAX_WAIT)),
        "interval": Argument(_number("seconds between two looks", 0, MAX_WAIT)),
        "remember": Argument(
            {
                "type": "object",
                "description": "variables to keep in the world model, name -> value",
                "minProperties": 1,
            },
            frozenset({"remember"}),
        ),
        "reason": Argument(_text("why the step was not needed")),
        "skipped": Argument(_text("the action that was not needed")),
    }
)

# The arguments flows share (``COMMON_KEYS``) that a tool shows: where they mean something.
_COMMON_SHOWN: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"remember": ("remember", "secret"), "type_text": ("secret",)}
)

# What a tool says beyond the table's one-line summary.
_NOTES: Mapping[str, str] = MappingProxyType(
    {
        "tap": "Give target (a selector) or x and y.",
        "long_press": "Give target (a selector) or x and y.",
        "swipe": "Give direction, or x1, y1, x2 and y2.",
        "launch_app": "An app that the world and the screen both show in front is not launched again.",
        "wait_for": "Looks again until target shows or timeout passes.",
        "scroll_until_visible": "Swipes, one look after each, until target shows.",
    }
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does, its arguments' JSON schemas and which are required.

    ``action`` is the executor action it runs (None for the MCP session tools, which act on the
    session rather than the device); ``acting`` tools take the reason fields.
    """

    name: str
    description: str
    properties: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    action: str | None = None
    idempotent: bool = False
    read_only: bool = False

    @property
    def acting(self) -> bool:
        return not self.read_only

    def input_schema(self, reasons: Sequence[str] = REASON_FIELDS) -> dict[str, Any]:
        """The JSON schema of the tool's arguments, with ``reasons`` added to an acting tool."""
        properties = {name: dict(schema) for name, schema in self.properties.items()}
        if self.acting:
            for reason in reasons:
                properties[reason] = {"type": "string", "description": _REASONS[reason]}
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def arguments(self, reasons: Sequence[str] = REASON_FIELDS) -> tuple[str, ...]:
        """Every argument name the tool takes, reasons included."""
        return (*self.properties, *(reasons if self.acting else ()))


def _shown_keys(name: str, action: Action) -> list[str]:
    keys = set(action.keys) | set(_COMMON_SHOWN.get(name, ()))
    keys -= set(APP_ID_KEYS[1:])  # app_id only
    if "target" in keys and keys >= SELECTOR_KEYS:
        keys -= SELECTOR_KEYS  # the selector under target only
    order = list(ARGUMENTS)

    def rank(key: str) -> tuple[bool, int, str]:  # required first, then as ARGUMENTS lists them
        argument = ARGUMENTS.get(key)
        required = argument is not None and name in argument.required_by
        return (not required, order.index(key) if key in order else len(order), key)

    return sorted(keys, key=rank)


def undescribed_arguments(actions: Mapping[str, Action] = ACTIONS) -> dict[str, list[str]]:
    """Per action, the arguments a tool would show that :data:`ARGUMENTS` does not describe."""
    missing: dict[str, list[str]] = {}
    for name, action in actions.items():
        if name in PLANNER_ONLY:
            continue
        unknown = [k for k in _shown_keys(name, action) if k not in ARGUMENTS]
        if unknown:
            missing[name] = unknown
    return missing


def _action_tool(name: str, action: Action) -> ToolSpec:
    properties: dict[str, Mapping[str, Any]] = {}
    required: list[str] = []
    for key in _shown_keys(name, action):
        argument = ARGUMENTS.get(key)
        # An argument described nowhere still shows (any JSON value); a test names it for ARGUMENTS.
        properties[key] = argument.schema if argument is not None else {"description": key}
        if argument is not None and name in argument.required_by:
            required.append(key)
    summary = action.summary[:1].upper() + action.summary[1:] + "."
    note = _NOTES.get(name)
    return ToolSpec(
        name=name,
        description=f"{summary} {note}" if note else summary,
        properties=properties,
        required=tuple(required),
        action=name,
        idempotent=action.idempotent,
    )


def action_tools(actions: Mapping[str, Action] = ACTIONS) -> tuple[ToolSpec, ...]:
    """One tool per executor action (but :data:`PLANNER_ONLY`), in the table's order."""
    return tuple(_action_tool(name, action) for name, action in actions.items() if name not in PLANNER_ONLY)


# The tools the MCP server adds around the actions: they look at the session, not act on the device.
SESSION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_devices",
        "The device this server drives, the attached devices discovery finds, and the simulated ones.",
        read_only=True,
    ),
    ToolSpec(
        "observe",
        "Look at the screen: the foreground app, the page, and the elements as a compact list, each with a "
        "short ref and the selector (pass it as `target`) that finds it.",
        read_only=True,
    ),
    ToolSpec(
        "current_app",
        "The app in front, as the device shows it now (one look) and as the world model believes it.",
        read_only=True,
    ),
    ToolSpec(
        "world_state",
        "What the harness believes: current and observed app, page, overlay, variables (secrets as ***) "
        "and the recent steps with their arguments, results and rationales.",
        read_only=True,
    ),
    ToolSpec(
        "run_flow",
        "Run a flow file (YAML, as `amc run` takes) on this device, step by step, in this session.",
        properties={"path": _text("the flow file, under the server's flow root")},
        required=("path",),
    ),
)

DONE = ToolSpec(
    "done",
    "Finish: the goal is reached, or cannot be. Say what was done, or why not.",
    properties={"summary": _text("what was done, or why the goal cannot be reached")},
    required=("summary",),
    read_only=True,
)


def mcp_tools(actions: Mapping[str, Action] = ACTIONS) -> tuple[ToolSpec, ...]:
    """The MCP server's tools: the session tools, then one per executor action."""
    return (*SESSION_TOOLS, *action_tools(actions))


def openai_tools(
    specs: Sequence[ToolSpec], reasons: Sequence[str] = LLM_REASON_FIELDS
) -> list[dict[str, Any]]:
    """``specs`` as chat-completions function tools."""
    return [
        {
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": s.input_schema(reasons)},
        }
        for s in specs
    ]


def _target(value: Any) -> Any:
    """A selector sent as a JSON string (``"{\\"text\\": \\"OK\\"}"``, as some clients send objects)
    is read as the object; any other string is the element's text."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


@dataclass(frozen=True)
class Call:
    """A tool call's arguments as read: what the tool acts on, and the reasons given for it."""

    args: Mapping[str, Any]
    reasons: Mapping[str, str]


def read_call(spec: ToolSpec, arguments: Any, reasons: Sequence[str] = REASON_FIELDS) -> Call:
    """``arguments`` of a call of ``spec``, checked: a mapping (or nothing), naming only arguments
    the tool takes, its required ones given, its reasons text (cut to :data:`MAX_REASON`). Raises
    ``StepArgumentError`` naming the problem; the values themselves are the executor's to check.
    A ``null`` value counts as not given."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        got = type(arguments).__name__
        raise StepArgumentError(f"{spec.name}: the arguments must be a JSON object, got {got}")
    problem = check_structure(arguments)
    if problem is not None:  # before anything walks them (the world model, the timeline, the redactor)
        raise StepArgumentError(f"{spec.name}: the arguments are {problem}")
    taken = spec.arguments(reasons)
    unknown = sorted(str(k) for k in arguments if k not in taken)
    if unknown:
        listed = ", ".join(taken) or "no arguments"
        raise StepArgumentError(
            f"{spec.name} does not take argument(s) {', '.join(unknown)}; it takes: {listed}"
        )
    missing = [k for k in spec.required if arguments.get(k) is None]
    if missing:
        raise StepArgumentError(f"{spec.name} needs argument(s) {', '.join(missing)}")
    told: dict[str, str] = {}
    for reason in reasons if spec.acting else ():
        value = arguments.get(reason)
        if value is not None and not isinstance(value, str):
            raise StepArgumentError(f"{spec.name}: {reason!r} must be text, got {type(value).__name__}")
        if isinstance(value, str) and value.strip():
            told[reason] = value[:MAX_REASON]
    args = {str(k): v for k, v in arguments.items() if k not in told and k not in reasons and v is not None}
    if "target" in args:
        args["target"] = _target(args["target"])
    return Call(args, told)


def step_from_call(spec: ToolSpec, arguments: Any, reasons: Sequence[str] = REASON_FIELDS) -> PlannedStep:
    """The PlannedStep a call of an action tool asks for (see :func:`read_call`)."""
    if spec.action is None:
        raise StepArgumentError(f"{spec.name} runs no action")
    call = read_call(spec, arguments, reasons)
    return PlannedStep(
        spec.action,
        call.args,
        rationale=call.reasons.get("rationale"),
        thinking=call.reasons.get("thinking"),
        purpose=call.reasons.get("purpose"),
        expected_outcome=call.reasons.get("expected_outcome"),
    )
