"""Read a Maestro flow file into the harness's :class:`~amc.flows.model.Flow`.

A Maestro flow is told apart from the project's own format by its shape: a header document
(``appId: …``, or ``url:`` for a web flow) then ``---`` and a list of commands, or a bare list of
commands (which Maestro itself refuses outside a subflow's header; it is read, with a note). Its
commands become the same :class:`~amc.flows.model.FlowStep` s as any flow's (each keeping its
command as written and its ``label``), its ``runFlow`` / ``repeat`` / ``retry`` the same blocks, so
reports, JUnit, timelines and the world model treat it like any other flow. Maestro's own messages
are followed where it refuses a file (``orchestra/yaml/MaestroFlowParser.kt:355-475``): an unknown
command (with suggestions), a bare name that needs options, an empty value, a second key beside
the command, an unknown option. Every problem is collected, with its file, line and column.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import FlowError
from ...storage.redaction import named_like_credential
from ..blocks import MAX_REPEAT, MAX_STEPS
from ..conditions import Combined, Condition, PlatformIs, Script, Seen
from ..model import Bindings, Flow, FlowStep, FlowValidationError, Repeat, Retry, RunFlow, Template
from ..model import Node as FlowNode
from ..nodes import TAG, Invalid, kind, suggest
from .commands import BARE, FORMS, NO_ACTION, OPTIONAL_LOOKUP, SCRIPT_COMMANDS, read_command
from .selectors import selector
from .values import MaestroReader, is_true, written_text

__all__ = ["COMMANDS", "CONFIG_KEYS", "MAX_RETRIES", "looks_maestro", "read_maestro"]

CONFIG_KEYS = ("appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete", "properties")
BLOCKS = ("runFlow", "repeat", "retry")
COMMANDS: tuple[str, ...] = tuple(sorted({*FORMS, *NO_ACTION, *SCRIPT_COMMANDS, *BLOCKS, "action"}))
MAX_RETRIES = 3  # Maestro's MAX_RETRIES_ALLOWED (orchestra/Orchestra.kt:1839)
_LEGACY_ACTIONS = {
    "back": "back",
    "hideKeyboard": "hideKeyboard",
    "scroll": "scroll",
    "clearKeychain": "clearKeychain",
    "pasteText": "pasteText",
}
WEB = "a web flow (`url:` header): no backend of this harness drives a browser"

# (reader, the runFlow's file node, its path as written, its env values) -> the subflow
Includer = Callable[[Any, Node, str, dict[str, str]], Flow]


def looks_maestro(documents: list[Node]) -> bool:
    """Whether composed YAML documents are a Maestro flow: a command list alone, or a header
    mapping followed by another document, or a header with ``appId`` / ``url`` and no ``steps``."""
    if not documents:
        return False
    first = documents[0]
    if isinstance(first, SequenceNode):  # a bare command list: Maestro's if it starts with its command
        item = first.value[0] if first.value else None
        if isinstance(item, MappingNode) and item.value:
            item = item.value[0][0]
        return isinstance(item, ScalarNode) and str(item.value) in COMMANDS
    if not isinstance(first, MappingNode):
        return False
    keys = {str(k.value) for k, _ in first.value if isinstance(k, ScalarNode)}
    return len(documents) > 1 or (bool(keys & {"appId", "url"}) and "steps" not in keys)


class _Flow:
    """What reading one file needs: its reader, its folder, its header's app, how to include."""

    def __init__(
        self, r: MaestroReader, text_of: Callable[[Node], str], include: Includer, web: bool
    ) -> None:
        self.r = r
        self.text_of = text_of
        self.include = include
        self.web = web
        self.app_id: str | None = None
        self.url: str | None = None
        self.name = Path(r.file).stem
        self.base = os.path.dirname(r.file) or "."
        self.nested: list[FlowError] = []
        self.problems: list[FlowError] = []
        self.bindings: Bindings = ()  # the header's env, as written

    # --- lists and items ------------------------------------------------------------------------

    def steps(self, node: Node, what: str) -> tuple[FlowNode, ...]:
        r = self.r
        if not isinstance(node, SequenceNode):
            raise r.fail(
                node, f"Commands Section Required: {what} must be a list of commands, got {kind(node)}"
            )
        out: list[FlowNode] = []
        for number, item in enumerate(node.value, start=1):
            try:
                out.append(self.item(item, number))
            except Invalid as bad:
                self.problems.append(bad.error)
            if r.commands > MAX_STEPS:
                break
        return tuple(out)

    def item(self, item: Node, number: int) -> FlowNode:
        r = self.r
        if isinstance(item, ScalarNode) and item.tag == TAG + "str":
            name = str(item.value)
            if name not in BARE:
                if name in COMMANDS:
                    raise r.fail(
                        item, f"Missing Command Options: the command `{name}` requires additional options"
                    )
                raise r.fail(
                    item,
                    f"Invalid Command: `{name}` is not a valid command",
                    hint=suggest(name, list(COMMANDS)),
                )
            command, key, value = name, item, ScalarNode(TAG + "null", "", item.start_mark, item.end_mark)
        elif isinstance(item, MappingNode) and item.value:
            key, value = item.value[0]
            command = str(key.value) if isinstance(key, ScalarNode) else ""
            if command not in COMMANDS:
                raise r.fail(
                    key,
                    f"Invalid Command: `{command}` is not a valid command",
                    hint=suggest(command, list(COMMANDS)),
                )
            if len(item.value) > 1:
                extra = item.value[1][0]
                raise r.fail(
                    extra,
                    f"Invalid Command Format: {command}: found unexpected top-level field "
                    f"`{getattr(extra, 'value', '?')}`. Missing an indent or dash?",
                )
            if isinstance(value, ScalarNode) and value.tag == TAG + "null":
                raise r.fail(value, f"Incorrect Command Format: {command} requires additional options")
        else:
            raise r.fail(
                item, 'Invalid Command: expected "<commandName>: <options>"', hint="e.g. `- tapOn: Sign in`"
            )
        r.commands += 1
        if r.commands > MAX_STEPS:
            raise r.fail(key, f"a flow has at most {MAX_STEPS} commands")
        if command == "action":
            legacy = r.text(value, "action")
            if legacy not in _LEGACY_ACTIONS:
                raise r.fail(
                    value,
                    f"Unknown navigation target: {legacy!r}",
                    hint=suggest(legacy, list(_LEGACY_ACTIONS)),
                )
            command, value = (
                _LEGACY_ACTIONS[legacy],
                ScalarNode(TAG + "null", "", value.start_mark, value.end_mark),
            )
        if command == "runFlow":
            return self.run_flow(value, number, key)
        if command == "repeat":
            return self.repeat(value, number, key)
        if command == "retry":
            return self.retry(value, number, key)
        app = self.app_id or self.url
        read = read_command(r, command, value, app, self.base, check=not self.web)
        why = read.unsupported or (WEB if self.web else None)
        when = self.condition(read.when, "runScript's when") if read.when is not None else None
        return FlowStep(
            number,
            read.action,
            r.pos(key),
            read.args,
            None,
            read.optional,
            when,
            written=self.text_of(item),
            label=read.label,
            unsupported=why,
            template=Template(command, value, app, self.base) if read.needs_js else None,
            script=read.script,
        )

    # --- conditions and blocks ------------------------------------------------------------------

    def condition(self, node: Node, what: str) -> Condition:
        r = self.r
        # `optional` and `label`: Maestro's YamlCondition reads both and its Condition keeps neither
        # for the check (YamlFluentCommand.toCondition at dcd2f206): written, checked, no effect.
        entries = r.mapping(node, what, ("visible", "notVisible", "platform", "true", "label", "optional"))
        if "optional" in entries:
            r.boolean(entries["optional"], f"{what}'s optional")
        parts: list[Condition] = []
        for key, value in entries.items():
            if key in ("visible", "notVisible"):
                target, _, _ = selector(r, value, f"{what}'s {key}")
                parts.append(Seen(target, present=key == "visible", wait=OPTIONAL_LOOKUP))
            elif key == "platform":
                parts.append(PlatformIs(r.text(value, f"{what}'s platform").strip().lower()))
            elif key == "true":
                before = len(r.scripts)
                text = r.text(value, f"{what}'s true")
                if len(r.scripts) > before:
                    del r.scripts[before:]
                    parts.append(Script(written_text(value)))
                else:  # known when the flow is read: Maestro's truth rule
                    parts.append(Combined((), every=is_true(text)))
        if not parts:
            raise r.fail(node, f"{what} is empty", hint="use visible, notVisible, platform or true")
        return parts[0] if len(parts) == 1 else Combined(tuple(parts), every=True)

    def _modifiers(self, entries: Mapping[str, Node]) -> tuple[bool, str | None]:
        r = self.r
        optional = r.boolean(entries["optional"], "optional") if "optional" in entries else False
        label = r.text(entries["label"], "label") if "label" in entries else None
        return optional, label

    def _env(self, entries: Mapping[str, Node], what: str) -> dict[str, Node]:
        return self.r.mapping(entries["env"], f"{what}'s env") if "env" in entries else {}

    def _subflow(self, entries: Mapping[str, Node], node: Node, what: str, number: int) -> Flow:
        """A ``file`` (another flow file, read whole) or inline ``commands`` (read here, with the
        block's ``env`` bound inside it only); the block's ``env`` is bound first when it runs."""
        r = self.r
        if ("file" in entries) == ("commands" in entries):
            raise r.fail(node, f"{what} needs either `file` or `commands`, not both or neither")
        env = self._env(entries, what)
        if "file" in entries:
            written = r.text(entries["file"], f"{what}'s file")
            saved = dict(r.maestro_vars)
            bindings = r.define(env, f"{what}'s env")
            values, r.maestro_vars = dict(r.maestro_vars), saved
            flow = self._include(entries["file"], written, {k: values[k] for k in env})
            return replace(flow, bindings=(bindings, *flow.bindings)) if bindings else flow
        saved = dict(r.maestro_vars)
        try:
            bindings = r.define(env, f"{what}'s env")
            steps = self.steps(entries["commands"], f"{what}'s commands")
        finally:
            r.maestro_vars = saved
        blocks: tuple[Bindings, ...] = (bindings,) if bindings else ()
        return Flow(self.name, r.file, steps, dialect="maestro", app_id=self.app_id, bindings=blocks)

    def _include(self, node: Node, written: str, env: dict[str, str]) -> Flow:
        r = self.r
        try:
            return self.include(r, node, written, env)
        except FlowValidationError as exc:
            self.nested.extend(exc.problems)
            raise r.fail(node, f"runFlow {written!r} has problems (listed with its own lines)") from None
        except FlowError as exc:
            if exc.file == r.file:
                raise Invalid(exc) from None
            self.nested.append(exc)
            raise r.fail(node, f"runFlow {written!r} has a problem (listed with its own file)") from None

    def run_flow(self, node: Node, number: int, key: Node) -> RunFlow:
        r = self.r
        entries: dict[str, Node] = (
            {"file": node}
            if isinstance(node, ScalarNode)
            else r.mapping(node, "runFlow", ("file", "commands", "env", "when", "label", "optional"))
        )
        optional, label = self._modifiers(entries)
        when = self.condition(entries["when"], "when") if "when" in entries else None
        flow = self._subflow(entries, node, "runFlow", number)
        return RunFlow(number, r.pos(key), flow, optional, when, label=label)

    def repeat(self, node: Node, number: int, key: Node) -> Repeat:
        r = self.r
        entries = r.mapping(node, "repeat", ("times", "while", "commands", "label", "optional"))
        optional, label = self._modifiers(entries)
        if "commands" not in entries:
            raise r.fail(node, "repeat needs `commands`")
        cond = self.condition(entries["while"], "repeat's while") if "while" in entries else None
        limit = MAX_REPEAT
        computed = None
        if "times" in entries:
            times = r.whole(entries["times"], "repeat's times")
            if times is None:  # JavaScript computes it when the repeat starts
                computed, r.scripts[:] = written_text(entries["times"]), []
            limit = MAX_REPEAT if times is None else times
            if not 0 <= limit <= MAX_REPEAT:
                raise r.fail(entries["times"], f"repeat's times must be from 0 to {MAX_REPEAT}, got {limit}")
        else:
            r.notes.append(
                r.pos(node).error(f"repeat has no `times`: it stops after {MAX_REPEAT} rounds at most here")
            )
        steps = self.steps(entries["commands"], "repeat's commands")
        return Repeat(
            number, r.pos(key), steps, limit, cond, optional, None, label=label, times_text=computed
        )

    def retry(self, node: Node, number: int, key: Node) -> Retry:
        r = self.r
        entries = r.mapping(node, "retry", ("maxRetries", "file", "commands", "env", "label", "optional"))
        optional, label = self._modifiers(entries)
        times, computed = 1, None
        if "maxRetries" in entries:
            found = r.whole(entries["maxRetries"], "retry's maxRetries")
            if found is None:  # JavaScript computes it when the retry starts
                computed, r.scripts[:] = written_text(entries["maxRetries"]), []
            times = max(0, min(MAX_RETRIES, found if found is not None else 1))
        flow = self._subflow(entries, node, "retry", number)
        if "file" in entries or flow.bindings:  # the block's env is bound by the flow that holds it
            steps: tuple[FlowNode, ...] = (RunFlow(1, r.pos(key), flow),)
        else:
            steps = flow.steps
        return Retry(number, r.pos(key), steps, times, optional, None, label=label, times_text=computed)


