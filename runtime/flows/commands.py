"""The flow commands: how each one's YAML value becomes executor arguments.

Each reader takes the :class:`NodeReader`, the command's value node and the command's name, and
returns the executor arguments plus the app reference of app commands. :data:`READERS` is the
table the loader dispatches through; it names exactly :data:`runtime.flows.model.COMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from ...core.errors import ConfigError
from ...core.selectors import Selector
from .model import COMMANDS, DEFAULT_TIMEOUTS, AppRef
from .nodes import TAG, NodeReader, kind, suggest

__all__ = ["DIRECTIONS", "KNOWN_KEYS", "MAX_TIMEOUT", "READERS", "StepArgs"]

MAX_TIMEOUT = 300.0
# Keys press: accepts; a backend may support fewer (the device then says so).
KNOWN_KEYS = ("home", "back", "enter", "volume_up", "volume_down", "menu", "recent", "power")
DIRECTIONS = ("up", "down", "left", "right")
_SELECTOR_FIELDS = tuple(f.name for f in fields(Selector))
_SELECTOR_STRINGS = frozenset({"text", "text_contains", "text_regex", "id", "label", "type", "xpath"})

StepArgs = tuple[dict[str, Any], AppRef | None]


def _app_ref(
    r: NodeReader, node: Node, command: str, extra: tuple[str, ...] = ()
) -> tuple[AppRef, dict[str, Node]]:
    hint = f"write `{command}: APP_ID`, or `{command}: {{android: PACKAGE, ios: BUNDLE_ID}}`"
    if isinstance(node, ScalarNode):
        return AppRef(default=r.string(node, f"{command}'s app ID")), {}
    if not isinstance(node, MappingNode):
        raise r.fail(node, f"{command} needs an app ID, got {kind(node)}", hint)
    entries = r.mapping(node, command, ("android", "ios", *extra))
    apps: dict[str, str] = {
        p: r.string(entries[p], f"{command}'s {p} app ID") for p in ("android", "ios") if p in entries
    }
    if not apps:
        raise r.fail(node, f"{command} needs an app ID for android, ios or both", hint)
    return AppRef(by_platform=apps), {k: v for k, v in entries.items() if k in extra}


def _poll_options(r: NodeReader, command: str, entries: Mapping[str, Node]) -> dict[str, Any]:
    out: dict[str, Any] = {"timeout": DEFAULT_TIMEOUTS[command]}
    if "timeout" in entries:
        out["timeout"] = r.number(entries["timeout"], f"{command}'s timeout", 0, MAX_TIMEOUT)
    if "interval" in entries:
        out["interval"] = r.number(
            entries["interval"], f"{command}'s interval", 0, MAX_TIMEOUT, open_low=True
        )
    return out


def _app_step(r: NodeReader, node: Node, command: str) -> StepArgs:
    extra = ("timeout", "interval") if command == "assert_app" else ()
    app, entries = _app_ref(r, node, command, extra)
    return (_poll_options(r, command, entries) if command == "assert_app" else {}), app


def _selector(r: NodeReader, node: Node, entries: Mapping[str, Node], what: str) -> dict[str, Any]:
    """Selector fields from ``entries`` (already known to be selector fields), checked by Selector."""
    values: dict[str, Any] = {}
    for key, value in entries.items():
        if key in _SELECTOR_STRINGS:
            values[key] = r.string(value, f"{what}'s {key}")
        elif key == "index":
            if not (isinstance(value, ScalarNode) and value.tag == TAG + "int"):
                raise r.fail(value, f"{what}'s index must be a whole number, got {kind(value)}")
            values[key] = int(r.number(value, f"{what}'s index", 0, 1_000_000))
        else:  # enabled / visible
            values[key] = r.boolean(value, f"{what}'s {key}")
    try:
        return Selector(**values).to_dict()
    except ConfigError as exc:
        raise r.fail(
            node, f"{what}: {exc.message}", hint=exc.hint or "see the selector fields in docs/flows.md"
        ) from exc


def _target(r: NodeReader, node: Node, what: str) -> dict[str, Any]:
    """A selector written alone: a string (text) or a mapping of selector fields."""
    if isinstance(node, ScalarNode):
        return _selector(r, node, {"text": node}, what)
    return _selector(r, node, r.mapping(node, what, _SELECTOR_FIELDS), what)


def _selector_step(r: NodeReader, node: Node, command: str) -> StepArgs:
    options: tuple[str, ...] = {
        "tap": ("x", "y"),
        "long_press": ("x", "y", "duration"),
    }.get(command, ("timeout", "interval"))
    if isinstance(node, ScalarNode):
        args: dict[str, Any] = {"target": _target(r, node, command)}
        if command in DEFAULT_TIMEOUTS:
            args.update(_poll_options(r, command, {}))
        return args, None
    entries = r.mapping(node, command, (*_SELECTOR_FIELDS, *options))
    chosen = {k: v for k, v in entries.items() if k in _SELECTOR_FIELDS}
    args = {}
    if "x" in entries or "y" in entries:
        if chosen or "x" not in entries or "y" not in entries:
            raise r.fail(node, f"{command} takes either a point (both x and y) or a selector, not both")
        args = {k: r.number(entries[k], f"{command}'s {k}", 0, 100_000) for k in ("x", "y")}
    elif not chosen:
        raise r.fail(
            node, f"{command} needs a selector", hint=f"e.g. `{command}: {{text: OK}}` or `{command}: OK`"
        )
    else:
        args["target"] = _selector(r, node, chosen, command)
    if command == "long_press" and "duration" in entries:
        args["duration"] = r.number(entries["duration"], "long_press's duration", 0, 60, open_low=True)
    if command in DEFAULT_TIMEOUTS:
        args.update(_poll_options(r, command, entries))
    return args, None


def _type_text(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode):
        return {"text": r.string(node, "type_text's text", allow_empty=True)}, None
    entries = r.mapping(node, command, ("text", "target", "secret"))
    if "text" not in entries:
        raise r.fail(
            node, "type_text needs `text:`", hint="e.g. `type_text: {text: qa, target: {id: username}}`"
        )
    secret = r.boolean(entries["secret"], "type_text's secret") if "secret" in entries else False
    text = r.string(entries["text"], "type_text's text", allow_empty=True)
    args: dict[str, Any] = {"text": text}
    if "target" in entries:
        args["target"] = _target(r, entries["target"], "type_text's target")
    if secret:
        args["secret"] = True
        if text:
            r.secrets.add(text)
    return args, None


def _swipe(r: NodeReader, node: Node, command: str) -> StepArgs:
    coords = ("x1", "y1", "x2", "y2")
    if isinstance(node, ScalarNode):
        entries: dict[str, Node] = {"direction": node}
    else:
        entries = r.mapping(node, command, ("direction", "duration", *coords))
    args: dict[str, Any] = {}
    if "direction" in entries:
        direction = r.string(entries["direction"], "swipe's direction")
        if direction not in DIRECTIONS or any(c in entries for c in coords):
            raise r.fail(
                entries["direction"],
                f"swipe direction must be one of {', '.join(DIRECTIONS)}, without coordinates",
                hint=suggest(direction, DIRECTIONS),
            )
        args["direction"] = direction
    elif all(c in entries for c in coords):
        args.update({c: r.number(entries[c], f"swipe's {c}", 0, 100_000) for c in coords})
    else:
        raise r.fail(node, "swipe needs a direction (up, down, left, right) or all of x1, y1, x2, y2")
    if "duration" in entries:
        args["duration"] = r.number(entries["duration"], "swipe's duration", 0, 60)
    return args, None


def _press(r: NodeReader, node: Node, command: str) -> StepArgs:
    key = r.string(node, "press's key")
    if key not in KNOWN_KEYS:
        raise r.fail(node, f"unknown key {key!r}", hint=suggest(key, KNOWN_KEYS))
    return {"key": key}, None


def _remember(r: NodeReader, node: Node, command: str) -> StepArgs:
    entries = r.mapping(node, command)
    secret = False
    if (
        "secret" in entries
        and isinstance(entries["secret"], ScalarNode)
        and entries["secret"].tag == TAG + "bool"
    ):
        secret = r.boolean(entries.pop("secret"), "remember's secret")
    if not entries:
        raise r.fail(node, "remember needs at least one `name: value`", hint="e.g. `remember: {user: qa}`")
    values = {name: r.scalar_value(value, f"remembered value {name!r}") for name, value in entries.items()}
    args: dict[str, Any] = {"remember": values}
    if secret:
        args["secret"] = True
        r.secrets.update(str(v) for v in values.values() if str(v))
    return args, None


def _screenshot(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode) and node.tag == TAG + "null":
        return {}, None
    return {"name": r.string(node, "screenshot's name")}, None


READERS: dict[str, Callable[[NodeReader, Node, str], StepArgs]] = {
    "launch_app": _app_step,
    "terminate_app": _app_step,
    "assert_app": _app_step,
    "tap": _selector_step,
    "long_press": _selector_step,
    "wait_for": _selector_step,
    "assert_visible": _selector_step,
    "assert_not_visible": _selector_step,
    "type_text": _type_text,
    "swipe": _swipe,
    "press": _press,
    "remember": _remember,
    "screenshot": _screenshot,
}
assert set(READERS) == set(COMMANDS)
