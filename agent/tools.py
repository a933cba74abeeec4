"""One description of what an agent can do, generated from the actions.

The MCP server's tools, the LLM planner's function tools and the action reference in
``docs/planners.md`` all come from :func:`action_tools`, which reads :data:`amc.actions.ACTIONS`:
an action added there becomes a tool everywhere, with the same name and arguments, each argument
with the schema and the description its action declares (:class:`~amc.actions.Param`).

A tool shows the one spelling of each argument: ``app_id`` (not the ``bundle_id`` / ``package``
aliases flows accept) and ``target`` (a selector, not the selector fields inline). Acting tools
also take the reasons a planner gives (:data:`REASON_FIELDS`), which go onto the PlannedStep and
so into the world history. :func:`read_call` checks a call's arguments (refusing one the tool
does not show) and :func:`step_from_call` turns an action tool's call into a PlannedStep; the
executor then checks every value through the action, as it checks a flow's.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType, NoneType, UnionType
from typing import Any

from ..actions import ACTIONS, Action, Param
from ..actions.kinds import SelectorKind
from ..core.errors import StepArgumentError
from ..core.limits import check_structure
from ..core.models import PlannedStep
from ..core.selectors import Selector

__all__ = [
    "DONE",
    "LLM_REASON_FIELDS",
    "LLM_SHOWN_REASONS",
    "PLANNER_ONLY",
    "REASON_FIELDS",
    "SAVE_FLOW",
    "SELECTOR_FIELDS",
    "SESSION_TOOLS",
    "SHOWN_REASONS",
    "Call",
    "ToolSpec",
    "action_tools",
    "mcp_tools",
    "openai_tools",
    "read_call",
    "selector_schema",
    "step_from_call",
]

# The reasons every acting tool takes (MCP and LLM alike); the LLM tools also take ``thinking``.
REASON_FIELDS: tuple[str, ...] = ("rationale", "purpose", "expected_outcome")
LLM_REASON_FIELDS: tuple[str, ...] = ("thinking", *REASON_FIELDS)
# The reasons the tool schemas show (``tools/list`` and every request the LLM planner sends carry
# them, once per acting tool); a call may still give the others (``purpose``, and ``thinking`` to
# the LLM planner, which also keeps a model's reasoning in its text as ``thinking``).
SHOWN_REASONS: tuple[str, ...] = ("rationale", "expected_outcome")
LLM_SHOWN_REASONS = SHOWN_REASONS
MAX_REASON = 2000  # the world history keeps this much of each reason

# Kept short: these go into every acting tool's schema, on every request the LLM planner sends.
_REASONS: Mapping[str, str] = {
    "rationale": "why",
    "thinking": "your reasoning",
    "purpose": "what it is for in the task",
    "expected_outcome": "checked after it, e.g. shows: TEXT",
}
# What a tool schema keeps of an argument's kind: its type and choices. Bounds are the executor's
# to check (its error names them), and would cost every request their words.
_SCHEMA_KEYS = ("type", "enum")
_SELECTOR = {"anyOf": [{"type": "string"}, {"type": "object"}]}

# Actions no tool offers (``Action.offered``): ``skip`` records a step a planner decided not to send
# (the LLM planner writes it itself when the world shows the app already in front).
PLANNER_ONLY = frozenset(name for name, action in ACTIONS.items() if not action.offered)

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
        "text_matches": "a regex the whole text must match, ignoring case",
        "below": "a selector the element is below (also above, left_of, right_of, child_of)",
    }
)


def _json_type(annotation: Any) -> str:
    """The JSON type of a selector field, from its annotation (``str | None`` -> ``string``)."""
    args = typing.get_args(annotation) if isinstance(annotation, UnionType) else (annotation,)
    kinds: dict[Any, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}
    kinds[Selector] = "object"  # a relative selector: a selector of its own
    named = [
        "array" if typing.get_origin(a) is tuple else kinds[a]
        for a in args
        if a is not NoneType and (a in kinds or typing.get_origin(a) is tuple)
    ]
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


def param_schema(param: Param) -> dict[str, Any]:
    """An argument's JSON schema as a tool shows it: its type (a selector: a text or an object, its
    fields said once in ``observe`` and the LLM planner's system prompt) and its description."""
    if isinstance(param.kind, SelectorKind):
        return {"description": param.doc, **_SELECTOR}
    schema = param.kind.schema()
    return {**{k: schema[k] for k in _SCHEMA_KEYS if k in schema}, "description": param.doc}


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
    expects: bool = True  # its schema shows expected_outcome (a step that changes the screen)

    @property
    def acting(self) -> bool:
        return not self.read_only

    def input_schema(self, reasons: Sequence[str] = SHOWN_REASONS, *, closed: bool = False) -> dict[str, Any]:
        """The JSON schema of the tool's arguments, with ``reasons`` added to an acting tool;
        ``closed``: no other argument is allowed (the tools leave it open, so a caller may give a
        reason they do not show; :func:`read_call` still refuses an argument the tool does not take)."""
        properties = {name: dict(schema) for name, schema in self.properties.items()}
        if self.acting:
            for reason in reasons:
                if reason != "expected_outcome" or self.expects:
                    properties[reason] = {"type": "string", "description": _REASONS[reason]}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if closed:
            schema["additionalProperties"] = False
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def arguments(self, reasons: Sequence[str] = REASON_FIELDS) -> tuple[str, ...]:
        """Every argument name the tool takes, reasons included."""
        return (*self.properties, *(reasons if self.acting else ()))