def _header(flow: _Flow, node: Node) -> tuple[str, tuple[str, ...], dict[str, Node]]:
    """The header's name, tags and hooks; its env is bound (and kept as written, for the run), its
    appId kept."""
    r = flow.r
    entries = r.mapping(node, "the header")
    if "appId" not in entries and "url" not in entries:
        raise r.fail(node, "Config Field Required: either 'url' or 'appId' must be specified")
    # The env first: Maestro's header becomes a DefineVariablesCommand run before the appId is
    # read (MaestroFlowParser / YamlConfig.toCommands), so `appId: ${APP_ID}` sees the header's
    # own `APP_ID: ${APP_ID || 'com.example.default'}` (IntegrationTest.kt case 093).
    if "env" in entries:
        flow.bindings = r.define(r.mapping(entries["env"], "env"), "env")
    if "appId" in entries:
        flow.app_id = r.text(entries["appId"], "appId")
    if "url" in entries:
        flow.url = r.text(entries["url"], "url")
    if flow.app_id is not None and flow.app_id.startswith(("http:", "https:", "data:", "file:")):
        flow.web = True  # a web page named as the app
    engine = entries.get("jsEngine")
    if engine is not None and r.text(engine, "jsEngine").lower() == "rhino":
        raise r.fail(engine, "jsEngine: rhino was removed in Maestro 2.6; GraalJS is the only engine")
    name = r.text(entries["name"], "name") if "name" in entries else flow.name
    tags: tuple[str, ...] = ()
    if "tags" in entries:
        node_tags = entries["tags"]
        if not isinstance(node_tags, SequenceNode):
            raise r.fail(
                node_tags, "Incorrect Format: tags must be a list", hint="e.g. `tags: [smoke, login]`"
            )
        tags = tuple(dict.fromkeys(r.text(t, "a tag") for t in node_tags.value))
    hooks: dict[str, Node] = {k: entries[k] for k in ("onFlowStart", "onFlowComplete") if k in entries}
    return name, tags, hooks


