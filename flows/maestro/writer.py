"""Flows written in Maestro's format: the one writer of the dialect.

What ``amc agent --save-flow --save-format maestro``, MCP ``save_flow`` with ``format: maestro`` and
the inspector's ``--record-format maestro`` save (:func:`write_maestro`, through
:func:`amc.flows.recorded.write_flow`), and planned steps written as a flow (:func:`to_maestro`).
What it writes follows Maestro 2.8.0's reader (``MaestroFlowParser.kt``, ``YamlFluentCommand.kt``;
``docs/maestro-notes.md``), and ``amc run`` reads it back (this package's reader):

- a config section (``appId``, ``name``), ``---``, then one command per item, each a mapping with
  exactly one key (``optional: true`` goes inside the command's mapping);
- typing into an element is ``tapOn`` then ``inputText``; ``wait_for`` is ``extendedWaitUntil``
  with its timeout in milliseconds; ``press back`` is ``back``, other keys ``pressKey`` with
  Maestro's key names; a swipe's or scroll's direction in capitals (Maestro refuses lower case);
- any other action is the command its first :class:`~amc.actions.MaestroForm` names, its arguments
  that command's options (renamed back, seconds as milliseconds, values that only repeat the
  command's fixed ones left out);
- ``text`` and ``id`` are regular expressions over the whole value in Maestro, so a literal text is
  written with its regex characters escaped (``text_contains`` as ``.*…*``); a label is matched by
  ``text`` too (Maestro compares it with the accessibility text);
- a secret is never a value here: it is a :class:`~amc.flows.recorded.Variable`, written
  ``${NAME}`` (Maestro reads it from ``-e NAME=...``); any other ``${`` is written ``\\${`` (Maestro
  reads ``${...}`` as JavaScript).

What Maestro cannot say is refused with a ``ConfigError`` naming the step (an XPath, an element
type, an action with no command), or written as a comment where nothing is lost by leaving it out
(``remember``; ``assert_app``: Maestro has no command that checks the app in front).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...actions import ACTIONS
from ...core.errors import ConfigError
from ...core.models import PlannedStep
from ..recorded import RecordedFlow, RecordedStep, Variable, comment_lines, variable_name, yaml_value

__all__ = ["maestro_selector", "to_maestro", "write_maestro"]

_REGEX_CHARS = frozenset(".^$*+?{}[]\\|()")
# Selector fields written under Maestro's own name (relative ones take a selector themselves).
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
# The project's keys and Maestro's pressKey names (client/KeyCode.kt); back is its own command.
_KEYS = {
    "home": "Home",
    "enter": "Enter",
    "delete": "Backspace",
    "backspace": "Backspace",
    "tab": "Tab",
    "volume_up": "Volume Up",
    "volume_down": "Volume Down",
    "power": "Power",
    "search": "Search",
}
_RELATIVE = frozenset({"below", "above", "leftOf", "rightOf", "childOf", "containsChild"})
_APP_COMMANDS = {"launch_app": "launchApp", "terminate_app": "stopApp", "clear_state": "clearState"}


def _literal(text: str) -> str:
    """A literal text as a Maestro pattern that matches it (and only it, ignoring case)."""
    return "".join("\\" + ch if ch in _REGEX_CHARS else ch for ch in text)


def _escape_script(text: str) -> str:
    """A plain string as Maestro reads it back unchanged: ``${`` is JavaScript there."""
    return text.replace("${", "\\${")


def maestro_selector(selector: Any, where: str) -> dict[str, Any]:
    """A selector of the project's flows as Maestro's element selector (always a mapping)."""
    if isinstance(selector, str):
        return {"text": _literal(selector)}
    if not isinstance(selector, Mapping):
        raise ConfigError(f"{where}: no selector to write")
    out: dict[str, Any] = {}

    def put(name: str, value: Any) -> None:
        if name in out:
            raise ConfigError(f"{where}: Maestro matches one {name}; the selector gives two")
        out[name] = value

    for key, value in selector.items():
        if key == "pick" or (key == "visible" and value is True):
            continue
        if key in ("text", "label"):
            put("text", _literal(str(value)))
        elif key == "text_contains":
            put("text", f".*{_literal(str(value))}.*")
        elif key == "text_regex":
            put("text", f".*(?:{value}).*")
        elif key == "id":
            put("id", _literal(str(value)))
        elif key == "contains_descendants":
            put("containsDescendants", [maestro_selector(v, where) for v in value])
        elif key == "traits":  # Maestro's spelling: names split by spaces, `long-text`
            put("traits", " ".join(str(t).replace("_", "-") for t in value))
        elif key in _SELECTOR_BACK:
            name = _SELECTOR_BACK[key]
            relative = name in _RELATIVE and isinstance(value, Mapping | str)
            put(name, maestro_selector(value, where) if relative else value)
        else:
            raise ConfigError(
                f"{where}: Maestro has no selector for {key!r} ({value!r:.60})",
                hint="save in the project's format (--save-format amc), or act on an element by text or id",
            )
    return out


def _by_form(action_name: str, args: dict[str, Any], where: str) -> tuple[str, Any]:
    """A step as the command its action's first Maestro form names: (command, value)."""
    action = ACTIONS.get(action_name)
    if action is None or not action.maestro:
        raise ConfigError(
            f"{where}: {action_name} has no Maestro command", hint="keep the flow in the project's format"
        )
    form = action.maestro[0]
    args = {k: v for k, v in args.items() if k not in ("interval", "secret", "remember")}
    if "timeout" in args and form.lookup and "timeout" not in form.options.values():
        args.pop("timeout")
    for name, value in form.fixed.items():
        if args.get(name) == value:
            args.pop(name)
    back = {arg: option for option, arg in form.options.items()}
    out: dict[str, Any] = {}
    if form.selector and "target" in args:
        out.update(maestro_selector(args.pop("target"), where))
    for name, value in args.items():
        option = back.get(name) or (form.short if name == form.short else None)
        if option is None:
            raise ConfigError(f"{where}: {action_name}'s argument {name!r} has no Maestro option")
        if option in form.millis and isinstance(value, int | float):
            value = round(value * 1000)
        if name in ("target", "from") and isinstance(value, Mapping | str):
            value = maestro_selector(value, where)
        if option == "direction" and isinstance(value, str):
            value = value.upper()
        out[option] = value
    if not out:
        return form.command, None
    if not form.selector and form.short is not None and list(out) == [back.get(form.short, form.short)]:
        return form.command, next(iter(out.values()))
    return form.command, out


def _commands(step: RecordedStep, where: str) -> list[tuple[str, Any]] | str:
    """The Maestro commands for ``step`` (a list of (command, value)), or a comment to write instead."""
    action, args = step.action, dict(step.args)
    if action == "skip":
        return []
    if action in _APP_COMMANDS:
        command, value = _by_form(action, args, where)
        if action == "launch_app" and not isinstance(value, Mapping):
            value = {"appId": value}  # launchApp names its app (what a reader of the file expects)
        return [(_APP_COMMANDS[action] if command != "killApp" else command, value)]
    if action == "type_text":
        commands: list[tuple[str, Any]] = []
        if "target" in args:
            commands.append(("tapOn", maestro_selector(args["target"], where)))
        text = args["text"]
        commands.append(("inputText", text if isinstance(text, Variable) else str(text)))
        return commands
    if action == "wait_for":
        timeout = round(float(args.get("timeout", 10)) * 1000)
        return [
            ("extendedWaitUntil", {"visible": maestro_selector(args["target"], where), "timeout": timeout})
        ]
    if action == "assert_app":
        return f"the app in front is {args['app_id']} (Maestro has no command that checks it)"
    if action == "remember":
        return f"remember {', '.join(map(str, args.get('remember') or {}))} (the project's flows only)"
    if action == "press":
        key = str(args["key"]).lower()
        if key == "back":
            return [("back", None)]
        if key not in _KEYS:
            raise ConfigError(f"{where}: Maestro has no key {key!r}")
        return [("pressKey", _KEYS[key])]
    return [_by_form(action, args, where)]


def _item(command: str, value: Any, optional: bool) -> str:
    if optional:
        if isinstance(value, str) and command in ("stopApp", "clearState", "killApp"):
            value = {"appId": value}
        if value is not None and not isinstance(value, Mapping):
            raise ConfigError(f"{command} cannot be optional in Maestro's short form")
        value = {**(value or {}), "optional": True}
    if value is None:
        return f"- {command}"
    return f"- {command}: {yaml_value(value, _escape_script)}"


def write_maestro(flow: RecordedFlow) -> str:
    """``flow`` as a Maestro flow file (see the module's docstring)."""
    if flow.app_id is None:
        raise ConfigError("a Maestro flow names its app (appId): this recording launched none")
    lines = comment_lines(flow.header)
    needs = flow.needs()
    if needs:
        lines += comment_lines(
            [f"Needs {', '.join(needs)}: maestro test FILE {' '.join(f'-e {n}=...' for n in needs)}"]
        )
    lines.append(f"appId: {yaml_value(flow.app_id)}")
    if flow.name:
        lines.append(f"name: {yaml_value(flow.name, _escape_script)}")
    lines.append("---")
    for number, step in enumerate(flow.steps, 1):
        lines += comment_lines(step.comments)
        written = _commands(step, f"step {number} ({step.action})")
        if isinstance(written, str):
            lines += comment_lines([written])
            continue
        lines += [_item(command, value, step.optional) for command, value in written]
    return "\n".join(lines) + "\n"


def to_maestro(steps: Iterable[PlannedStep], *, app_id: str, name: str | None = None) -> str:
    """``steps`` as the text of a Maestro flow for the app ``app_id`` (its header, ``---``, the
    commands); ``ConfigError`` naming the first step Maestro cannot say. A secret typed text
    becomes a variable (``${PASSWORD}``), never the value."""
    recorded: list[RecordedStep] = []
    taken: list[str] = []
    for step in steps:
        args = dict(step.args)
        if args.pop("secret", None) is True and isinstance(args.get("text"), str):
            target = args.get("target")
            hint = target.get("id") if isinstance(target, Mapping) else None
            taken.append(variable_name(hint if isinstance(hint, str) else None, taken))
            args["text"] = Variable(taken[-1])
        recorded.append(RecordedStep(step.action, args))
    flow = RecordedFlow(name or "", "android", tuple(recorded), app_id=app_id)
    return write_maestro(flow)
