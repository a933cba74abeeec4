"""What ``amc run`` is asked to run, checked before anything runs: the flow files (named, or every
``*.yaml`` / ``*.yml`` directly in a named folder), ``--env``, the tags, and where it will write.

Every file is checked whole, whether the tags choose it or not; what only matters to a run of a
flow (a ``${VAR}`` nothing sets) is checked for the flows the tags choose (:func:`select_flows`).
Every problem is collected and reported at once (exit 2); nothing outside what was named is read,
and nothing is written until the run starts.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from ...core.errors import ConfigError, FlowError
from ..loader import FlowCheck, check_flow
from ..model import Flow, FlowValidationError
from ..nodes import NAME
from .workspace import Workspace, no_flows, read_workspace, sequence

__all__ = [
    "FLOW_SUFFIXES",
    "Candidate",
    "Order",
    "Selection",
    "check_output_file",
    "check_output_folder",
    "collect",
    "filter_tags",
    "in_order",
    "parse_env",
    "parse_tags",
    "run_order",
    "select_flows",
    "workspace_notes",
    "workspace_required",
    "workspace_tags",
]

FLOW_SUFFIXES = (".yaml", ".yml")
MAX_FOLDER_FLOWS = 1000


@dataclass(frozen=True)
class Candidate:
    """A flow file to run; ``named`` when given as a file (not found in a folder); ``workspace``:
    the Maestro workspace (a folder with ``config.yaml``) it was found in."""

    path: str
    named: bool
    workspace: Workspace | None = None


def collect(paths: Sequence[str], *, config: str | None = None) -> list[Candidate]:
    """The flow files ``paths`` name (``config``: the workspace config file a folder is read with,
    instead of its own ``config.yaml``, as Maestro's ``--config``): files as given (a symlink
    followed: it was named), folders' ``*.yaml`` / ``*.yml`` (directly in them, sorted; a symlink
    among them is refused). A path that cannot be read, or a folder with no flow, is a ``FlowError``."""
    found: list[Candidate] = []
    problems: list[FlowError] = []
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError) as exc:
            problems.append(
                FlowError(f"cannot read the flow file: {getattr(exc, 'strerror', None) or exc}", file=path)
            )
            continue
        if not stat.S_ISDIR(info.st_mode):
            found.append(Candidate(path, named=True))
            continue
        try:
            workspace = read_workspace(path, config_file=config)
        except FlowValidationError as exc:
            problems.extend(exc.problems)
            continue
        except FlowError as exc:
            problems.append(exc)
            continue
        if workspace is not None:
            found.extend(Candidate(file, named=False, workspace=workspace) for file in workspace.files)
            continue
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            problems.append(FlowError(f"cannot list the folder: {exc.strerror or exc}", file=path))
            continue
        named = [
            e for e in entries if e.name.endswith(FLOW_SUFFIXES) and not e.name.startswith((".", "config."))
        ]
        for entry in named:  # a folder's flows are its own files: a link could lead anywhere
            if entry.is_symlink():
                problems.append(
                    FlowError(
                        "a flow in a folder may not be a symlink",
                        file=entry.path,
                        hint="name the file it points to on the command line",
                    )
                )
        flows = [e for e in named if not e.is_symlink() and e.is_file()]
        if not flows:
            problems.append(no_flows(path))
        if len(flows) > MAX_FOLDER_FLOWS:
            problems.append(FlowError(f"the folder holds more than {MAX_FOLDER_FLOWS} flow files", file=path))
            continue
        found.extend(Candidate(os.path.join(path, e.name), named=False) for e in flows)
    if problems:
        raise FlowValidationError(tuple(problems))
    return found


@dataclass(frozen=True)
class Selection:
    """The flows a run runs (with the candidates they came from, in order), and the names of
    those its tags leave out; ``found`` is how many flow files were read."""

    flows: tuple[Flow, ...]
    candidates: tuple[Candidate, ...]
    left_out: tuple[str, ...]
    found: int


def select_flows(
    candidates: Sequence[Candidate],
    environ: Mapping[str, str],
    include: frozenset[str],
    exclude: frozenset[str],
    params: Mapping[str, str] | None = None,
    require: frozenset[str] = frozenset(),
) -> Selection:
    """Read every candidate whole and keep the flows the tags choose (:func:`filter_tags`). Every
    problem of every file, and every unset variable of a chosen flow, is raised together as one
    ``FlowValidationError``; a flow the tags leave out may use variables that are not set.
    ``params``: the variables of ``environ`` given with ``--env`` (what a Maestro flow's scripts see);
    ``require``: tags a flow must all have (a workspace's ``requireTags``)."""
    read: list[tuple[Candidate, FlowCheck | None, tuple[FlowError, ...]]] = []
    for candidate in candidates:
        try:
            read.append((candidate, check_flow(candidate.path, environ=environ, params=params), ()))
        except FlowValidationError as exc:
            read.append((candidate, None, exc.problems))
        except FlowError as exc:
            read.append((candidate, None, (exc,)))
    checks = [(candidate, check) for candidate, check, _ in read if check is not None]
    kept, dropped = filter_tags([check for _, check in checks], include, exclude, require)
    chosen = {id(check) for check in kept}
    problems: list[FlowError] = []  # in the order of the files
    for _, check, unreadable in read:
        problems.extend(unreadable)
        if check is not None:
            problems.extend(check.found if id(check) in chosen else check.problems)
    if problems:
        raise FlowValidationError(tuple(problems))
    return Selection(
        tuple(check.flow for check in kept if check.flow is not None),
        tuple(candidate for candidate, check in checks if id(check) in chosen),
        tuple(check.name for check in dropped),
        len(checks),
    )


def parse_env(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--env KEY=VALUE`` options as a mapping; a malformed one is a ``ConfigError`` naming it."""
    out: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not NAME.fullmatch(name):
            raise ConfigError(
                f"--env {pair!r} is not KEY=VALUE with KEY a variable name",
                hint="e.g. --env USER=qa (letters, digits and _, not starting with a digit)",
            )
        out[name] = value
    return out


def parse_tags(values: Sequence[str] | None, option: str) -> frozenset[str]:
    """``--include-tags a,b`` (repeatable) as a set; an empty tag is a ``ConfigError``."""
    tags: set[str] = set()
    for value in values or ():
        parts = [part.strip() for part in value.split(",")]
        if not all(parts):
            raise ConfigError(f"{option} {value!r} has an empty tag", hint=f"e.g. {option} smoke,login")
        tags.update(parts)
    return frozenset(tags)


def workspace_tags(candidates: Sequence[Candidate]) -> tuple[frozenset[str], frozenset[str]]:
    """The ``includeTags`` and ``excludeTags`` of the workspaces the candidates came from."""
    spaces = {c.workspace for c in candidates if c.workspace is not None}
    include = frozenset(t for w in spaces for t in w.include_tags)
    exclude = frozenset(t for w in spaces for t in w.exclude_tags)
    return include, exclude


def workspace_notes(candidates: Sequence[Candidate]) -> list[FlowError]:
    """What the workspaces the candidates came from set aside (each workspace's notes once)."""
    spaces = dict.fromkeys(c.workspace for c in candidates if c.workspace is not None)
    return [note for w in spaces if w is not None for note in w.notes]


def workspace_required(candidates: Sequence[Candidate]) -> frozenset[str]:
    """The ``requireTags`` of the workspaces the candidates came from (a flow needs all of them)."""
    return frozenset(t for c in candidates if c.workspace is not None for t in c.workspace.require_tags)


@dataclass(frozen=True)
class Order:
    """The positions of the selected flows in the order they run; for each flow of an
    ``executionOrder`` sequence, the config of its workspace (``sequence``), and whether the rest
    of that sequence is not run once one of its flows fails (``continueOnFailure: false``)."""

    positions: tuple[int, ...]
    sequence: Mapping[int, str]
    stop_on_failure: frozenset[int]


def run_order(flows: Sequence[Flow], candidates: Sequence[Candidate]) -> Order:
    """A workspace's ``flowsOrder`` first (:func:`~amc.flows.run.workspace.sequence`: the flows' names are
    their ``name``, else the file's stem, as Maestro names them), then the rest as given. A
    ``flowsOrder`` whose first name no selected flow has is a ``FlowValidationError``."""
    order: list[int] = []
    seq: dict[int, str] = {}
    stops: set[int] = set()
    for workspace in dict.fromkeys(c.workspace for c in candidates if c.workspace is not None):
        mine = [i for i, c in enumerate(candidates) if c.workspace is workspace]
        try:
            picked = sequence([flows[i].name for i in mine], workspace.order, workspace.config)
        except FlowError as exc:
            raise FlowValidationError((exc,)) from exc
        order.extend(mine[p] for p in picked)
        seq.update({mine[p]: workspace.config for p in picked})
        if not workspace.continue_on_failure:
            stops.update(mine[p] for p in picked)
    return Order(tuple([*order, *(i for i in range(len(flows)) if i not in order)]), seq, frozenset(stops))


def in_order(flows: Sequence[Flow], candidates: Sequence[Candidate]) -> list[int]:
    """The positions of ``flows`` in the order they run (:func:`run_order`)."""
    return list(run_order(flows, candidates).positions)


class _Tagged(Protocol):
    @property
    def tags(self) -> tuple[str, ...]: ...


_T = TypeVar("_T", bound=_Tagged)


def filter_tags(
    flows: Sequence[_T],
    include: frozenset[str],
    exclude: frozenset[str],
    require: frozenset[str] = frozenset(),
) -> tuple[list[_T], list[_T]]:
    """(the flows kept, the flows left out): with ``include``, a flow needs one of its tags; with
    ``require``, all of them; a flow with any ``exclude`` tag is left out."""
    kept: list[_T] = []
    dropped: list[_T] = []
    for flow in flows:
        tags = set(flow.tags)
        keep = (not include or bool(tags & include)) and require <= tags and not (tags & exclude)
        (kept if keep else dropped).append(flow)
    return kept, dropped


def _writable_folder(folder: Path, option: str, shown: str) -> None:
    """``folder`` exists as a folder we may write in, or can be made (its nearest existing
    ancestor is a writable folder); else a ``ConfigError`` naming ``option``."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"{option} {shown}: {probe} is a file, not a folder", hint="choose another path")
    try:  # a real try, removed at once: access() says yes to root in /proc and on read-only mounts
        os.rmdir(tempfile.mkdtemp(prefix=".amc-probe-", dir=probe))
    except OSError as exc:
        raise ConfigError(
            f"{option} {shown}: cannot write in {probe} ({exc.strerror or exc})",
            hint="choose a folder you can write to",
        ) from exc


def check_output_folder(path: str, option: str = "--out") -> Path:
    """Where run folders go: a folder (made at the run's start if missing) we can write in."""
    if not path.strip() or "\x00" in path:
        raise ConfigError(f"{option} {path!r} is not a usable path")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{option} {path} is a file, not a folder", hint="pass a folder for run folders")
    _writable_folder(folder, option, path)
    return folder


def check_output_file(path: str | None, option: str) -> Path | None:
    """Where a file will be written at the end (``--junit``): not a folder, in a writable folder."""
    if path is None:
        return None
    if not path.strip() or "\x00" in path:
        raise ConfigError(f"{option} {path!r} is not a usable path")
    target = Path(path)
    if target.is_dir():
        raise ConfigError(
            f"{option} {path} is a folder", hint=f"give a file name, e.g. {target / 'junit.xml'}"
        )
    _writable_folder(target.parent, option, path)
    return target
