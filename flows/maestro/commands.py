"""Maestro's commands as the harness's actions: each command's value read into the action's
arguments by the action's own :class:`~amc.actions.MaestroForm`, with Maestro's defaults.

Every command that has an action is read from its form: a plain value fills its short option, a
mapping gives its options (each renamed to the argument it becomes, milliseconds made seconds) and,
for a command whose value is a selector, the selector's fields; the command's fixed arguments
come first. A few commands need more than their form says and have a reader of their own here
(``extendedWaitUntil``, ``pressKey``, ``swipe``, ``scrollUntilVisible``, ``inputText``, the app
commands, which name the header's app when they name none). Commands with no action in this
harness are read and kept with the reason they cannot run. A command whose values JavaScript
computes is read as far as it can be (``needs_js``): the flow reads it again when it runs, with
every ``${...}`` evaluated (:mod:`amc.flows.maestro.templates`). ``evalScript``, ``runScript`` and
``assertTrue`` are the ``script`` action, their JavaScript kept (:class:`~amc.flows.model.ScriptCommand`).
Maestro's lookup timeouts: 17 s, 7 s for an optional step (``orchestra/Orchestra.kt:136-137``);
``assertVisible`` waits 17 s even when optional (``orchestra/Orchestra.kt:513-531``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from ...actions import ACTIONS, Action, MaestroForm
from ...actions.kinds import Flag, Number, Seconds, SelectorKind, Values
from ...actions.permits import Permissions
from ...actions.press import MAESTRO_KEYS, MAESTRO_OTHER_KEYS
from ...actions.waiting import MAX_WAIT
from ...core.errors import StepArgumentError
from ..model import ScriptCommand
from ..nodes import TAG, kind, suggest
from .selectors import OPTION_FIELDS, SELECTOR_FIELDS, selector
from .state_commands import FILE_COMMANDS
from .values import EXPRESSION, MaestroReader, written_text

__all__ = [
    "FORMS",
    "LOOKUP",
    "NO_ACTION",
    "OPTIONAL_LOOKUP",
    "SCRIPT_COMMANDS",
    "Command",
    "option_names",
    "read_command",
]

LOOKUP = 17.0  # seconds an element is looked for
OPTIONAL_LOOKUP = 7.0  # ... by an optional step
COMMON = ("label", "optional")
# Every Maestro command that names an action: (the action, its form).
FORMS: Mapping[str, tuple[Action, MaestroForm]] = {
    form.command: (action, form) for action in ACTIONS.values() for form in action.maestro
}
# Maestro 2.8.0's commands that no action here does, each with why.
_WEB = "a web-only command"
NO_ACTION: Mapping[str, str] = {
    "assertWithAI": "Maestro's cloud AI commands are not available here",
    "assertNoDefectsWithAI": "Maestro's cloud AI commands are not available here",
    "extractTextWithAI": "Maestro's cloud AI commands are not available here",
    "openBrowser": _WEB,
}
SCRIPT_COMMANDS = ("evalScript", "runScript", "assertTrue")
# Commands Maestro lets a flow write alone (orchestra/yaml/MaestroFlowParser.kt:140-173).
_BARE_NO_ACTION = frozenset({"assertNoDefectsWithAI"})
BARE = frozenset(command for command, (_, form) in FORMS.items() if form.bare) | _BARE_NO_ACTION
_DIRECTIONS = {"UP": "up", "DOWN": "down", "LEFT": "left", "RIGHT": "right"}
# Maestro's directional swipes (Android's geometry, client/drivers/AndroidDriver.kt:392-445).
_SWIPE_PATHS = {
    "up": ("50%,50%", "50%,10%"),
    "down": ("50%,20%", "50%,90%"),
    "right": ("10%,50%", "90%,50%"),
    "left": ("90%,50%", "10%,50%"),
}


@dataclass(frozen=True)
class Command:
    """One command read: its action (or the Maestro name, when it has none), its arguments, its
    ``label`` and ``optional``, and why no backend here can run it, if so. ``needs_js``: its values
    hold JavaScript (read again when it runs); ``script``: a script command's JavaScript, with its
    ``when`` (runScript's) as written."""

    action: str
    args: dict[str, Any]
    optional: bool = False
    label: str | None = None
    unsupported: str | None = None
    needs_js: bool = False
    script: ScriptCommand | None = None
    when: Node | None = None


def _modifiers(r: MaestroReader, entries: Mapping[str, Node]) -> tuple[bool, str | None]:
    optional = r.boolean(entries["optional"], "optional") if "optional" in entries else False
    label = r.text(entries["label"], "label") if "label" in entries else None
    return optional, label


_TYPED = frozenset({TAG + "int", TAG + "float", TAG + "bool"})


def _value(r: MaestroReader, action: Action, name: str, node: Node, millis: bool) -> Any:
    """An option's value as the action's argument ``name`` takes it."""
    param = action.param(name)
    what = f"{action.name}'s {name}"
    if name == "settle":  # the argument every step may carry (amc.actions.COMMON_KEYS), in seconds
        return r.number(node, what, 0, 1e9) / (1000 if millis else 1)
    if param is None:
        return r.text(node, what)
    if isinstance(param.kind, Flag):
        return r.boolean(node, what)
    if isinstance(param.kind, Number | Seconds):
        number = r.number(node, what, -1e12, 1e12)
        return number / 1000 if millis else number
    if isinstance(param.kind, Values):  # launch arguments: YAML's own types, `${…}` filled in keys
        r.mapping(node, what)  # and texts (IntegrationTest.kt's case 095 expects both)
        assert isinstance(node, MappingNode)
        return {
            r.text(key, f"{what} key"): r.scalar_value(value, f"{what} {key.value}")
            if isinstance(value, ScalarNode) and value.tag in _TYPED
            else r.text(value, f"{what} {key.value}")
            for key, value in node.value
        }
    if isinstance(param.kind, Permissions):
        entries = r.mapping(node, what)
        return {key: r.text(value, f"{what} {key}") for key, value in entries.items()}
    if isinstance(param.kind, SelectorKind):
        return selector(r, node, what)[0]
    return r.text(node, what)


def _form(r: MaestroReader, command: str, node: Node) -> Command:
    """A command read by its action's form alone."""
    action, form = FORMS[command]
    args: dict[str, Any] = dict(form.fixed)
    optional, label, why = False, None, None
    if isinstance(node, ScalarNode) and node.tag == TAG + "null":
        if not form.bare:
            raise r.fail(node, f"Incorrect Command Format: {command} requires additional options")
    elif isinstance(node, ScalarNode):
        if form.short is None:
            raise r.fail(node, f"{command} takes a mapping of its options, got {kind(node)}")
        if form.selector:
            args["target"], _, why = selector(r, node, command)
        else:
            args[form.short] = _value(r, action, form.short, node, form.short in form.millis)
    elif form.selector:
        target, options, why = selector(r, node, command)
        optional, label = _modifiers(r, options)
        if target:
            args["target"] = target
        for key, value in options.items():
            if key in form.options:
                args[form.options[key]] = _value(r, action, form.options[key], value, key in form.millis)
    else:
        entries = r.mapping(node, command)
        optional, label = _modifiers(r, entries)
        reverse = {option: name for option, name in form.options.items()}
        for key, value in entries.items():
            if key in COMMON:
                continue
            if key in form.ignored:
                continue
            if key not in reverse:
                raise r.fail(
                    value,
                    f"Unknown Property: {key} is not an option of {command}",
                    hint=suggest(key, [*form.options, *COMMON]),
                )
            args[reverse[key]] = _value(r, action, reverse[key], value, key in form.millis)
    if form.lookup and "timeout" not in args:
        args["timeout"] = OPTIONAL_LOOKUP if optional and command not in _ALWAYS_17 else LOOKUP
    return Command(action.name, args, optional, label, why)


_ALWAYS_17 = frozenset({"assertVisible", "assertNotVisible", "extendedWaitUntil"})


def _app(r: MaestroReader, command: str, node: Node, app_id: str | None) -> Command:
    read = _form(r, command, node)
    if "app_id" not in read.args:
        if app_id is None:
            raise r.fail(node, f"{command} names no app and the flow's header has no appId")
        read.args["app_id"] = app_id
    return read


def _extended_wait(r: MaestroReader, command: str, node: Node) -> Command:
    entries = r.mapping(node, command, ("visible", "notVisible", "timeout", *COMMON))
    optional, label = _modifiers(r, entries)
    shown = [key for key in ("visible", "notVisible") if key in entries]
    if len(shown) != 1:
        raise r.fail(node, "extendedWaitUntil expects either `visible` or `notVisible`")
    target, _, why = selector(r, entries[shown[0]], f"{command}'s {shown[0]}")
    args: dict[str, Any] = {"target": target, "timeout": LOOKUP}
    if "timeout" in entries:
        text = r.text(entries["timeout"], "extendedWaitUntil's timeout").replace("_", "")
        try:
            args["timeout"] = float(text) / 1000
        except ValueError:
            if not r.scripts:
                raise r.fail(entries["timeout"], f"timeout must be milliseconds, got {text[:40]!r}") from None
    name = "assert_visible" if shown[0] == "visible" else "assert_not_visible"
    return Command(name, args, optional, label, why)


def _press_key(r: MaestroReader, command: str, node: Node) -> Command:
    entries = r.mapping(node, command) if isinstance(node, MappingNode) else {"key": node}
    optional, label = _modifiers(r, entries)
    if "key" not in entries:
        raise r.fail(node, "pressKey needs a key")
    key = r.text(entries["key"], "pressKey's key").strip().lower()
    if r.scripts:
        return Command("press", {"key": key}, optional, label)
    if key == "backspace":
        return Command("erase_text", {"count": 1}, optional, label)
    if key in MAESTRO_KEYS:
        return Command("press", {"key": MAESTRO_KEYS[key]}, optional, label)
    if key in MAESTRO_OTHER_KEYS:
        return Command(
            "press", {"key": key}, optional, label, f"the key {key!r}: " + "no backend here presses it"
        )
    raise r.fail(
        entries["key"], f"Unknown key name: {key!r}", hint=suggest(key, [*MAESTRO_KEYS, *MAESTRO_OTHER_KEYS])
    )


def _direction(r: MaestroReader, node: Node, what: str) -> str:
    text = r.text(node, what)
    if text in _DIRECTIONS:
        return _DIRECTIONS[text]
    if text in _DIRECTIONS.values():
        return text
    raise r.fail(
        node,
        f"Invalid {what}: {text!r} (UP, DOWN, LEFT or RIGHT)",
        hint=suggest(text.upper(), list(_DIRECTIONS)),
    )


def _swipe(r: MaestroReader, command: str, node: Node) -> Command:
    entries = r.mapping(node, command)  # Maestro's own reader ignores keys it does not know
    optional, label = _modifiers(r, entries)
    args: dict[str, Any] = {"duration": 0.4}
    if "duration" in entries:
        args["duration"] = r.number(entries["duration"], "swipe's duration", 0, 60_000) / 1000
    if "waitToSettleTimeoutMs" in entries:
        args["settle"] = r.number(entries["waitToSettleTimeoutMs"], "waitToSettleTimeoutMs", 0, 30_000) / 1000
    why = None
    if "from" in entries:
        if "direction" not in entries:
            raise r.fail(node, "a swipe `from` an element needs a `direction`")
        args["from"], _, why = selector(r, entries["from"], "swipe's from")
        args["direction"] = _direction(r, entries["direction"], "swipe direction")
        args["timeout"] = OPTIONAL_LOOKUP if optional else LOOKUP
    elif "direction" in entries:
        args["start"], args["end"] = _SWIPE_PATHS[_direction(r, entries["direction"], "swipe direction")]
    elif "start" in entries and "end" in entries:
        args["start"] = r.text(entries["start"], "swipe's start").replace(" ", "")
        args["end"] = r.text(entries["end"], "swipe's end").replace(" ", "")
    else:
        raise r.fail(node, "swipe needs a `direction`, or `start` and `end`")
    return Command("swipe", args, optional, label, why)


def _scroll_until(r: MaestroReader, command: str, node: Node) -> Command:
    read = _form(r, command, node)
    args = read.args
    if "target" not in args:
        raise r.fail(node, "scrollUntilVisible needs an `element`")
    if "direction" in args:
        entries = r.mapping(node, command)
        args["direction"] = _direction(r, entries["direction"], "scrollUntilVisible's direction")
    if args.get("timeout", 0) < 0:
        args["timeout"] = 20.0  # a negative timeout means the default (models/Commands.kt:158-163)
    written = r.mapping(node, command) if isinstance(node, MappingNode) else {}
    if "speed" in written:  # Maestro's speed 0..100 as a swipe's length (models/Commands.kt:151-156)
        speed = args["swipe_duration"]
        args["swipe_duration"] = ((1000 * (100 - speed) / 100) + 1) / 1000 if 0 <= speed <= 100 else 0.04
    if "visibilityPercentage" in written:  # Maestro divides it as integers: under 100 is 0
        args["visibility"] = 1.0 if args["visibility"] >= 100 else 0.0
    return read


def _input_text(r: MaestroReader, command: str, node: Node) -> Command:
    if isinstance(node, ScalarNode):
        return Command("type_text", {"text": r.text(node, "inputText's text")})
    entries = r.mapping(node, command)  # Maestro reads `text` and `label` only (YamlInputText.kt:19-23)
    label = r.text(entries["label"], "label") if "label" in entries else None
    text = r.text(entries["text"], "inputText's text") if "text" in entries else ""
    return Command("type_text", {"text": text}, False, label)


_SPECIAL: dict[str, Callable[[MaestroReader, str, Node], Command]] = {
    "extendedWaitUntil": _extended_wait,
    "pressKey": _press_key,
    "swipe": _swipe,
    "scrollUntilVisible": _scroll_until,
    "inputText": _input_text,
}
_APP_COMMANDS = frozenset({"launchApp", "stopApp", "killApp", "clearState", "setPermissions"})
# Commands whose value Maestro checks when it reads the flow only if it holds no ${...}, else when the
# step runs (YamlSetOrientation.kt validateOrientationIfLiteral): read again then, checked then.
_LITERAL_CHECKED = frozenset({"setOrientation"})


def _templated(node: Node) -> bool:
    if isinstance(node, ScalarNode):
        return "${" in str(node.value)
    if isinstance(node, MappingNode):
        return any(_templated(value) for _, value in node.value)
    return False


def _no_action(r: MaestroReader, command: str, node: Node, base: str) -> Command:
    entries = r.mapping(node, command) if isinstance(node, MappingNode) else {}
    optional, label = _modifiers(r, entries)
    if isinstance(node, ScalarNode) and node.tag != TAG + "null":
        r.text(node, command)
    return Command(command, {}, optional, label, NO_ACTION[command])


_SCRIPT_MAIN = {"evalScript": "script", "assertTrue": "condition", "runScript": "file"}


def _script(r: MaestroReader, command: str, node: Node, base: str) -> Command:
    """``evalScript`` / ``assertTrue`` (an expression: its ``${…}`` are what runs, as Maestro
    interpolates the text, ``YamlEvalScript.kt``) and ``runScript`` (a file, read now as Maestro
    reads it, with its ``env`` and ``when``): the ``script`` action, their JavaScript kept with
    its syntax checked."""
    from .files import script_file

    main = _SCRIPT_MAIN[command]
    if isinstance(node, ScalarNode) and node.tag != TAG + "null":
        entries: dict[str, Node] = {main: node}
    else:
        entries = r.mapping(node, command)
    optional, label = _modifiers(r, entries)
    if main not in entries:
        raise r.fail(node, f"{command} needs `{main}`")
    before = len(r.scripts)
    written = r.text(entries[main], f"{command}'s {main}")
    args: dict[str, Any] = {"command": command}
    at = r.pos(entries[main])
    script = ScriptCommand(command, written_text(entries[main]), line=at.line, column=at.column)
    if command == "runScript":
        path, source = script_file(r, entries[main], written, base)
        env: tuple[tuple[str, str], ...] = ()
        if "env" in entries:
            values = r.mapping(entries["env"], "runScript's env")
            for name, value in values.items():
                r.text(value, f"runScript's env {name}")  # checked now, evaluated when it runs
            env = tuple((name, written_text(value)) for name, value in values.items())
        script = ScriptCommand(command, written, path, source, env, at.line, at.column)
        args["file"] = path
    del r.scripts[before:]  # evalScript and assertTrue run only what their ${…} hold (YamlEvalScript.kt)
    when = entries.get("when") if command == "runScript" else None
    return Command("script", args, optional, label, script=script, when=when)


def _from_header(read: Command, app_id: str | None) -> bool:
    """Whether ``read`` runs the header's app and that app is still JavaScript to evaluate."""
    return app_id is not None and read.args.get("app_id") == app_id and EXPRESSION.search(app_id) is not None


def read_command(
    r: MaestroReader, command: str, node: Node, app_id: str | None, base: str, *, check: bool = True
) -> Command:
    """``command``'s value ``node`` read into a :class:`Command` (checked by its action, unless
    ``check`` is false: a web flow's steps, which no backend here runs)."""
    if command in NO_ACTION:
        return _no_action(r, command, node, base)
    if command in SCRIPT_COMMANDS:
        return _script(r, command, node, base)
    before, unknown = len(r.scripts), r.undefined
    if command in FILE_COMMANDS:  # addMedia, assertScreenshot, travel (amc.flows.maestro.state_commands)
        name, reader = FILE_COMMANDS[command]
        args, optional, label = reader(r, command, node, base)
        read = Command(name, args, optional, label)
    elif command in _APP_COMMANDS:
        read = _app(r, command, node, app_id)
    else:
        read = _SPECIAL.get(command, _form)(r, command, node)
    needs_js = len(r.scripts) > before or (command in _LITERAL_CHECKED and _templated(node))
    # The header's appId computed by the header's env JavaScript (`appId: ${APP_ID}` beside
    # `APP_ID: ${APP_ID || 'com.example.default'}`): known when the step runs, as Maestro
    # interpolates the command then (Orchestra.kt:309; IntegrationTest.kt case 093).
    needs_js = needs_js or (command in _APP_COMMANDS and _from_header(read, app_id))
    del r.scripts[before:]
    if needs_js:
        return Command(read.action, read.args, read.optional, read.label, read.unsupported, needs_js=True)
    timeout = read.args.get("timeout")
    if isinstance(timeout, float) and timeout > MAX_WAIT:
        r.notes.append(
            r.pos(node).error(f"{command} waits {timeout:g} s in Maestro; here at most {MAX_WAIT:g} s")
        )
        read.args["timeout"] = MAX_WAIT
    link = read.args.get("url") if read.action == "open_link" else None
    if isinstance(link, str) and any(c.isspace() for c in link):  # Maestro passes it through: a warning
        r.notes.append(
            r.pos(node).error(
                f"{command}: the link holds spaces once its variables are filled; it is handed to the "
                "device as it is, as Maestro does (the app that opens it may read it differently)"
            )
        )
    if read.unsupported is None and check and r.undefined == unknown:
        try:
            ACTIONS[read.action].validate(read.args)
        except StepArgumentError as exc:
            raise r.fail(node, f"{command}: {exc.message}", hint=exc.hint) from None
    return read


def option_names(command: str) -> tuple[str, ...]:
    """Every option a command's mapping may hold (for suggestions)."""
    if command in FORMS:
        form = FORMS[command][1]
        names = [*form.options, *COMMON]
        if form.selector:
            names += [*SELECTOR_FIELDS, *OPTION_FIELDS]
        return tuple(dict.fromkeys(names))
    return COMMON
