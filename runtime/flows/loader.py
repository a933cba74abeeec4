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

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import FlowError
from .commands import KNOWN_KEYS, READERS
from .model import COMMANDS, Flow, FlowStep, FlowValidationError
from .nodes import NAME, PLAIN_TAGS, Invalid, NodeReader, kind, suggest

__all__ = ["KNOWN_KEYS", "MAX_DEPTH", "MAX_FLOW_BYTES", "MAX_STEPS", "load_flow", "parse_flow"]

MAX_FLOW_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_STEPS = 10_000
TOP_KEYS = ("name", "description", "platform", "env", "steps")

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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


def _read_env(r: NodeReader, node: Node) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in r.mapping(node, "env").items():
        if not NAME.fullmatch(name):
            raise r.fail(node, f"env: {name!r} is not a variable name", hint="use letters, digits and _")
        if not isinstance(value, ScalarNode) or value.tag not in PLAIN_TAGS:
            raise r.fail(value, f"env {name} must be a string, number or boolean, got {kind(value)}")
        out[name] = str(value.value)
    return out


def _read_steps(r: NodeReader, node: Node, problems: list[FlowError]) -> list[FlowStep]:
    if not isinstance(node, SequenceNode):
        raise r.fail(
            node, f"steps must be a list, got {kind(node)}", hint="write each step as `- command: value`"
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
                    + (f"{len(item.value)} keys" if isinstance(item, MappingNode) else kind(item)),
                    hint="write one command per list item, e.g. `- tap: Sign in`",
                )
            key_node, value_node = item.value[0]
            command = str(key_node.value) if isinstance(key_node, ScalarNode) else ""
            if command not in READERS:
                raise r.fail(key_node, f"unknown command {command!r}", hint=suggest(command, COMMANDS))
            args, app = READERS[command](r, value_node, command)
            steps.append(FlowStep(number, command, r.pos(key_node), args, app))
        except Invalid as bad:
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
    r = NodeReader(file, os.environ if environ is None else environ)
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
    except Invalid as bad:
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
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        raise FlowError(
            f"cannot read the flow file: {getattr(exc, 'strerror', None) or exc}",
            file=file,
            hint="check the path",
        ) from exc
    if len(data) > MAX_FLOW_BYTES:
        raise FlowError(f"the flow file is larger than {MAX_FLOW_BYTES} bytes", file=file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FlowError(f"the flow file is not UTF-8 text (byte {exc.start})", file=file) from exc
    return parse_flow(text, file=file, environ=environ)
