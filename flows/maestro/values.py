"""Reading a Maestro flow's YAML values: Maestro's ``${…}`` interpolation and its variables.

:class:`MaestroReader` is the flow loader's :class:`~amc.flows.nodes.NodeReader` with Maestro's
rules for strings: ``${NAME}`` is the variable's value (``-e`` / ``--env``, the environment, the
header's ``env``, a ``runFlow``'s ``env``: the later definition wins, as Maestro runs them in that
order, ``models/util/Env.kt``); a name set nowhere reads as ``undefined``, as Maestro's JavaScript
global does (``client/js/GraalJsEngine.kt:196-204``), and the check notes it; any other expression
is JavaScript, kept as written (the step then needs JavaScript to run, and ``amc check`` checks
its syntax); ``\\${`` stays literal. Scalars of any type are read as their text, as Maestro's
Jackson creators do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from yaml.nodes import Node, ScalarNode

from ...core.errors import FlowError, ScriptSyntaxError
from ...storage.redaction import named_like_credential
from ..nodes import NAME, PLAIN_TAGS, TAG, NodeReader

__all__ = [
    "EXPRESSION",
    "JS_VALUE",
    "SCRIPT_WORDS",
    "LiteralReader",
    "MaestroReader",
    "is_true",
    "written_text",
]

EXPRESSION = re.compile(r"(?<!\\)\$\{([^$]*)\}")  # models/util/Env.kt:10-26
# A variable whose value JavaScript computes (``USER: ${USER || 'qa'}``): known when the step runs.
JS_VALUE = "\x00js\x00"
# Names that are JavaScript's own values or Maestro's globals, never a variable: ``${true}`` is true.
SCRIPT_WORDS = frozenset(
    {"true", "false", "null", "undefined", "NaN", "Infinity", "this", "output", "maestro", "http", "json"}
)


@dataclass
class MaestroReader(NodeReader):
    """A :class:`NodeReader` reading Maestro's strings (see the module docstring). ``scripts``
    collects the JavaScript expressions met while a step is read (the step reader takes them);
    ``notes`` what the check says without refusing the flow."""

    maestro_vars: dict[str, str] = field(default_factory=dict)
    scripts: list[str] = field(default_factory=list)
    notes: list[FlowError] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)
    undefined: int = 0  # values read from a variable set nowhere (known only when the flow runs)
    # The folders a runScript file must lie in (the flow's folder tree: see amc.flows.loader).
    script_roots: tuple[str, ...] = ()
    # The roots the caller set (amc mcp --flow-root), which every other file a flow names must lie in
    # (amc.flows.roots); empty: none set.
    file_roots: tuple[str, ...] = ()

    def variables(self) -> dict[str, str]:
        return dict(self.maestro_vars)

    def substitute(self, node: ScalarNode) -> str:
        text = str(node.value)

        def replace(match: re.Match[str]) -> str:
            inner = match.group(1).strip()
            if not inner:
                return ""
            if NAME.fullmatch(inner) and inner not in SCRIPT_WORDS:
                value = self.maestro_vars.get(inner)
                if value is None:
                    self.undefined += 1
                    if inner not in self.checked:
                        self.checked.add(inner)
                        self.notes.append(
                            self.pos(node).error(
                                f"${{{inner}}} is set nowhere: Maestro reads it as the text 'undefined'",
                                hint=f"pass --env {inner}=… or give it under the header's `env:`",
                            )
                        )
                    return "undefined"
                if value != JS_VALUE:
                    return self._read(inner, value)
            self.script(node, inner)
            return match.group(0)

        out = EXPRESSION.sub(replace, text)
        return out.replace("\\${", "${")

    def script(self, node: Node, source: str) -> None:
        """Note JavaScript the step needs, checking its syntax now (a problem at ``node``): the
        text of a ``${…}`` is a program, as Maestro hands it to ``eval`` (GraalJsEngine.kt:123-142)."""
        from ..js import check_syntax

        mark = node.start_mark
        try:
            check_syntax(source, self.file, line=mark.line + 1, column=mark.column + 1)
        except ScriptSyntaxError as exc:
            raise self.fail(node, f"JavaScript syntax error: {exc.js_message}") from None
        except FlowError as exc:
            raise self.fail(node, exc.message) from None
        self.scripts.append(source)

    def number(self, node: Node, what: str, low: float, high: float, *, open_low: bool = False) -> float:
        """A number; one JavaScript computes (``${…}``) is known when the step runs: ``low`` here,
        and the step needs JavaScript."""
        if isinstance(node, ScalarNode) and node.tag == TAG + "str":
            before, unknown = len(self.scripts), self.undefined
            text = self.substitute(node)
            if len(self.scripts) > before or self.undefined > unknown:
                return max(low, 0.0) if not open_low else high
            node = ScalarNode(TAG + "str", text.replace("_", ""), node.start_mark, node.end_mark)
        return super().number(node, what, low, high, open_low=open_low)

    def whole(self, node: Node, what: str) -> int | None:
        """Maestro's counts (``index``, ``times``, ``maxRetries``): a string read as a number and cut
        to a whole one (``"1.0"`` is 1); None when JavaScript computes it."""
        before, unknown = len(self.scripts), self.undefined
        text = self.text(node, what)
        if len(self.scripts) > before or self.undefined > unknown:
            return None
        try:
            return int(float(text))
        except ValueError:
            raise self.fail(node, f"{what} must be a number, got {text[:40]!r}") from None

    def text(self, node: Node, what: str) -> str:
        """Any scalar as its text (numbers and booleans too), interpolated."""
        if not isinstance(node, ScalarNode) or node.tag == TAG + "null":
            raise self.fail(node, f"{what} must be a value, got nothing or a collection")
        if node.tag not in PLAIN_TAGS:
            raise self.fail(node, f"{what}: the YAML tag {node.tag!r} is not allowed in a flow")
        return self.substitute(node)

    def define(self, values: Mapping[str, Node], what: str) -> tuple[tuple[str, str], ...]:
        """Bind an ``env`` block: every value read before any is bound (Maestro evaluates the
        block at once, so a value cannot use a sibling). Returns the block as written, for the run
        (which evaluates it again when the flow or subflow starts)."""
        bound: dict[str, str] = {}
        for name, value in values.items():
            if not NAME.fullmatch(name):
                raise self.fail(
                    value, f"{what}: {name!r} is not a variable name", hint="use letters, digits and _"
                )
            if isinstance(value, ScalarNode) and value.tag == TAG + "null":
                raise self.fail(value, f"{what}: the variable {name} has no value")
            before = len(self.scripts)
            text = self.text(value, f"{what} {name}")
            bound[name] = JS_VALUE if len(self.scripts) > before else text
            del self.scripts[before:]
            if bound[name] != JS_VALUE and named_like_credential(name):
                self.secrets.add(bound[name])  # a secret variable: hidden in every record of a run
        self.maestro_vars.update(bound)
        return tuple((name, written_text(value)) for name, value in values.items())


_FALSE = frozenset({"", "false", "undefined", "null"})


def is_true(text: str) -> bool:
    """Maestro's truth of an interpolated text (``assertTrue``, ``when: {true: …}``): false when it
    is blank, ``false`` (any case), ``undefined``, ``null`` or a number equal to 0, else true
    (``orchestra/Orchestra.kt:1030-1052``)."""
    folded = text.strip().lower()
    if folded in _FALSE:
        return False
    try:
        return float(folded) != 0
    except ValueError:
        return True


def written_text(node: Node) -> str:
    """A scalar's text as written in the file, before any ``${...}`` is read."""
    return str(node.value) if isinstance(node, ScalarNode) else ""


@dataclass
class LiteralReader(MaestroReader):
    """A :class:`MaestroReader` for values whose ``${...}`` were already evaluated (a step read
    again when it runs, :mod:`amc.flows.maestro.templates`): a text is taken as it is."""

    def substitute(self, node: ScalarNode) -> str:
        return str(node.value)