def read_maestro(
    documents: list[Node],
    file: str,
    load: Any,
    include: Includer,
    *,
    environ: Mapping[str, str],
    inherited: Mapping[str, str],
) -> Flow:
    """The Maestro flow in ``documents`` (composed from ``file``); every problem, with those of
    the subflows it runs, raised together as a ``FlowValidationError``.

    A flow a run starts with keeps the variables it starts from (``variables``) and the names its
    scripts do not see (``hidden``: the process environment's own, but for ``MAESTRO_*``, as
    Maestro hands scripts only ``-e`` values and ``MAESTRO_*`` shell variables; ``load.params``
    are the values given, ``--env``). Values of variables named like a credential are its secrets."""
    hidden: frozenset[str] = frozenset()
    if inherited and isinstance(environ, ChainMap):  # a subflow: its parent's, then runFlow's env
        known = {**inherited, **environ.maps[0]}
    else:
        known = {
            **environ,
            "MAESTRO_FILENAME": Path(file).stem,
            "MAESTRO_SHARD_ID": "1",
            "MAESTRO_SHARD_INDEX": "0",
        }
        params = getattr(load, "params", None)
        if params is not None:
            hidden = frozenset(n for n in environ if n not in params and not n.startswith("MAESTRO_"))
    r = MaestroReader(
        file,
        environ,
        maestro_vars=dict(known),
        script_roots=tuple(getattr(load, "script_roots", ())),
        file_roots=tuple(getattr(load, "roots", None) or ()),
    )
    r.secrets.update(v for n, v in known.items() if n not in hidden and named_like_credential(n) and v)
    text = _source_text(file)
    header = documents[0] if isinstance(documents[0], MappingNode) else None
    web = (
        header is not None
        and any(getattr(k, "value", None) == "url" for k, _ in header.value)
        and not any(getattr(k, "value", None) == "appId" for k, _ in header.value)
    )
    flow = _Flow(r, _written(text), include, web)
    load.stack.append(os.path.realpath(file))
    name, tags, hooks = flow.name, tuple[str, ...](), dict[str, Node]()
    steps: tuple[FlowNode, ...] = ()
    on: dict[str, tuple[FlowNode, ...]] = {}
    try:
        if header is not None:
            try:
                name, tags, hooks = _header(flow, header)
            except Invalid as bad:
                flow.problems.append(bad.error)
        else:
            r.notes.append(
                r.pos(documents[0]).error(
                    "no header: Maestro itself wants `appId: …` then `---` before the commands",
                    hint="add the header if Maestro is to run this file too",
                )
            )
        body = documents[min(1, len(documents) - 1)] if header is not None else documents[0]
        if header is not None and len(documents) < 2:
            flow.problems.append(
                r.pos(header).error("Commands Section Required: the header has no commands after `---`")
            )
        elif len(documents) > 2:
            r.notes.append(r.pos(documents[2]).error("a third YAML document is never read (as in Maestro)"))
        for hook, node in hooks.items():
            try:
                on[hook] = flow.steps(node, hook)
            except Invalid as bad:
                flow.problems.append(bad.error)
        if header is None or len(documents) >= 2:
            try:
                steps = flow.steps(body, "the commands")
            except Invalid as bad:
                flow.problems.append(bad.error)
    finally:
        load.stack.pop()
    if flow.problems or flow.nested:
        flow.problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        unique = {str(p): p for p in [*flow.problems, *flow.nested]}
        raise FlowValidationError(tuple(unique.values()))
    every = (*on.get("onFlowStart", ()), *steps, *on.get("onFlowComplete", ()))
    return Flow(
        name,
        file,
        steps,
        secrets=frozenset(r.secrets | _subflow_secrets(every)),
        tags=tags,
        dialect="maestro",
        app_id=flow.app_id,
        on_start=on.get("onFlowStart", ()),
        on_complete=on.get("onFlowComplete", ()),
        notes=tuple(r.notes),
        bindings=(flow.bindings,) if flow.bindings else (),
        variables=known,
        hidden=hidden,
    )


