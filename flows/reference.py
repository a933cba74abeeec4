"""The command table of docs/flows.md, generated from the actions.

``python -m amc.flows.reference --write docs/flows.md`` rewrites it; ``--check`` exits 1 when the
file says something else than the actions. A test runs the check.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from ..actions import ACTIONS, Action
from ..actions.apps import AppId
from ..actions.kinds import Choice, SelectorKind
from ..actions.markdown import replace_generated, write_or_check

__all__ = ["BLOCKS", "commands_markdown", "main", "render"]

_COMMAND = "python -m amc.flows.reference --write docs/flows.md"


def _value(action: Action) -> str:
    """What a flow writes after the command: its plain form, or its arguments as a mapping."""
    assert action.flow is not None
    if action.flow.written is not None:
        return action.flow.written
    forms: list[str] = []
    if action.flow.bare:
        forms.append("nothing")
    short = action.param(action.flow.short) if action.flow.short else None
    if short is not None:
        if isinstance(short.kind, Choice):
            forms.append(" / ".join(f"`{v}`" for v in short.kind.values))
        elif isinstance(short.kind, AppId):
            forms.append("app (an id, or `{android: …, ios: …}`)")
        elif isinstance(short.kind, SelectorKind):
            forms.append("selector (a text, or its fields, which may also stand inline)")
        else:
            forms.append(short.name.replace("_", " "))
    app_short = short is not None and isinstance(short.kind, AppId)
    fields = []
    for param in action.params:
        if app_short and param is short:
            continue  # a mapping names the app per platform; the other arguments stand beside it
        shown = param.name + ("*" if param.required else "")
        if param.default is not None:
            shown += (
                f" (default {param.default:g})"
                if isinstance(param.default, float)
                else f" (default {param.default})"
            )
        fields.append(shown)
    if action.waits is not None and action.param("timeout") is not None:
        fields = [
            f.replace("timeout", f"timeout (default {action.waits:g} s)", 1) if f == "timeout" else f
            for f in fields
        ]
    if fields and app_short:
        return forms[-1] + ", with `" + ", ".join(fields) + "` beside the platforms"
    if fields:
        forms.append("`{" + ", ".join(fields) + "}`")
    return ", or ".join(forms)


def commands_markdown(actions: Mapping[str, Action] = ACTIONS) -> str:
    """The commands of the project's flow format, one row each, from the actions (``*``: required)."""
    rows = ["| command | value | what it does |", "|---|---|---|"]
    for action in actions.values():
        if action.flow is None:
            continue
        what = (action.summary + (f". {action.note}" if action.note else "")).replace("|", "\\|")
        rows.append(f"| `{action.flow.command}` | {_value(action)} | {what} |")
    return "\n".join(rows) + "\n"


BLOCKS = {"flow commands": commands_markdown}


def render(text: str) -> str:
    """``text`` with the generated table replaced by what the actions say now."""
    return replace_generated(text, BLOCKS, _COMMAND)


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(argv, "python -m amc.flows.reference", BLOCKS, _COMMAND)


if __name__ == "__main__":
    sys.exit(main())
