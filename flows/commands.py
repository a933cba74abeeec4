"""The flow commands: how each one's YAML value becomes the action's arguments.

Each reader takes the :class:`NodeReader`, the command's value node and the command's name, and
returns the action's arguments plus the app reference of app commands, with every problem at its
line and column. The commands whose YAML needs more than the action's own form (per-platform app
ids, a selector written inline, secrets to hide) have a reader in :data:`READERS`; any other
action's command is read by :func:`_generic` from its :class:`~amc.actions.FlowForm` (a plain value
fills its short argument, a mapping gives its arguments). Either way :func:`read_command` then
checks the arguments through the action itself, so a flow step is checked as an agent's call is.
Bounds and choices (keys, directions, limits) are the actions', imported, never restated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..actions import ACTIONS, Action, flow_commands
from ..actions.kinds import MAX_COORDINATE, SelectorKind
from ..actions.open_link import URL
from ..actions.scroll_until_visible import MAX_SWIPES
from ..actions.swipe import DIRECTIONS
from ..actions.waiting import MAX_WAIT
from ..core.errors import ConfigError, StepArgumentError
from ..core.selectors import RELATIVE_FIELDS, Selector
from ..drivers.base import KEYS, MAX_GESTURE
from .model import COMMANDS, DEFAULT_TIMEOUTS, AppRef
from .nodes import TAG, NodeReader, kind, suggest

__all__ = [
    "BARE_COMMANDS",
    "READERS",
    "StepArgs",
    "app_ref",
    "read_command",
    "target",
]

_SELECTOR_FIELDS = tuple(f.name for f in fields(Selector))
_SELECTOR_STRINGS = frozenset(
    {
        "text",
        "text_contains",
        "text_regex",
        "id",
        "label",
        "type",
        "xpath",
        "text_matches",
        "id_matches",
        "pick",
    }
)
_SELECTOR_SIZES = frozenset({"width", "height", "tolerance"})

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
    default = DEFAULT_TIMEOUTS[command]
    if r.default_timeout is not None and command != "assert_app":  # assert_app looks for no element
        default = r.default_timeout
    out: dict[str, Any] = {"timeout": default}
    if "timeout" in entries:
        out["timeout"] = r.number(entries["timeout"], f"{command}'s timeout", 0, MAX_WAIT)
    if "interval" in entries:
        out["interval"] = r.number(entries["interval"], f"{command}'s interval", 0, MAX_WAIT, open_low=True)
    return out


def _app_step(r: NodeReader, node: Node, command: str) -> StepArgs:
    """An app (an id, or one per platform) with, beside the platforms, the action's other arguments
    (launch_app's ``clear_state``, ``permissions`` …; assert_app's wait)."""
    if command == "assert_app":
        app, entries = _app_ref(r, node, command, ("timeout", "interval"))
        return _poll_options(r, command, entries), app
    others = tuple(p.name for p in flow_commands()[command].params if p.name != "app_id")
    app, entries = _app_ref(r, node, command, others)
    action = flow_commands()[command]
    args = {name: _value(r, action, name, value, f"{command}'s {name}") for name, value in entries.items()}
    return args, app


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
        elif key in _SELECTOR_SIZES:
            values[key] = int(r.number(value, f"{what}'s {key}", 0, MAX_COORDINATE))
        elif key in RELATIVE_FIELDS:
            values[key] = Selector.from_mapping(_target(r, value, f"{what}'s {key}"))
        elif key == "contains_descendants":
            if not isinstance(value, SequenceNode) or not value.value:
                raise r.fail(value, f"{what}'s contains_descendants must be a list of selectors")
            values[key] = tuple(
                Selector.from_mapping(_target(r, item, f"{what}'s contains_descendants"))
                for item in value.value
            )
        else:  # enabled / visible / checked / focused / selected
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
    action = flow_commands()[command]
    # Every other argument the action takes (x, y, duration, repeat …), read as a plain value and
    # checked by the action with the rest.
    options = tuple(p.name for p in action.params if p.name != "target")
    _HANDLED = {"x", "y", "duration", "timeout", "interval"}
    if isinstance(node, ScalarNode):
        args: dict[str, Any] = {"target": _target(r, node, command)}
        if command in DEFAULT_TIMEOUTS:
            args.update(_poll_options(r, command, {}))
        return args, None
    entries = r.mapping(node, command, ("target", *_SELECTOR_FIELDS, *options))
    chosen = {k: v for k, v in entries.items() if k in _SELECTOR_FIELDS}
    if "target" in entries and chosen:
        raise r.fail(node, f"{command} takes its selector under `target:` or inline, not both")
    args = {}
    if "x" in entries or "y" in entries:
        if chosen or "target" in entries or "x" not in entries or "y" not in entries:
            raise r.fail(node, f"{command} takes either a point (both x and y) or a selector, not both")
        args = {k: r.number(entries[k], f"{command}'s {k}", 0, MAX_COORDINATE) for k in ("x", "y")}
    elif "target" in entries:
        args["target"] = _target(r, entries["target"], f"{command}'s target")
    elif not chosen:
        raise r.fail(
            node, f"{command} needs a selector", hint=f"e.g. `{command}: {{text: OK}}` or `{command}: OK`"
        )
    else:
        args["target"] = _selector(r, node, chosen, command)
    if command == "long_press" and "duration" in entries:
        args["duration"] = r.number(
            entries["duration"], "long_press's duration", 0, MAX_GESTURE, open_low=True
        )
    if "target" in args:
        args.update(_poll_options(r, command, entries))
    elif "timeout" in entries or "interval" in entries:
        raise r.fail(node, f"{command} at a point waits for nothing: timeout and interval need a selector")
    for name in options:
        if name in entries and name not in _HANDLED:
            args[name] = r.scalar_value(entries[name], f"{command}'s {name}")
    return args, None


def _type_text(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode):
        return {"text": r.string(node, "type_text's text", allow_empty=True)}, None
    entries = r.mapping(node, command, ("text", "target", "secret", "timeout", "interval"))
    if "text" not in entries:
        raise r.fail(
            node, "type_text needs `text:`", hint="e.g. `type_text: {text: qa, target: {id: username}}`"
        )
    secret = r.boolean(entries["secret"], "type_text's secret") if "secret" in entries else False
    text = r.string(entries["text"], "type_text's text", allow_empty=True)
    args: dict[str, Any] = {"text": text}
    if "target" in entries:
        args["target"] = _target(r, entries["target"], "type_text's target")
        args.update(_poll_options(r, command, entries))
    elif "timeout" in entries or "interval" in entries:
        raise r.fail(node, "type_text waits only for a target: give `target:` with the timeout")
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
        direction = r.string(entries["direction"], "swipe's direction").lower()  # Maestro writes UP
        if direction not in DIRECTIONS or any(c in entries for c in coords):
            raise r.fail(
                entries["direction"],
                f"swipe direction must be one of {', '.join(DIRECTIONS)}, without coordinates",
                hint=suggest(direction, DIRECTIONS),
            )
        args["direction"] = direction
    elif all(c in entries for c in coords):
        args.update({c: r.number(entries[c], f"swipe's {c}", 0, MAX_COORDINATE) for c in coords})
    else:
        raise r.fail(node, "swipe needs a direction (up, down, left, right) or all of x1, y1, x2, y2")
    if "duration" in entries:
        args["duration"] = r.number(entries["duration"], "swipe's duration", 0, MAX_GESTURE)
    return args, None


def _press(r: NodeReader, node: Node, command: str) -> StepArgs:
    key = r.string(node, "press's key")
    if key not in KEYS:
        raise r.fail(node, f"unknown key {key!r}", hint=suggest(key, KEYS))
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
    for name in ("optional", "when"):
        if name in entries:
            raise r.fail(
                entries[name],
                f"remember takes variables, so `{name}` here would be one",
                hint=f"write `{name}:` beside the command: `- remember: {{…}}` then `  {name}: …`",
            )
    values = {name: r.scalar_value(value, f"remembered value {name!r}") for name, value in entries.items()}
    args: dict[str, Any] = {"remember": values}
    if secret:
        args["secret"] = True
        r.secrets.update(str(v) for v in values.values() if str(v))
    return args, None


def _screenshot(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode) and node.tag == TAG + "null":
        return {}, None
    if isinstance(node, MappingNode):  # {name, crop_on}
        return _generic(r, node, command)
    return {"name": r.string(node, "screenshot's name")}, None


def _value(r: NodeReader, action: Action, name: str, node: Node, what: str) -> Any:
    """An argument's value: a list of plain values (``add_media``'s files, ``travel``'s points),
    a selector for an argument that takes one (``crop_on``), a mapping of plain values (names to
    values: ``set_permissions``' permissions), else a plain value."""
    if isinstance(node, SequenceNode):
        return [r.scalar_value(item, f"{what} item") for item in node.value]
    param = action.param(name)
    if isinstance(node, MappingNode) and param is not None and isinstance(param.kind, SelectorKind):
        return _target(r, node, what)
    if isinstance(node, MappingNode):  # names to values, such as set_permissions' permissions
        return {key: r.scalar_value(value, f"{what} {key}") for key, value in r.mapping(node, what).items()}
    return r.scalar_value(node, what)


def _scroll(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode):
        entries: dict[str, Node] = {"target": node}
    else:
        entries = r.mapping(
            node, command, ("target", "direction", "max_swipes", "timeout", "interval", *_SELECTOR_FIELDS)
        )
    inline = {k: v for k, v in entries.items() if k in _SELECTOR_FIELDS}
    if "target" in entries and inline:
        raise r.fail(node, f"{command} takes its selector under `target:` or inline, not both")
    if "target" in entries:
        target = _target(r, entries["target"], f"{command}'s target")
    elif inline:
        target = _selector(r, node, inline, command)
    else:
        raise r.fail(node, f"{command} needs a target", hint=f"e.g. `{command}: {{target: {{text: About}}}}`")
    args: dict[str, Any] = {"target": target, **_poll_options(r, command, entries)}
    if "direction" in entries:
        direction = r.string(entries["direction"], f"{command}'s direction").lower()  # Maestro: DOWN
        if direction not in DIRECTIONS:
            raise r.fail(
                entries["direction"], f"unknown direction {direction!r}", hint=suggest(direction, DIRECTIONS)
            )
        args["direction"] = direction
    if "max_swipes" in entries:
        value = entries["max_swipes"]
        if not (isinstance(value, ScalarNode) and value.tag in (TAG + "int", TAG + "str")):
            raise r.fail(value, f"{command}'s max_swipes must be a whole number, got {kind(value)}")
        swipes = r.number(value, f"{command}'s max_swipes", 0, MAX_SWIPES)
        if swipes != int(swipes):
            raise r.fail(value, f"{command}'s max_swipes must be a whole number, got {swipes:g}")
        args["max_swipes"] = int(swipes)
    return args, None


def _open_link(r: NodeReader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode):
        entries: dict[str, Node] = {"url": node}
    else:
        entries = r.mapping(node, command, ("url", "app"))
    if "url" not in entries:
        raise r.fail(node, "open_link needs a URL", hint="e.g. `open_link: https://example.com`")
    url = r.string(entries["url"], "open_link's URL")
    try:
        URL.kind.check(url, "url")
    except StepArgumentError:
        raise r.fail(
            entries["url"],
            f"open_link needs a link with a scheme and no spaces, got {url[:80]!r}",
            hint="e.g. https://example.com/path or myapp://screen",
        ) from None
    app = _app_ref(r, entries["app"], "open_link's app")[0] if "app" in entries else None
    return {"url": url}, app


def _generic(r: NodeReader, node: Node, command: str) -> StepArgs:
    """An action's command read from its flow form alone: nothing (when it may be written alone),
    a plain value (its short argument), or a mapping of its arguments."""
    form = flow_commands()[command].flow
    assert form is not None
    if isinstance(node, ScalarNode) and node.tag == TAG + "null":
        if form.bare:
            return {}, None
        raise r.fail(node, f"{command} needs a value")
    action = flow_commands()[command]
    if not action.params:
        raise r.fail(node, f"{command} takes no value, got {kind(node)}", hint=f"write `- {command}`")
    if isinstance(node, ScalarNode | SequenceNode) and form.short is not None:
        return {form.short: _value(r, action, form.short, node, f"{command}'s {form.short}")}, None
    if isinstance(node, ScalarNode):
        raise r.fail(node, f"{command} takes a mapping of its arguments, got {kind(node)}")
    entries = r.mapping(node, command, tuple(sorted(action.keys)))
    return {
        name: _value(r, action, name, value, f"{command}'s {name}") for name, value in entries.items()
    }, None


def read_command(r: NodeReader, node: Node, command: str) -> StepArgs:
    """``command``'s arguments read from its value ``node``, then checked by its action (a
    problem at the argument's value when the action names it, else at the command's value)."""
    args, app = READERS.get(command, _generic)(r, node, command)
    action = flow_commands()[command]
    checked = dict(args)
    if app is not None:  # the per-platform choice is made later; check with any of its ids
        checked["app_id"] = app.default or next(iter(app.by_platform.values()))
    try:
        action.validate(checked)
    except StepArgumentError as exc:
        where = node
        if exc.argument is not None and isinstance(node, MappingNode):
            where = next((v for k, v in node.value if getattr(k, "value", None) == exc.argument), node)
        raise r.fail(where, f"{command}: {exc.message}", hint=exc.hint) from None
    return args, app


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
    "scroll_until_visible": _scroll,
    "open_link": _open_link,
    "clear_state": _app_step,
}
# Commands written alone (`- hide_keyboard`), with no value.
BARE_COMMANDS: tuple[str, ...] = tuple(
    command for command, action in flow_commands().items() if action.flow and action.flow.bare
)
assert set(READERS) <= set(COMMANDS) and set(ACTIONS) >= set(COMMANDS)
app_ref = _app_ref
target = _target
