"""A flow written down from what was done (an agent's run, the inspector's recording), in either dialect.

A :class:`RecordedFlow` holds its steps as actions with checked arguments (:class:`RecordedStep`),
not as the text of one dialect, so the same recording is written in the project's flow format
(:func:`write_amc`) or in Maestro's (:mod:`amc.flows.maestro.writer`) by :func:`write_flow`. A
secret is never a value here: it is a :class:`Variable`, written ``${NAME}`` (the flow reads it
from ``--env NAME=...`` or the environment), and the file's header says which variables it needs.
Every other string is written so the flow reads it back as it was (``${`` as ``$${``). A step's
comments (why it was taken, what it expected) are written above it.
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from ..core.errors import ConfigError
from ..storage.redaction import redact_url

__all__ = [
    "FORMATS",
    "RecordedFlow",
    "RecordedStep",
    "Variable",
    "as_written",
    "check_path",
    "claim_path",
    "step_of",
    "variable_name",
    "write_amc",
    "write_flow",
    "yaml_value",
]

FORMATS: Final = ("amc", "maestro")
_NAME = re.compile(r"[^A-Za-z0-9]+")
_MAX_COMMENT = 300


@dataclass(frozen=True)
class Variable:
    """A value the flow reads from its environment: written ``${NAME}``, its value never."""

    name: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", self.name):
            raise ValueError(f"a flow variable is named in capitals, digits and _, got {self.name!r}")

    @property
    def text(self) -> str:
        return "${" + self.name + "}"


def variable_name(hint: str | None, taken: Sequence[str] = ()) -> str:
    """A variable name from ``hint`` (a field's id or label: ``password`` -> ``PASSWORD``), made
    unique against ``taken`` (``PASSWORD_2``); ``SECRET`` when the hint gives nothing."""
    base = _NAME.sub("_", (hint or "").rsplit("/", 1)[-1]).strip("_").upper()[:40] or "SECRET"
    if base[0].isdigit():
        base = "V_" + base
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


@dataclass(frozen=True)
class RecordedStep:
    """One step: its action, its arguments as the action takes them (a :class:`Variable` where a
    secret was), comments to write above it, and whether a failure of it may be ignored."""

    action: str
    args: Mapping[str, Any]
    comments: tuple[str, ...] = ()
    optional: bool = False


@dataclass(frozen=True)
class RecordedFlow:
    """A flow to write: its name, platform, the app it drives (Maestro's ``appId``), the lines of
    its header comment and its steps."""

    name: str
    platform: str
    steps: tuple[RecordedStep, ...]
    app_id: str | None = None
    header: tuple[str, ...] = ()
    variables: tuple[str, ...] = field(default=())

    def needs(self) -> tuple[str, ...]:
        """The variables the steps read, in order of first use."""
        found: dict[str, None] = {}

        def walk(value: Any) -> None:
            if isinstance(value, Variable):
                found.setdefault(value.name, None)
            elif isinstance(value, Mapping):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list | tuple):
                for item in value:
                    walk(item)

        for step in self.steps:
            walk(step.args)
        return tuple(found)


_TOKEN = "AMCVARIABLE{}END"


def yaml_value(value: Any, escape: Callable[[str], str] = lambda text: text.replace("${", "$${")) -> str:
    """``value`` as one line of YAML in flow style: strings kept strings, each plain string passed
    through ``escape`` (the project's flows read ``${`` as a variable: it is written ``$${``), each
    :class:`Variable` written ``"${NAME}"``."""
    names: list[str] = []

    def prepare(item: Any) -> Any:
        if isinstance(item, Variable):
            names.append(item.name)
            return _TOKEN.format(len(names) - 1)
        if isinstance(item, str):
            return escape(item)
        if isinstance(item, Mapping):
            return {str(k): prepare(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [prepare(v) for v in item]
        return item

    text = (
        yaml.safe_dump(
            prepare(value), default_flow_style=True, allow_unicode=True, width=math.inf, sort_keys=False
        )
        .removesuffix("\n...\n")
        .strip()
    )
    for n, name in enumerate(names):
        text = text.replace(_TOKEN.format(n), '"${' + name + '}"')
    return text


def as_written(selector: Mapping[str, Any]) -> dict[str, Any]:
    """A checked selector as a person writes it: without the defaults checking filled in."""
    return {k: v for k, v in selector.items() if v is not None and (k, v) != ("visible", True)}


def step_of(command: str, value: Any, *, comments: Sequence[str] = ()) -> RecordedStep:
    """The recorded step for a flow step ``command: value`` in the project's format (a plain value
    fills the action's short argument, a mapping its arguments; checked by the action as any step
    is): ``StepArgumentError`` when it is not a step."""
    from ..actions import flow_commands
    from ..core.errors import StepArgumentError

    action = flow_commands().get(command)
    if action is None or action.flow is None:
        raise StepArgumentError(f"{command!r} is not a command a recording can hold")
    given = dict(value) if isinstance(value, Mapping) else {}
    if not isinstance(value, Mapping) and value is not None:
        if action.flow.short is None:
            raise StepArgumentError(f"{command} takes a mapping of its arguments")
        given = {action.flow.short: value}
    args = action.as_written(action.validate(given))
    if isinstance(args.get("target"), Mapping):
        args["target"] = as_written(args["target"])
    return RecordedStep(action.name, args, tuple(comments))


def comment_lines(lines: Sequence[str], indent: str = "") -> list[str]:
    """``lines`` as YAML comments (one line each, cut, no line breaks inside), the credentials of
    every URL in them hidden (a ``--device appium:http://qa:PW@host`` named in a header): the
    files people commit carry no password, whoever wrote the line."""
    out = []
    for line in lines:
        flat = redact_url(" ".join(str(line).split()))
        if len(flat) > _MAX_COMMENT:
            flat = flat[: _MAX_COMMENT - 1] + "…"
        out.append(f"{indent}# {flat}".rstrip())
    return out


def _amc_step(step: RecordedStep) -> list[str]:
    args = dict(step.args)
    value: Any = args
    if len(args) == 1 and step.action in ("launch_app", "terminate_app", "clear_state") and "app_id" in args:
        value = args["app_id"]
    elif step.action in ("hide_keyboard", "wait_for_animation_to_end") and not args:
        value = None
    elif set(args) == {"target"} and step.action in ("tap", "long_press", "wait_for", "assert_visible"):
        value = args["target"]
    elif step.action == "press" and set(args) == {"key"}:
        value = args["key"]
    elif step.action == "assert_app" and set(args) == {"app_id"}:
        value = args["app_id"]
    lines = comment_lines(step.comments, "  ")
    written = f"  - {step.action}" if value is None else f"  - {step.action}: {yaml_value(value)}"
    lines.append(written)
    if step.optional:
        lines.append("    optional: true")
    return lines


def write_amc(flow: RecordedFlow) -> str:
    """``flow`` in the project's flow format (what `amc run` reads)."""
    lines = comment_lines(flow.header)
    needs = flow.needs()
    if needs:
        lines += comment_lines(
            [f"Needs {', '.join(needs)}: amc run FILE {' '.join(f'--env {n}=...' for n in needs)}"]
        )
    lines += [f"name: {yaml_value(flow.name)}", f"platform: {yaml_value(flow.platform)}", "steps:"]
    for step in flow.steps:
        lines += _amc_step(step)
    return "\n".join(lines) + "\n"


def check_path(path: str | os.PathLike[str], *, overwrite: bool, option: str = "--record") -> Path:
    """Whether the draft may be written at ``path`` (given as ``option``): a ``ConfigError`` naming
    the problem if not. Touches nothing."""
    target = Path(path)
    where = f"{option} {os.fspath(path)}"
    if not target.name or target.name in (".", ".."):
        raise ConfigError(f"{where} is not a file name", hint=f"e.g. {option} recorded.yaml")
    folder = target.parent
    if not folder.is_dir():
        raise ConfigError(f"{where}: the folder {folder} does not exist", hint="create it first")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ConfigError(f"{where} cannot be checked: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(f"{where} is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{where} exists and is not a regular file")
    if not overwrite:
        raise ConfigError(
            f"{where} already exists", hint="pass --overwrite to replace it, or choose a new name"
        )
    return target


def claim_path(path: str | os.PathLike[str], *, overwrite: bool) -> Path:
    """:func:`check_path`, then create the file (empty; emptied with ``overwrite``), refusing to
    follow a link or to replace a file that appeared since unless ``overwrite``."""
    target = check_path(path, overwrite=overwrite)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    flags |= os.O_TRUNC if overwrite else os.O_EXCL
    try:
        fd = os.open(target, flags, 0o644)
    except OSError as exc:
        raise ConfigError(f"--record {os.fspath(path)} cannot be written: {exc.strerror or exc}") from exc
    os.close(fd)
    return target


def write_flow(flow: RecordedFlow, format: str) -> str:
    """``flow`` written in ``format`` (one of :data:`FORMATS`)."""
    if format == "amc":
        return write_amc(flow)
    if format == "maestro":
        from .maestro.writer import write_maestro

        return write_maestro(flow)
    raise ValueError(f"a flow is written as one of {', '.join(FORMATS)}, not {format!r}")
