"""Reading a flow's ``steps:``: each item's command, its ``optional`` / ``when``, conditions and
the commands that hold steps (``repeat``, ``retry``, ``run_flow``).

A step is a mapping with one command and, beside it or inside the command's own mapping,
``optional: true`` and ``when: CONDITION``; a command that takes no value may be written alone
(``- hide_keyboard``). Every step's problem is collected (one per step), nested lists included.
``run_flow`` hands its file to the loader through :class:`Includer`, so the loader alone reads files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..actions import flow_commands
from ..actions.base import MAX_SETTLE
from ..core.errors import FlowError
from .commands import BARE_COMMANDS, app_ref, read_command, target
from .conditions import CONDITION_KEYS, AppIs, Combined, Condition, PlatformIs, Seen
from .model import BLOCK_COMMANDS, COMMANDS, Flow, FlowStep, Repeat, Retry, RunFlow
from .model import Node as FlowNode
from .nodes import NAME, PLAIN_TAGS, TAG, Invalid, NodeReader, kind, suggest

__all__ = ["MAX_REPEAT", "MAX_RETRY", "MAX_STEPS", "MODIFIERS", "Includer", "read_steps"]

MAX_STEPS = 10_000
MAX_REPEAT = 1000
MAX_RETRY = 10
DEFAULT_WHILE_MAX = 10
MODIFIERS = ("optional", "when", "settle")
ALL_COMMANDS: tuple[str, ...] = (*COMMANDS, *BLOCK_COMMANDS)
# Commands whose own mapping may hold `optional` / `when` (remember's keys are variable names).
_INNER = frozenset(ALL_COMMANDS) - {"remember"}

# (reader, the run_flow's file node, its path as written, its env values) -> the subflow
Includer = Callable[[NodeReader, Node, str, dict[str, str]], Flow]


@dataclass(frozen=True)
class _Modifiers:
    optional: bool = False
    when: Condition | None = None
    settle: float | None = None


def _split(node: Node, command: str) -> tuple[Node, dict[str, Node]]:
    """The command's value without the ``optional`` / ``when`` keys written inside it, and those."""
    if command not in _INNER or not isinstance(node, MappingNode):
        return node, {}
    kept, found = [], {}
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value in MODIFIERS and key.value not in found:
            found[str(key.value)] = value
        else:
            kept.append((key, value))
    if not found:
        return node, {}
    if not kept and command in BARE_COMMANDS:
        null = ScalarNode(TAG + "null", "", node.start_mark, node.end_mark)
        return null, found
    return MappingNode(node.tag, kept, node.start_mark, node.end_mark, node.flow_style), found


def condition(r: NodeReader, node: Node, what: str) -> Condition:
    """A condition: one mapping of ``visible``, ``not_visible``, ``platform``, ``app``, ``all``,
    ``any`` (several keys: all of them must hold)."""
    entries = r.mapping(node, what, CONDITION_KEYS)
    if not entries:
        raise r.fail(node, f"{what} is empty", hint=f"use one of {', '.join(CONDITION_KEYS)}")
    parts: list[Condition] = []
    for key, value in entries.items():
        if key in ("visible", "not_visible"):
            parts.append(Seen(target(r, value, f"{what}'s {key}"), present=key == "visible"))
        elif key == "platform":
            platform = r.string(value, f"{what}'s platform").lower()  # Maestro writes Android / iOS
            if platform not in ("android", "ios"):
                raise r.fail(value, f"{what}'s platform must be android or ios, got {platform!r}")
            parts.append(PlatformIs(platform))
        elif key == "app":
            ref = app_ref(r, value, f"{what}'s app")[0]
            apps = {p: a for p in ("android", "ios") if (a := ref.for_platform(p)) is not None}
            parts.append(AppIs(apps))
        else:
            if not isinstance(value, SequenceNode) or not value.value:
                raise r.fail(
                    value, f"{what}'s {key} must be a non-empty list of conditions, got {kind(value)}"
                )
            inner = tuple(condition(r, item, f"{what}'s {key}") for item in value.value)
            parts.append(Combined(inner, every=key == "all"))
    return parts[0] if len(parts) == 1 else Combined(tuple(parts), every=True)


