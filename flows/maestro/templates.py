"""``${...}`` in a Maestro flow's values, evaluated when the step runs.

Maestro interpolates every string of a command right before the command runs
(``orchestra/Orchestra.kt:309``): each ``${...}`` (no ``$`` inside) is evaluated as JavaScript and
replaced by its text, ``\\${`` stays a literal ``${`` and an empty ``${}`` is ``""``
(``models/util/Env.kt:10-26``). :func:`interpolate` does that with the evaluation it is given.
:func:`realize` reads a :class:`~amc.flows.model.Template` (a command whose values hold JavaScript)
again with every value interpolated, by the same command reader the flow was read with, so a
computed number, selector or app is checked as any other value (a problem is a ``FlowError`` at the
command's line).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import FlowError
from ..model import Template
from ..nodes import TAG, Invalid
from .commands import Command, read_command
from .values import EXPRESSION, LiteralReader

__all__ = ["has_expression", "interpolate", "realize"]

_PIECE = re.compile(r"\\\$\{|" + EXPRESSION.pattern)

Evaluate = Callable[[str], str]
# (an expression, the line and column of the value it is in) -> its text
EvaluateAt = Callable[[str, int, int], str]


def has_expression(text: str) -> bool:
    """Whether ``text`` holds a ``${...}`` to evaluate (or a ``\\${`` to unescape)."""
    return "${" in text


def interpolate(text: str, evaluate: Evaluate) -> str:
    """``text`` with each ``${...}`` replaced by ``evaluate(its inside, stripped)`` (an empty one by
    ``""``) and each ``\\${`` by ``${``, in one pass (a value that holds ``${`` stays as it is)."""

    def one(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return "${"
        inner = match.group(1).strip()
        return evaluate(inner) if inner else ""

    return _PIECE.sub(one, text)


def _substituted(node: Node, evaluate: EvaluateAt) -> Node:
    """A copy of ``node`` with every string scalar interpolated (keys are names, never evaluated)."""
    if isinstance(node, ScalarNode):
        text = str(node.value)
        if node.tag != TAG + "str" or not has_expression(text):
            return node
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        done = interpolate(text, lambda inner: evaluate(inner, line, column))
        return ScalarNode(node.tag, done, node.start_mark, node.end_mark, node.style)
    if isinstance(node, SequenceNode):
        items = [_substituted(item, evaluate) for item in node.value]
        return SequenceNode(node.tag, items, node.start_mark, node.end_mark, node.flow_style)
    if isinstance(node, MappingNode):
        pairs = [(key, _substituted(value, evaluate)) for key, value in node.value]
        return MappingNode(node.tag, pairs, node.start_mark, node.end_mark, node.flow_style)
    return node


def realize(template: Template, file: str, evaluate: EvaluateAt) -> Command:
    """The command ``template`` holds, read again with every ``${...}`` of its values evaluated now
    (``evaluate`` is told where each value is); a value that does not fit the command is a
    ``FlowError`` naming ``file``, line and column."""
    node = _substituted(template.node, evaluate)
    reader = LiteralReader(file, {})
    app = template.app_id
    if app is not None and has_expression(app):  # the header's appId, computed by its env
        mark = template.node.start_mark
        app = interpolate(app, lambda inner: evaluate(inner, mark.line + 1, mark.column + 1))
    try:
        return read_command(reader, template.command, node, app, template.base)
    except Invalid as bad:
        error: FlowError = bad.error
        said = error.message.removeprefix(f"{error.file}:{error.line}:{error.column}: ")
        raise FlowError(
            f"{template.command}, once its ${{...}} were evaluated: {said}",
            file=error.file,
            line=error.line,
            column=error.column,
            hint=error.hint,
        ) from None
