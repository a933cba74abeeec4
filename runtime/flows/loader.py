"""Read a flow file (YAML) into a validated :class:`~runtime.flows.model.Flow`, keeping positions.

The YAML is composed into nodes with a safe loader (never constructed into Python objects by
PyYAML), so every value keeps its line and column and every problem is a ``FlowError`` naming
``file:line:column`` with a hint. The whole file is checked before anything can run; all problems
are collected (one per step) and raised together as a ``FlowValidationError``.

Limits that keep a hostile file harmless: at most :data:`MAX_FLOW_BYTES` bytes, no anchors or
aliases (a "billion laughs" file is refused before it is expanded), at most :data:`MAX_DEPTH`
levels of nesting and :data:`MAX_STEPS` steps.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core.errors import ConfigError, FlowError
from core.selectors import Selector
from runtime.flows.model import (
    COMMANDS,
    DEFAULT_TIMEOUTS,
    AppRef,
    Flow,
    FlowStep,
    FlowValidationError,
    SourcePosition,
)

__all__ = ["KNOWN_KEYS", "MAX_DEPTH", "MAX_FLOW_BYTES", "MAX_STEPS", "load_flow", "parse_flow"]

MAX_FLOW_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_STEPS = 10_000
MAX_TIMEOUT = 300.0
TOP_KEYS = ("name", "description", "platform", "env", "steps")
# Keys press: accepts; a backend may support fewer (the device then says so).
KNOWN_KEYS = ("home", "back", "enter", "volume_up", "volume_down", "menu", "recent", "power")
DIRECTIONS = ("up", "down", "left", "right")

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_T = "tag:yaml.org,2002:"
_VAR = re.compile(r"\$\$\{|\$\{([^}]*)\}?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SELECTOR_FIELDS = tuple(f.name for f in fields(Selector))
_SELECTOR_STRINGS = frozenset({"text", "text_contains", "text_regex", "id", "label", "type"})


class _Invalid(Exception):
    """Internal: one problem, carried up to the step being read."""

    def __init__(self, error: FlowError) -> None:
        super().__init__(str(error))
        self.error = error


def _suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    listed = ", ".join(choices)
    return f"did you mean {close[0]!r}? accepted: {listed}" if close else f"accepted: {listed}"


@dataclass
class _Reader:
    """Validation state for one file: where it is, how to resolve ``${VAR}``, what is secret."""

    file: str
    environ: Mapping[str, str]
    flow_env: dict[str, str] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)

    # --- positions and problems ---------------------------------------------------------------

    def pos(self, node: Node) -> SourcePosition:
        mark = node.start_mark
        return SourcePosition(self.file, mark.line + 1, mark.column + 1)

    def fail(self, node: Node, message: str, hint: str | None = None) -> _Invalid:
        return _Invalid(self.pos(node).error(message, hint))

    # --- scalars --------------------------------------------------------------------------------

    def substitute(self, node: ScalarNode) -> str:
        """The scalar's text with ``${NAME}`` replaced (process environment first, then ``env:``);
        ``$${`` stands for a literal ``${``."""

        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$${":
                return "${"
            name = match.group(1)
            if not match.group(0).endswith("}") or name is None or not _NAME.fullmatch(name):
                raise self.fail(
                    node,
                    f"bad variable reference {match.group(0)!r}",
                    hint="write ${NAME} with a letter or _ first, or $${ for a literal ${",
                )
            if name in self.environ:
                return self.environ[name]
            if name in self.flow_env:
                return self.flow_env[name]
            raise self.fail(
                node,
                f"undefined variable ${{{name}}}",
                hint=f"set {name} in the environment or give it a default under the flow's `env:`",
            )

        return _VAR.sub(replace, str(node.value))

    def string(self, node: Node, what: str, *, allow_empty: bool = False) -> str:
        if not isinstance(node, ScalarNode) or node.tag == _T + "null":
            raise self.fail(node, f"{what} must be a string, got {_kind(node)}")
        if node.tag not in _PLAIN_TAGS:
            raise self.fail(node, f"{what}: the YAML tag {node.tag!r} is not allowed in a flow")
        text = self.substitute(node)
        if not allow_empty and not text.strip():
            raise self.fail(node, f"{what} must not be empty")
        return text

    def number(self, node: Node, what: str, low: float, high: float, *, open_low: bool = False) -> float:
        value: float | None = None
        if isinstance(node, ScalarNode) and node.tag in (_T + "int", _T + "float"):
            value = float(_CONSTRUCTOR.construct_object(node))
        elif isinstance(node, ScalarNode) and node.tag == _T + "str":
            try:
                value = float(self.substitute(node))
            except ValueError:
                value = None
        if value is None or value != value:
            raise self.fail(node, f"{what} must be a number, got {_kind(node)}")
        if value < low or value > high or (open_low and value == low):
            bound = f"above {low:g}" if open_low else f"at least {low:g}"
            raise self.fail(node, f"{what} must be {bound} and at most {high:g}, got {value:g}")
        return value

    def boolean(self, node: Node, what: str) -> bool:
        if isinstance(node, ScalarNode) and node.tag == _T + "bool":
            return bool(_CONSTRUCTOR.construct_object(node))
        if isinstance(node, ScalarNode) and node.tag == _T + "str":
            text = self.substitute(node).strip().lower()
            if text in ("true", "false"):
                return text == "true"
        raise self.fail(node, f"{what} must be true or false, got {_kind(node)}")

    def scalar_value(self, node: Node, what: str) -> Any:
        """A remembered value: a string (with ``${VAR}``), a number or a boolean."""
        if isinstance(node, ScalarNode) and node.tag in (_T + "int", _T + "float", _T + "bool"):
            return _CONSTRUCTOR.construct_object(node)
        return self.string(node, what, allow_empty=True)

    # --- mappings -------------------------------------------------------------------------------

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...] | None = None) -> dict[str, Node]:
        """A mapping's entries by key; unknown or repeated keys are problems at the key."""
        if not isinstance(node, MappingNode):
            raise self.fail(node, f"{what} must be a mapping, got {_kind(node)}")
        out: dict[str, Node] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag not in _PLAIN_TAGS:
                raise self.fail(key_node, f"{what}: keys must be plain strings, got {_kind(key_node)}")
            key = str(key_node.value)
            if key in out:
                raise self.fail(key_node, f"{what}: key {key!r} is given twice")
            if allowed is not None and key not in allowed:
                raise self.fail(key_node, f"{what}: unknown key {key!r}", hint=_suggest(key, list(allowed)))
            out[key] = value_node
        return out


_CONSTRUCTOR = SafeConstructor()
_PLAIN_TAGS = frozenset(_T + t for t in ("str", "int", "float", "bool", "timestamp"))


def _kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag == _T + "null":
        return "nothing (null)"
    return f"{node.tag.rsplit(':', 1)[-1]} {str(node.value)!r}"


# --- command readers ----------------------------------------------------------------------------
# Each takes the reader, the command's value node and the command name, and returns
# (executor args, app reference or None).

StepArgs = tuple[dict[str, Any], AppRef | None]


def _app_ref(
    r: _Reader, node: Node, command: str, extra: tuple[str, ...] = ()
) -> tuple[AppRef, dict[str, Node]]:
    hint = f"write `{command}: APP_ID`, or `{command}: {{android: PACKAGE, ios: BUNDLE_ID}}`"
    if isinstance(node, ScalarNode):
        return AppRef(default=r.string(node, f"{command}'s app ID")), {}
    if not isinstance(node, MappingNode):
        raise r.fail(node, f"{command} needs an app ID, got {_kind(node)}", hint)
    entries = r.mapping(node, command, ("android", "ios", *extra))
    apps: dict[str, str] = {
        p: r.string(entries[p], f"{command}'s {p} app ID") for p in ("android", "ios") if p in entries
    }
    if not apps:
        raise r.fail(node, f"{command} needs an app ID for android, ios or both", hint)
    return AppRef(by_platform=apps), {k: v for k, v in entries.items() if k in extra}


def _poll_options(r: _Reader, command: str, entries: Mapping[str, Node]) -> dict[str, Any]:
    out: dict[str, Any] = {"timeout": DEFAULT_TIMEOUTS[command]}
    if "timeout" in entries:
        out["timeout"] = r.number(entries["timeout"], f"{command}'s timeout", 0, MAX_TIMEOUT)
    if "interval" in entries:
        out["interval"] = r.number(
            entries["interval"], f"{command}'s interval", 0, MAX_TIMEOUT, open_low=True
        )
    return out


def _app_step(r: _Reader, node: Node, command: str) -> StepArgs:
    extra = ("timeout", "interval") if command == "assert_app" else ()
    app, entries = _app_ref(r, node, command, extra)
    return (_poll_options(r, command, entries) if command == "assert_app" else {}), app


def _selector(r: _Reader, node: Node, entries: Mapping[str, Node], what: str) -> dict[str, Any]:
    """Selector fields from ``entries`` (already known to be selector fields), checked by Selector."""
    values: dict[str, Any] = {}
    for key, value in entries.items():
        if key in _SELECTOR_STRINGS:
            values[key] = r.string(value, f"{what}'s {key}")
        elif key == "index":
            if not (isinstance(value, ScalarNode) and value.tag == _T + "int"):
                raise r.fail(value, f"{what}'s index must be a whole number, got {_kind(value)}")
            values[key] = int(r.number(value, f"{what}'s index", 0, 1_000_000))
        else:  # enabled / visible
            values[key] = r.boolean(value, f"{what}'s {key}")
    try:
        return Selector(**values).to_dict()
    except ConfigError as exc:
        raise r.fail(
            node, f"{what}: {exc.message}", hint=exc.hint or "see the selector fields in docs/flows.md"
        ) from exc


def _target(r: _Reader, node: Node, what: str) -> dict[str, Any]:
    """A selector written alone: a string (text) or a mapping of selector fields."""
    if isinstance(node, ScalarNode):
        return _selector(r, node, {"text": node}, what)
    return _selector(r, node, r.mapping(node, what, _SELECTOR_FIELDS), what)


def _selector_step(r: _Reader, node: Node, command: str) -> StepArgs:
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


def _type_text(r: _Reader, node: Node, command: str) -> StepArgs:
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


def _swipe(r: _Reader, node: Node, command: str) -> StepArgs:
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
                hint=_suggest(direction, DIRECTIONS),
            )
        args["direction"] = direction
    elif all(c in entries for c in coords):
        args.update({c: r.number(entries[c], f"swipe's {c}", 0, 100_000) for c in coords})
    else:
        raise r.fail(node, "swipe needs a direction (up, down, left, right) or all of x1, y1, x2, y2")
    if "duration" in entries:
        args["duration"] = r.number(entries["duration"], "swipe's duration", 0, 60)
    return args, None


def _press(r: _Reader, node: Node, command: str) -> StepArgs:
    key = r.string(node, "press's key")
    if key not in KNOWN_KEYS:
        raise r.fail(node, f"unknown key {key!r}", hint=_suggest(key, KNOWN_KEYS))
    return {"key": key}, None


def _remember(r: _Reader, node: Node, command: str) -> StepArgs:
    entries = r.mapping(node, command)
    secret = False
    if (
        "secret" in entries
        and isinstance(entries["secret"], ScalarNode)
        and entries["secret"].tag == _T + "bool"
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


def _screenshot(r: _Reader, node: Node, command: str) -> StepArgs:
    if isinstance(node, ScalarNode) and node.tag == _T + "null":
        return {}, None
    return {"name": r.string(node, "screenshot's name")}, None


_READERS: dict[str, Callable[[_Reader, Node, str], StepArgs]] = {
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
assert set(_READERS) == set(COMMANDS)


# --- the file -----------------------------------------------------------------------------------


def _yaml_error(file: str, exc: yaml.YAMLError) -> FlowError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"not valid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is None:
        return FlowError(message, file=file)
    return FlowError(message, file=file, line=mark.line + 1, column=mark.column + 1)


def _compose(text: str, file: str) -> Node | None:
    """Compose one YAML document into nodes, refusing anchors, aliases and deep nesting first."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_SafeLoader):
            mark = event.start_mark
            line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise FlowError(
                    "YAML anchors and aliases (&name, *name) are not allowed in a flow file",
                    file=file,
                    line=line,
                    column=column,
                    hint="write the value out in full; aliases can blow a small file up into huge data",
                )
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise FlowError(
                        f"nested more than {MAX_DEPTH} levels deep",
                        file=file,
                        line=line,
                        column=column,
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        node: Node | None = yaml.compose(text, Loader=_SafeLoader)
        return node
    except yaml.YAMLError as exc:
        raise _yaml_error(file, exc) from exc


def _read_env(r: _Reader, node: Node) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in r.mapping(node, "env").items():
        if not _NAME.fullmatch(name):
            raise r.fail(node, f"env: {name!r} is not a variable name", hint="use letters, digits and _")
        if not isinstance(value, ScalarNode) or value.tag not in _PLAIN_TAGS:
            raise r.fail(value, f"env {name} must be a string, number or boolean, got {_kind(value)}")
        out[name] = str(value.value)
    return out


def _read_steps(r: _Reader, node: Node, problems: list[FlowError]) -> list[FlowStep]:
    if not isinstance(node, SequenceNode):
        raise r.fail(
            node, f"steps must be a list, got {_kind(node)}", hint="write each step as `- command: value`"
        )
    if not node.value:
        raise r.fail(node, "steps is empty: a flow needs at least one step")
    if len(node.value) > MAX_STEPS:
        raise r.fail(node, f"a flow has at most {MAX_STEPS} steps, this one has {len(node.value)}")
    steps: list[FlowStep] = []
    for number, item in enumerate(node.value, start=1):
        try:
            if not isinstance(item, MappingNode) or len(item.value) != 1:
                raise r.fail(
                    item,
                    f"step {number} must be a mapping with exactly one command, got "
                    + (f"{len(item.value)} keys" if isinstance(item, MappingNode) else _kind(item)),
                    hint="write one command per list item, e.g. `- tap: Sign in`",
                )
            key_node, value_node = item.value[0]
            command = str(key_node.value) if isinstance(key_node, ScalarNode) else ""
            if command not in _READERS:
                raise r.fail(key_node, f"unknown command {command!r}", hint=_suggest(command, COMMANDS))
            args, app = _READERS[command](r, value_node, command)
            steps.append(FlowStep(number, command, r.pos(key_node), args, app))
        except _Invalid as bad:
            problems.append(bad.error)
    return steps


def parse_flow(text: str, *, file: str = "<flow>", environ: Mapping[str, str] | None = None) -> Flow:
    """Validate flow ``text`` (named ``file`` in messages). ``environ`` defaults to ``os.environ``."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FLOW_BYTES:
        raise FlowError(
            f"the flow is larger than {MAX_FLOW_BYTES} bytes", file=file, hint="split it into smaller flows"
        )
    root = _compose(text, file)
    if root is None:
        raise FlowError("the flow file is empty", file=file, line=1, column=1, hint="a flow needs `steps:`")
    r = _Reader(file, os.environ if environ is None else environ)
    problems: list[FlowError] = []
    name = Path(file).stem
    platform: Any = None
    description: str | None = None
    steps: list[FlowStep] = []
    try:
        top = r.mapping(root, "the flow", TOP_KEYS)
        if "env" in top:
            r.flow_env = _read_env(r, top["env"])
        if "name" in top:
            name = r.string(top["name"], "name")
        if "description" in top:
            description = r.string(top["description"], "description", allow_empty=True)
        if "platform" in top:
            platform = r.string(top["platform"], "platform")
            if platform not in ("android", "ios"):
                raise r.fail(top["platform"], f"platform must be android or ios, got {platform!r}")
        if "steps" not in top:
            raise r.fail(root, "the flow has no `steps:`", hint="add `steps:` with a list of commands")
        steps = _read_steps(r, top["steps"], problems)
    except _Invalid as bad:
        problems.insert(0, bad.error)
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        raise FlowValidationError(tuple(problems))
    return Flow(name, file, tuple(steps), dict(r.flow_env), platform, description, frozenset(r.secrets))


def load_flow(path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None) -> Flow:
    """Read and validate the flow file at ``path``; any problem is a ``FlowError`` (nothing runs)."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FLOW_BYTES:
                raise FlowError(
                    f"the flow file is {size} bytes; the limit is {MAX_FLOW_BYTES}",
                    file=file,
                    hint="split it into smaller flows",
                )
            data = handle.read(MAX_FLOW_BYTES + 1)
    except OSError as exc:
        raise FlowError(
            f"cannot read the flow file: {exc.strerror or exc}", file=file, hint="check the path"
        ) from exc
    if len(data) > MAX_FLOW_BYTES:
        raise FlowError(f"the flow file is larger than {MAX_FLOW_BYTES} bytes", file=file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FlowError(f"the flow file is not UTF-8 text (byte {exc.start})", file=file) from exc
    return parse_flow(text, file=file, environ=environ)