def _modifiers(r: NodeReader, nodes: dict[str, Node]) -> _Modifiers:
    optional = r.boolean(nodes["optional"], "optional") if "optional" in nodes else False
    when = condition(r, nodes["when"], "when") if "when" in nodes else None
    settle = r.number(nodes["settle"], "settle", 0, MAX_SETTLE) if "settle" in nodes else None
    return _Modifiers(optional, when, settle)


def _count(r: NodeReader, node: Node, what: str, low: int, high: int) -> int:
    if not (isinstance(node, ScalarNode) and node.tag in (TAG + "int", TAG + "str")):
        raise r.fail(node, f"{what} must be a whole number, got {kind(node)}")
    value = r.number(node, what, low, high)
    if value != int(value):
        raise r.fail(node, f"{what} must be a whole number, got {value:g}")
    return int(value)


def _block_steps(
    r: NodeReader,
    entries: dict[str, Node],
    node: Node,
    command: str,
    include: Includer,
    problems: list[FlowError],
) -> tuple[FlowNode, ...]:
    if "steps" not in entries:
        raise r.fail(node, f"{command} needs `steps:`", hint=f"e.g. `{command}: {{times: 2, steps: [...]}}`")
    return tuple(read_steps(r, entries["steps"], include, problems, what=f"{command}'s steps"))


def _block_mapping(r: NodeReader, node: Node, command: str, keys: tuple[str, ...]) -> dict[str, Node]:
    """A block's mapping; Maestro's words for its keys get a hint in ours."""
    maestro = {"commands": "steps", "maxRetries": "times"}
    if isinstance(node, MappingNode):
        for key_node, _value in node.value:
            ours = maestro.get(str(key_node.value)) if isinstance(key_node, ScalarNode) else None
            if ours is not None and ours in keys:
                raise r.fail(
                    key_node, f"{command}: unknown key {key_node.value!r}", hint=f"write `{ours}:` here"
                )
    return r.mapping(node, command, keys)


def _repeat(
    r: NodeReader, node: Node, number: int, mods: _Modifiers, include: Includer, problems: list[FlowError]
) -> Repeat:
    entries = _block_mapping(r, node, "repeat", ("times", "while", "max", "steps"))
    cond = condition(r, entries["while"], "repeat's while") if "while" in entries else None
    if cond is None and "times" not in entries:
        raise r.fail(
            node,
            "repeat needs `times: N` or `while: CONDITION`",
            hint="e.g. `repeat: {times: 3, steps: [...]}`",
        )
    if cond is None and "max" in entries:
        raise r.fail(entries["max"], "repeat's max bounds a `while:`; with `times:` alone it is not needed")
    if "times" in entries and "max" in entries:
        raise r.fail(entries["max"], "repeat takes `times` or `max` as its bound, not both")
    bound = entries.get("times") or entries.get("max")
    limit = (
        _count(r, bound, "repeat's times" if "times" in entries else "repeat's max", 1, MAX_REPEAT)
        if bound
        else DEFAULT_WHILE_MAX
    )
    steps = _block_steps(r, entries, node, "repeat", include, problems)
    return Repeat(number, r.pos(node), steps, limit, cond, mods.optional, mods.when)


def _retry(
    r: NodeReader, node: Node, number: int, mods: _Modifiers, include: Includer, problems: list[FlowError]
) -> Retry:
    entries = _block_mapping(r, node, "retry", ("times", "steps"))
    times = _count(r, entries["times"], "retry's times", 1, MAX_RETRY) if "times" in entries else 1
    steps = _block_steps(r, entries, node, "retry", include, problems)
    return Retry(number, r.pos(node), steps, times, mods.optional, mods.when)


