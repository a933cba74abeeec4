"""Steps written as a Maestro flow: what the recorder and the agent save when asked for Maestro's
format. Each step becomes the Maestro command its action's :class:`~amc.actions.MaestroForm` names
(the first one), its arguments the command's options (renamed back, seconds made milliseconds,
selectors written as Maestro's); a step Maestro cannot say is refused with its reason."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from ...actions import ACTIONS
from ...core.errors import ConfigError
from ...core.models import PlannedStep

__all__ = ["to_maestro"]

_SELECTOR_BACK = {
    "text_matches": "text",
    "id_matches": "id",
    "index": "index",
    "enabled": "enabled",
    "checked": "checked",
    "focused": "focused",
    "selected": "selected",
    "width": "width",
    "height": "height",
    "tolerance": "tolerance",
    "below": "below",
    "above": "above",
    "left_of": "leftOf",
    "right_of": "rightOf",
    "child_of": "childOf",
    "contains_child": "containsChild",
}
_PLAIN = {"text": "text", "id": "id", "label": "text"}  # the project's exact fields, as regexes


def _escape(text: str) -> str:
    """A literal text as a Maestro pattern that matches it (and only it, ignoring case)."""
    special = set(".^$*+?{}[]\\|()")
    return "".join("\\" + ch if ch in special else ch for ch in text)


def _selector(target: Mapping[str, Any]) -> Any:
    out: dict[str, Any] = {}
    for key, value in target.items():
        if key in ("pick", "visible"):
            continue
        if key in _SELECTOR_BACK:
            name = _SELECTOR_BACK[key]
            out[name] = _selector(value) if isinstance(value, Mapping) else value
        elif key == "contains_descendants":
            out["containsDescendants"] = [_selector(v) for v in value]
        elif key in _PLAIN:
            out[_PLAIN[key]] = _escape(str(value))
        elif key == "text_regex":
            out["text"] = f".*{value}.*"
        else:
            raise ConfigError(f"the selector field {key!r} has no Maestro form")
    if list(out) == ["text"]:
        return out["text"]
    return out


def _command(step: PlannedStep) -> dict[str, Any] | str:
    action = ACTIONS.get(step.action)
    if action is None or not action.maestro:
        raise ConfigError(
            f"{step.action} has no Maestro command", hint="keep the flow in the project's format"
        )
    form = action.maestro[0]
    args = dict(step.args)
    args.pop("interval", None)
    if "timeout" in args and form.lookup and "timeout" not in form.options.values():
        args.pop("timeout")
    for name, value in form.fixed.items():
        if args.get(name) == value:
            args.pop(name)
    back = {arg: option for option, arg in form.options.items()}
    out: dict[str, Any] = {}
    if form.selector and "target" in args:
        written = _selector(args.pop("target"))
        if not args:
            return {form.command: written}
        out.update({"text": written} if isinstance(written, str) else written)
    for name, value in args.items():
        option = back.get(name) or (form.short if name == form.short else None)
        if option is None or name in ("secret", "remember"):
            if name in ("secret", "remember"):
                continue
            raise ConfigError(f"{step.action}'s argument {name!r} has no Maestro option")
        if option in form.millis and isinstance(value, int | float):
            value = round(value * 1000)
        out[option] = _selector(value) if name in ("target", "from") and isinstance(value, Mapping) else value
    if not out:
        return form.command if form.bare else {form.command: None}
    if form.short is not None and list(out) == [back.get(form.short, form.short)]:
        return {form.command: next(iter(out.values()))}
    return {form.command: out}


def to_maestro(steps: Iterable[PlannedStep], *, app_id: str, name: str | None = None) -> str:
    """``steps`` as the text of a Maestro flow for the app ``app_id`` (its header, ``---``, the
    commands); ``ConfigError`` naming the first step Maestro cannot say."""
    header: dict[str, Any] = {"appId": app_id}
    if name:
        header["name"] = name
    commands = []
    for step in steps:
        if step.action == "skip":
            continue
        command = _command(step)
        if isinstance(command, dict) and step.action in ("launch_app", "terminate_app", "clear_state"):
            value = next(iter(command.values()))
            if value == app_id:
                command = next(iter(command))
        commands.append(command)
    head = yaml.safe_dump(header, sort_keys=False, allow_unicode=True)
    body = yaml.safe_dump(commands, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"{head}---\n{body}"
