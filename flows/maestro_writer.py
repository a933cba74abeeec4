"""A minimal writer of Maestro flow files, for recordings (``--save-format maestro``, the inspector).

Stand-in until the Maestro dialect (issue 32, ``flows/maestro/``) brings its own writer: only
:func:`write_maestro` is called from outside (by :func:`amc.flows.recorded.write_flow`), so it is
swapped in one line. What it writes follows Maestro 2.8.0's reader (mobile-dev-inc/maestro
``MaestroFlowParser.kt``, ``YamlFluentCommand.kt``; /work/brief/maestro-semantics.md): a config
section (``appId``, ``name``), ``---``, then one command per item, each a mapping with exactly one
key (``optional: true`` goes inside the command's mapping). Maestro matches ``text`` and ``id`` as
regular expressions over the whole value, so a text is written with its regex characters escaped
(a text equal to the pattern also matches, but a ``.`` would match any character); a label is
matched by ``text`` too (Maestro compares it with the accessibility text). Timeouts are in
milliseconds. A secret is ``${NAME}``: Maestro reads it from ``-e NAME=...``.

What Maestro cannot say is refused with a ``ConfigError`` naming the step (an XPath, an element
type), or written as a comment where nothing is lost by leaving it out (``remember``, and
``assert_app``: Maestro has no command that checks the app in front).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core.errors import ConfigError
from .recorded import RecordedFlow, RecordedStep, Variable, comment_lines, yaml_value

__all__ = ["maestro_selector", "write_maestro"]

_REGEX_CHARS = re.compile(r"([\\.\[\]{}()*+?^$|])")
_KEYS = {"back": None, "home": "Home", "enter": "Enter", "delete": "Backspace", "tab": "Tab"}
_KEYS.update({"volume_up": "Volume Up", "volume_down": "Volume Down", "power": "Power", "search": "Search"})


def _literal(text: str) -> str:
    return _REGEX_CHARS.sub(r"\\\1", text)


def _keep(text: str) -> str:
    return text  # Maestro reads ${...} as JavaScript: a recorded ${ is rare, and left as it is


def maestro_selector(selector: Any, where: str) -> dict[str, Any]:
    """A selector of the project's flows as Maestro's element selector."""
    if isinstance(selector, str):
        return {"text": _literal(selector)}
    if not isinstance(selector, Mapping):
        raise ConfigError(f"{where}: no selector to write")
    out: dict[str, Any] = {}
    for key, value in selector.items():
        if key == "text" or key == "label":
            if "text" in out:
                raise ConfigError(f"{where}: Maestro matches one text; the selector names text and label")
            out["text"] = _literal(str(value))
        elif key == "text_contains":
            out["text"] = f".*{_literal(str(value))}.*"
        elif key == "text_regex":
            out["text"] = f".*(?:{value}).*"
        elif key == "id":
            out["id"] = _literal(str(value))
        elif key in ("index", "enabled", "checked", "selected", "focused"):
            out[key] = value
        elif key == "visible" and value is True:
            continue
        else:
            raise ConfigError(
                f"{where}: Maestro has no selector for {key!r} ({value!r})",
                hint="save in the project's format (--save-format amc), or act on an element by text or id",
            )
    return out


def _ms(seconds: Any) -> int:
    return round(float(seconds) * 1000)


def _command(step: RecordedStep, where: str) -> list[tuple[str, Any]] | str:
    """The Maestro commands for ``step`` (a list of (command, value)), or a comment to write instead."""
    action, args = step.action, step.args
    if action == "launch_app":
        return [("launchApp", {"appId": args["app_id"]})]
    if action == "terminate_app":
        return [("stopApp", args["app_id"])]
    if action == "clear_state":
        return [("clearState", args["app_id"])]
    if action in ("tap", "long_press"):
        return [("tapOn" if action == "tap" else "longPressOn", maestro_selector(args["target"], where))]
    if action == "type_text":  # a secret is a Variable already: Maestro has no way to hide a value
        commands: list[tuple[str, Any]] = []
        if "target" in args:
            commands.append(("tapOn", maestro_selector(args["target"], where)))
        text = args["text"]
        commands.append(("inputText", text if isinstance(text, Variable) else str(text)))
        return commands
    if action in ("wait_for", "assert_visible", "assert_not_visible"):
        selector = maestro_selector(args["target"], where)
        if action == "wait_for":
            return [("extendedWaitUntil", {"visible": selector, "timeout": _ms(args.get("timeout", 10))})]
        return [("assertVisible" if action == "assert_visible" else "assertNotVisible", selector)]
    if action == "assert_app":
        return f"the app in front is {args['app_id']} (Maestro has no command that checks it)"
    if action == "press":
        key = str(args["key"]).lower()
        if key == "back":
            return [("back", None)]
        if key not in _KEYS:
            raise ConfigError(f"{where}: Maestro has no key {key!r}")
        return [("pressKey", _KEYS[key])]
    if action == "swipe" and "direction" in args:
        return [("swipe", {"direction": str(args["direction"]).upper()})]
    if action == "scroll_until_visible":
        value: dict[str, Any] = {"element": maestro_selector(args["target"], where)}
        if "direction" in args:
            value["direction"] = str(args["direction"]).upper()
        return [("scrollUntilVisible", value)]
    if action == "hide_keyboard":
        return [("hideKeyboard", None)]
    if action == "open_link":
        return [("openLink", args["url"])]
    if action == "wait_for_animation_to_end":
        return [("waitForAnimationToEnd", None)]
    if action == "remember":
        return f"remember {', '.join(map(str, args.get('remember') or {}))} (the project's flows only)"
    raise ConfigError(f"{where}: {action} cannot be written as a Maestro command")


def _item(command: str, value: Any, optional: bool) -> list[str]:
    if value is None and not optional:
        return [f"- {command}"]
    if optional:
        if isinstance(value, str) and command in ("stopApp", "clearState", "killApp"):
            value = {"appId": value}
        fields = dict(value) if isinstance(value, Mapping) else {}
        if value is not None and not isinstance(value, Mapping):
            raise ConfigError(f"{command} cannot be optional in Maestro's short form")
        fields["optional"] = True
        value = fields
    return [f"- {command}: {yaml_value(value, _keep)}"]


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
    lines += [f"appId: {yaml_value(flow.app_id)}", f"name: {yaml_value(flow.name, _keep)}", "---"]
    for number, step in enumerate(flow.steps, 1):
        lines += comment_lines(step.comments)
        written = _command(step, f"step {number} ({step.action})")
        if isinstance(written, str):
            lines += comment_lines([written])
            continue
        for command, value in written:
            lines += _item(command, value, step.optional)
    return "\n".join(lines) + "\n"