def _subflow_secrets(nodes: tuple[FlowNode, ...]) -> set[str]:
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, RunFlow):
            found |= node.flow.secrets | _subflow_secrets(node.flow.every_step)
        elif isinstance(node, Repeat | Retry):
            found |= _subflow_secrets(node.steps)
    return found


def _source_text(file: str) -> str:
    try:
        return Path(file).read_text(encoding="utf-8-sig")[:1_048_576]
    except (OSError, UnicodeDecodeError, ValueError):
        return ""


def _uncommented(line: str) -> str:
    """``line`` without its YAML comment: a ``#`` at the start or after a space, outside quotes."""
    quote: str | None = None
    for i, c in enumerate(line):
        if quote is not None:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or line[i - 1] in " \t:[{,-"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _written(text: str) -> Callable[[Node], str]:
    """How a command was written: its source text on one line, at most 120 characters."""
    lines = text.splitlines()

    def of(node: Node) -> str:
        start, end = node.start_mark, node.end_mark
        if not lines or start.line >= len(lines):
            return str(getattr(node, "value", ""))[:120]
        if start.line == end.line:
            piece = _uncommented(lines[start.line][start.column : end.column])
        else:  # a block ends where the next item starts: its own lines only
            rest = lines[start.line + 1 : min(end.line, len(lines))]
            tail = lines[end.line][: end.column] if end.line < len(lines) else ""
            pieces = [lines[start.line][start.column :], *rest, tail]
            piece = " ".join(_uncommented(p) for p in pieces)
        piece = " ".join(piece.split())
        return piece if len(piece) <= 120 else piece[:119] + "…"

    return of