def _run_flow(r: NodeReader, node: Node, number: int, mods: _Modifiers, include: Includer) -> RunFlow:
    if isinstance(node, ScalarNode):
        entries: dict[str, Node] = {"file": node}
    else:
        entries = r.mapping(node, "run_flow", ("file", "env"))
    if "file" not in entries:
        raise r.fail(
            node,
            "run_flow needs a file",
            hint="e.g. `run_flow: login.yaml` or `run_flow: {file: login.yaml}`",
        )
    path = r.string(entries["file"], "run_flow's file")
    env: dict[str, str] = {}
    if "env" in entries:
        for name, value in r.mapping(entries["env"], "run_flow's env").items():
            if not NAME.fullmatch(name):
                raise r.fail(entries["env"], f"run_flow's env: {name!r} is not a variable name")
            if not isinstance(value, ScalarNode) or value.tag not in PLAIN_TAGS:
                raise r.fail(
                    value, f"run_flow's env {name} must be a string, number or boolean, got {kind(value)}"
                )
            env[name] = r.substitute(value)
    flow = include(r, entries["file"], path, env)
    return RunFlow(number, r.pos(node), flow, mods.optional, mods.when)


def _item(r: NodeReader, item: Node, number: int, include: Includer, problems: list[FlowError]) -> FlowNode:
    key_node: Node
    value_node: Node
    if isinstance(item, ScalarNode) and item.tag == TAG + "str" and str(item.value) in BARE_COMMANDS:
        command, key_node, value_node, beside = (
            str(item.value),
            item,
            ScalarNode(TAG + "null", "", item.start_mark, item.end_mark),
            {},
        )
    else:
        if not isinstance(item, MappingNode):
            raise r.fail(
                item,
                f"step {number} must be a mapping with exactly one command, got {kind(item)}",
                hint="write one command per list item, e.g. `- tap: Sign in`",
            )
        keys = r.mapping(item, f"step {number}")
        commands = [k for k in keys if k not in MODIFIERS]
        if len(commands) != 1:
            found = ", ".join(repr(c) for c in commands) or "none"
            raise r.fail(
                item,
                f"step {number} must be a mapping with exactly one command (besides optional / when), "
                f"got {found}",
                hint="write one command per list item, e.g. `- tap: Sign in`",
            )
        command = commands[0]
        key_node = next(k for k, _ in item.value if isinstance(k, ScalarNode) and k.value == command)
        value_node = keys[command]
        beside = {k: v for k, v in keys.items() if k in MODIFIERS}
        if command not in ALL_COMMANDS:
            raise r.fail(key_node, f"unknown command {command!r}", hint=suggest(command, ALL_COMMANDS))
    value_node, inside = _split(value_node, command)
    for name in set(beside) & set(inside):
        raise r.fail(inside[name], f"`{name}` is given twice: beside the command and inside it")
    mods = _modifiers(r, {**beside, **inside})
    r.commands += 1
    if r.commands > MAX_STEPS:
        raise r.fail(key_node, f"a flow has at most {MAX_STEPS} steps")
    if command == "repeat":
        return _repeat(r, value_node, number, mods, include, problems)
    if command == "retry":
        return _retry(r, value_node, number, mods, include, problems)
    if command == "run_flow":
        return _run_flow(r, value_node, number, mods, include)
    args, app = read_command(r, value_node, command)
    settle = mods.settle if mods.settle is not None else r.default_settle
    if settle is not None and flow_commands()[command].changes_screen:
        args = {**args, "settle": settle}
    return FlowStep(number, command, r.pos(key_node), args, app, mods.optional, mods.when)


def read_steps(
    r: NodeReader, node: Node, include: Includer, problems: list[FlowError], *, what: str = "steps"
) -> list[FlowNode]:
    """The steps of a ``steps:`` list; each step's problem is appended to ``problems``."""
    if not isinstance(node, SequenceNode):
        raise r.fail(
            node, f"{what} must be a list, got {kind(node)}", hint="write each step as `- command: value`"
        )
    if not node.value:
        raise r.fail(node, f"{what} is empty: it needs at least one step")
    steps: list[FlowNode] = []
    for number, item in enumerate(node.value, start=1):
        try:
            steps.append(_item(r, item, number, include, problems))
        except Invalid as bad:
            problems.append(bad.error)
        if r.commands > MAX_STEPS:
            break
    return steps