def _action_tool(name: str, action: Action) -> ToolSpec:
    shown = [param for param in action.params if param.agents]
    properties = {param.name: param_schema(param) for param in shown}
    required = tuple(param.name for param in shown if param.required)
    summary = action.summary[:1].upper() + action.summary[1:] + "."
    return ToolSpec(
        name=name,
        description=f"{summary} {action.note}" if action.note else summary,
        properties=properties,
        required=required,
        action=name,
        idempotent=action.idempotent,
        expects=action.changes_screen,  # a check or a look is its own expectation
    )


def action_tools(actions: Mapping[str, Action] = ACTIONS) -> tuple[ToolSpec, ...]:
    """One tool per action that tools offer, in the table's order."""
    return tuple(_action_tool(name, action) for name, action in actions.items() if action.offered)


# The tools the MCP server adds around the actions: they look at the session, not act on the device.
SESSION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_devices",
        "This server's device, the attached ones and the simulated ones.",
        read_only=True,
    ),
    ToolSpec(
        "observe",
        "The screen: app, page and every element that says or does something, with the selector that "
        "finds it, to pass as `target` (a text, or an object of text, text_contains, text_regex, id, label, "
        "type, index: n-th match from 0). A screen seen before: what changed since the last look.",
        properties={"full": {"type": "boolean", "description": "list it all"}},
        read_only=True,
    ),
    ToolSpec(
        "current_app",
        "The app in front, as the device says now and as the world model believes.",
        read_only=True,
    ),
    ToolSpec(
        "world_state",
        "What the harness believes: app, page, overlay, variables, and the recent steps with their "
        "results, rationales and verdicts.",
        read_only=True,
    ),
    ToolSpec(
        "run_flow",
        "Run a flow file (YAML, as `amc run` takes) on this device, step by step, in this session.",
        properties={"path": {"type": "string", "description": "the flow file, under the server's flow root"}},
        required=("path",),
        expects=False,
    ),
)

SAVE_FLOW = ToolSpec(
    "save_flow",
    "Save the session's passed steps as a flow that replays without a model (secrets as ${VARIABLES}).",
    properties={
        "path": {"type": "string", "description": "a new .yaml file under the flow root"},
        "format": {"type": "string", "enum": ["amc", "maestro"], "description": "default amc"},
        "overwrite": {"type": "boolean", "description": "replace an existing file"},
    },
    required=("path",),
    expects=False,
)

DONE = ToolSpec(
    "done",
    "Finish: the goal is reached, or cannot be. Say what was done, or why not.",
    properties={
        "summary": {"type": "string", "description": "what was done, or why the goal cannot be reached"}
    },
    required=("summary",),
    read_only=True,
)


def mcp_tools(actions: Mapping[str, Action] = ACTIONS) -> tuple[ToolSpec, ...]:
    """The MCP server's tools: the session tools, then one per executor action."""
    return (*SESSION_TOOLS, SAVE_FLOW, *action_tools(actions))


def openai_tools(
    specs: Sequence[ToolSpec], reasons: Sequence[str] = LLM_SHOWN_REASONS
) -> list[dict[str, Any]]:
    """``specs`` as chat-completions function tools, showing ``reasons`` (the others are still
    taken: :func:`read_call` with :data:`LLM_REASON_FIELDS`)."""
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": s.input_schema(reasons),
            },
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
