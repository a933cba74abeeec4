"""The action and tool reference of ``docs/planners.md``, generated from the actions.

``python -m amc.agent.reference --write docs/planners.md`` rewrites the generated blocks
of that file (between their ``BEGIN GENERATED`` / ``END GENERATED`` markers) from
:data:`amc.actions.ACTIONS` and :func:`amc.agent.tools.mcp_tools`;
``--check`` exits 1 when the file differs from what the table says. A test runs the check, so
the documentation cannot drift from the code.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..actions import ACTIONS, COMMON_KEYS, Action
from ..actions.markdown import replace_generated, write_or_check
from .tools import PLANNER_ONLY, REASON_FIELDS, SESSION_TOOLS, ToolSpec, action_tools

__all__ = ["BLOCKS", "actions_markdown", "main", "render", "tools_markdown"]

_COMMAND = "python -m amc.agent.reference --write docs/planners.md"


def _type(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "anyOf" in schema:
        return "selector"
    kind = schema.get("type")
    return str(kind) if kind else "any"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _arguments_table(spec: ToolSpec, reasons: Sequence[str] = ()) -> list[str]:
    schema = spec.input_schema(reasons)
    properties: Mapping[str, Mapping[str, Any]] = schema["properties"]
    if not properties:
        return ["No arguments."]
    required = set(schema.get("required", ()))
    rows = ["| argument | type | required | meaning |", "|---|---|---|---|"]
    for name, prop in properties.items():
        rows.append(
            f"| `{name}` | {_type(prop)} | {'yes' if name in required else ''} | "
            f"{_cell(str(prop.get('description', '')))} |"
        )
    return rows


def _also_accepted(name: str, action: Action) -> str | None:
    extra: list[str] = []
    for param in action.params:
        if param.aliases:
            spelled = ", ".join(f"`{k}`" for k in param.aliases)
            extra.append(f"{spelled} (other spellings of `{param.name}`)")
        if param.inline:
            extra.append(f"the selector's fields inline instead of under `{param.name}`")
    shown = set(action_tools({name: action})[0].properties) if name not in PLANNER_ONLY else set()
    common = sorted(COMMON_KEYS - shown)
    if common:
        extra.append(", ".join(f"`{k}`" for k in common) + " (as every step)")
    return "; ".join(extra) if extra else None


def actions_markdown(actions: Mapping[str, Action] = ACTIONS) -> str:
    """Every executor action: what it does, whether it is safe to repeat, its arguments."""
    tools = {spec.name: spec for spec in action_tools(actions)}
    lines: list[str] = []
    for name, action in actions.items():
        lines.append(f"### `{name}`")
        lines.append("")
        repeat = (
            "Repeated after a transient device error (safe to repeat)."
            if action.idempotent
            else "Never repeated by the loop after a transient device error."
        )
        if name in PLANNER_ONLY:
            summary = f"{action.summary[:1].upper()}{action.summary[1:]}."
            lines.append(f"{summary} {repeat} No tool offers it: planners write it themselves.")
            lines.append("")
            keys = ", ".join(f"`{k}`" for k in sorted(action.keys))
            lines.append(f"Arguments: {keys}.")
        else:
            spec = tools[name]
            lines.append(f"{spec.description} {repeat}")
            lines.append("")
            lines.extend(_arguments_table(spec))
            also = _also_accepted(name, action)
            if also:
                lines.append("")
                lines.append(f"A `PlannedStep` also accepts {also}.")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def tools_markdown() -> str:
    """The MCP tools that are not executor actions, with their arguments."""
    lines: list[str] = []
    for spec in SESSION_TOOLS:
        lines.append(f"### `{spec.name}`")
        lines.append("")
        lines.append(spec.description)
        lines.append("")
        lines.extend(_arguments_table(spec, REASON_FIELDS))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


BLOCKS = {"actions": actions_markdown, "session tools": tools_markdown}


def render(text: str) -> str:
    """``text`` with each generated block replaced by what the code says now."""
    return replace_generated(text, BLOCKS, _COMMAND)


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(argv, "python -m amc.agent.reference", BLOCKS, _COMMAND)


if __name__ == "__main__":
    sys.exit(main())
