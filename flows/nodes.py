"""Reading YAML nodes for the flow loader: typed values with positions, ``${VAR}`` substitution.

A :class:`NodeReader` turns PyYAML nodes (never constructed objects) into strings, numbers,
booleans and mappings, and every problem into an :class:`Invalid` carrying a ``FlowError`` at the
node's line and column. A ``${NAME}`` that nothing sets is an :class:`UnsetVariable`, told apart
from the file's own problems: it only matters to a run of that flow (``amc run`` checks it only for
the flows its tags choose).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..core.errors import FlowError
from ..core.limits import quote
from ..storage.redaction import named_like_credential
from .model import SourcePosition

__all__ = [
    "CONSTRUCTOR",
    "NAME",
    "PLAIN_TAGS",
    "TAG",
    "Invalid",
    "NodeReader",
    "UnsetVariable",
    "kind",
    "suggest",
]

TAG = "tag:yaml.org,2002:"
MAX_MESSAGE = 400  # characters of a problem's message: a value from the file is quoted, never echoed whole
MAX_NUMBER_TEXT = 40  # characters of a YAML number; longer is no number a flow can use
VAR = re.compile(r"\$\$\{|\$\{([^}]*)\}?")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class UnsetVariable(FlowError):
    """A flow uses a ``${NAME}`` that neither the environment, ``--env``, its ``env:`` nor the flow
    running it sets: a problem for a run of that flow, not of the file."""


class Invalid(Exception):
    """Internal: one problem, carried up to the step being read."""

    def __init__(self, error: FlowError) -> None:
        super().__init__(str(error))
        self.error = error


def suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    listed = ", ".join(choices)
    return f"did you mean {close[0]!r}? accepted: {listed}" if close else f"accepted: {listed}"


@dataclass
class NodeReader:
    """Validation state for one file: where it is, how to resolve ``${VAR}``, what is secret."""

    file: str
    environ: Mapping[str, str]
    flow_env: dict[str, str] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)
    inherited: Mapping[str, str] = field(default_factory=dict)  # the including flow's variables
    default_timeout: float | None = None  # the flow's `defaults: {timeout: …}`
    default_settle: float | None = None  # the flow's `defaults: {settle: …}`
    commands: int = 0  # commands read so far (bounded by the loader)

    # --- positions and problems ---------------------------------------------------------------

    def pos(self, node: Node) -> SourcePosition:
        mark = node.start_mark
        return SourcePosition(self.file, mark.line + 1, mark.column + 1)

    def fail(self, node: Node, message: str, hint: str | None = None) -> Invalid:
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        return Invalid(self.pos(node).error(message, hint))

    def _construct(self, node: ScalarNode, what: str) -> Any:
        """A YAML number or boolean as Python reads it; a number too long to be one is a problem."""
        if len(str(node.value)) > MAX_NUMBER_TEXT:
            raise self.fail(
                node, f"{what} must be a number of at most {MAX_NUMBER_TEXT} characters, got {kind(node)}"
            )
        try:
            return CONSTRUCTOR.construct_object(node)
        except (ValueError, OverflowError) as exc:
            raise self.fail(node, f"{what} is not a number this flow can use ({exc})") from exc

    def unset(self, node: Node, message: str, hint: str | None = None) -> Invalid:
        """An :class:`UnsetVariable` at ``node``."""
        at = self.pos(node)
        return Invalid(UnsetVariable(message, file=at.file, line=at.line, column=at.column, hint=hint))

    # --- scalars --------------------------------------------------------------------------------

    def substitute(self, node: ScalarNode) -> str:
        """The scalar's text with ``${NAME}`` replaced (``environ`` first: a ``run_flow``'s ``env``,
        ``--env``, the process environment; then the flow's ``env:``; then the including flow's
        variables); ``$${`` stands for a literal ``${``."""

        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$${":
                return "${"
            name = match.group(1)
            if not match.group(0).endswith("}") or name is None or not NAME.fullmatch(name):
                raise self.fail(
                    node,
                    f"bad variable reference {match.group(0)!r}",
                    hint="write ${NAME} with a letter or _ first, or $${ for a literal ${",
                )
            for source in (self.environ, self.flow_env, self.inherited):
                if name in source:
                    return self._read(name, source[name])
            raise self.unset(
                node,
                f"undefined variable ${{{name}}}",
                hint=f"set {name} in the environment or give it a default under the flow's `env:`",
            )

        return VAR.sub(replace, str(node.value))

    def _read(self, name: str, value: str) -> str:
        """A variable's value as the flow reads it: a secret when its name is a credential's,
        whatever its source (the process environment, ``--env``, an ``env:`` block, a parent's)."""
        if value and named_like_credential(name):
            self.secrets.add(value)
        return value

    def string(self, node: Node, what: str, *, allow_empty: bool = False) -> str:
        if not isinstance(node, ScalarNode) or node.tag == TAG + "null":
            raise self.fail(node, f"{what} must be a string, got {kind(node)}")
        if node.tag not in PLAIN_TAGS:
            raise self.fail(node, f"{what}: the YAML tag {node.tag!r} is not allowed in a flow")
        text = self.substitute(node)
        if not allow_empty and not text.strip():
            raise self.fail(node, f"{what} must not be empty")
        return text

    def number(self, node: Node, what: str, low: float, high: float, *, open_low: bool = False) -> float:
        value: float | None = None
        if isinstance(node, ScalarNode) and node.tag in (TAG + "int", TAG + "float"):
            try:
                value = float(self._construct(node, what))
            except OverflowError as exc:
                raise self.fail(node, f"{what} must be at least {low:g} and at most {high:g}") from exc
        elif isinstance(node, ScalarNode) and node.tag == TAG + "str":
            try:
                value = float(self.substitute(node))
            except ValueError:
                value = None
        if value is None or value != value:
            raise self.fail(node, f"{what} must be a number, got {kind(node)}")
        if value < low or value > high or (open_low and value == low):
            bound = f"above {low:g}" if open_low else f"at least {low:g}"
            raise self.fail(node, f"{what} must be {bound} and at most {high:g}, got {value:g}")
        return value

    def boolean(self, node: Node, what: str) -> bool:
        if isinstance(node, ScalarNode) and node.tag == TAG + "bool":
            return bool(CONSTRUCTOR.construct_object(node))
        if isinstance(node, ScalarNode) and node.tag == TAG + "str":
            text = self.substitute(node).strip().lower()
            if text in ("true", "false"):
                return text == "true"
        raise self.fail(node, f"{what} must be true or false, got {kind(node)}")

    def scalar_value(self, node: Node, what: str) -> Any:
        """A remembered value: a string (with ``${VAR}``), a number or a boolean."""
        if isinstance(node, ScalarNode) and node.tag in (TAG + "int", TAG + "float", TAG + "bool"):
            return self._construct(node, what)
        return self.string(node, what, allow_empty=True)

    # --- mappings -------------------------------------------------------------------------------

    def variables(self) -> dict[str, str]:
        """Every variable this flow sees, for a flow it runs (lowest first, as looked up)."""
        return {**self.inherited, **self.flow_env, **self.environ}

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...] | None = None) -> dict[str, Node]:
        """A mapping's entries by key; unknown or repeated keys are problems at the key."""
        if not isinstance(node, MappingNode):
            raise self.fail(node, f"{what} must be a mapping, got {kind(node)}")
        out: dict[str, Node] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag not in PLAIN_TAGS:
                raise self.fail(key_node, f"{what}: keys must be plain strings, got {kind(key_node)}")
            key = str(key_node.value)
            if key in out:
                raise self.fail(key_node, f"{what}: key {key!r} is given twice")
            if allowed is not None and key not in allowed:
                raise self.fail(key_node, f"{what}: unknown key {key!r}", hint=suggest(key, list(allowed)))
            out[key] = value_node
        return out


CONSTRUCTOR = SafeConstructor()
PLAIN_TAGS = frozenset(TAG + t for t in ("str", "int", "float", "bool", "timestamp"))


def kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag == TAG + "null":
        return "nothing (null)"
    return f"{node.tag.rsplit(':', 1)[-1]} {quote(str(node.value))}"
