"""Read a flow file (YAML) into a validated :class:`~amc.flows.model.Flow`, keeping positions.

The YAML is composed into nodes with a safe loader (never constructed into Python objects by
PyYAML), so every value keeps its line and column and every problem is a ``FlowError`` naming
``file:line:column`` with a hint. The whole file is checked before anything can run, with every
flow it runs (``run_flow``, read here, each with its own file:line:col); all problems are
collected (one per step, an unknown top-level key included) and raised together as a
``FlowValidationError``. :func:`check_flow` reads a file the same way but keeps the variables it
uses that are not set (:class:`~amc.flows.nodes.UnsetVariable`) apart from the file's own problems,
so a run that its tags may leave out checks every file and asks for variables only of the flows it
runs.

Limits that keep a hostile file harmless: at most :data:`MAX_FLOW_BYTES` bytes, only regular
files (no device, FIFO or folder; a ``run_flow`` file is never a symlink either), no anchors or
aliases (a "billion laughs" file is refused before it is expanded), at most :data:`MAX_DEPTH`
levels of nesting, :data:`MAX_STEPS` steps per file, :data:`MAX_INCLUDE_DEPTH` flows deep and
:data:`MAX_INCLUDES` ``run_flow`` files in all. No file but those the flows name is read.
"""

from __future__ import annotations

import os
import re
import stat
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

from ..actions.base import MAX_SETTLE
from ..actions.waiting import MAX_WAIT
from ..core.errors import FlowError
from .blocks import MAX_STEPS, read_steps
from .maestro.reader import looks_maestro, read_maestro
from .model import Flow, FlowValidationError
from .nodes import NAME, PLAIN_TAGS, Invalid, NodeReader, UnsetVariable, kind, suggest
from .roots import FileOutsideRoot, file_in_roots

__all__ = [
    "MAX_DEPTH",
    "MAX_FLOW_BYTES",
    "MAX_INCLUDES",
    "MAX_INCLUDE_DEPTH",
    "MAX_STEPS",
    "TOP_KEYS",
    "FlowCheck",
    "check_flow",
    "load_flow",
    "parse_flow",
    "read_flow_file",
    "script_roots",
]

MAX_FLOW_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_INCLUDE_DEPTH = 16
MAX_INCLUDES = 256
TOP_KEYS = ("name", "description", "platform", "env", "tags", "defaults", "steps")
TAG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# --- the file -----------------------------------------------------------------------------------


def _yaml_error(file: str, exc: yaml.YAMLError) -> FlowError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"not valid YAML: {problem}" + (f" ({context})" if context else "")
    hint = None
    opened = getattr(exc, "context_mark", None)
    if opened is not None and "end of stream" in str(problem):
        # The file ended inside something (a quote never closed): the place to fix is where it
        # opened, not the end of the file.
        mark, hint = opened, "close what opens here (a quote, a bracket) on the line it belongs to"
    if mark is None:
        return FlowError(message, file=file)
    return FlowError(message, file=file, line=mark.line + 1, column=mark.column + 1, hint=hint)


def compose_documents(text: str, file: str) -> list[Node]:
    """Compose every YAML document of ``text`` into nodes, refusing anchors, aliases and deep
    nesting first (a Maestro flow is two documents: its header, then its commands)."""
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
        return [node for node in yaml.compose_all(text, Loader=_SafeLoader) if node is not None]
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


def _read_tags(r: NodeReader, node: Node) -> tuple[str, ...]:
    items = node.value if isinstance(node, SequenceNode) else [node]
    tags: list[str] = []
    for item in items:
        tag = r.string(item, "a tag")
        if not TAG_NAME.fullmatch(tag):
            raise r.fail(
                item, f"tag {tag!r} must be letters, digits, _ . : or -", hint="e.g. `tags: [smoke, login]`"
            )
        tags.append(tag)
    return tuple(dict.fromkeys(tags))


def _read_defaults(r: NodeReader, node: Node) -> float | None:
    """The flow's `defaults:`: how long a step waits for its element (returned), and how long the
    screen may take to settle after a step that changes it (kept on the reader, as its steps read it)."""
    entries = r.mapping(node, "defaults", ("timeout", "settle"))
    if "settle" in entries:
        r.default_settle = r.number(entries["settle"], "defaults' settle", 0, MAX_SETTLE)
    if "timeout" not in entries:
        return None
    return r.number(entries["timeout"], "defaults' timeout", 0, MAX_WAIT)


@dataclass(frozen=True)
class FlowCheck:
    """A flow file read whole: its name and tags, what was found wrong (``found``, in file order),
    and the flow when nothing was. ``problems`` are the file's own, ``unset`` the variables it (or
    a flow it runs) uses that nothing sets: these only matter to a run of this flow."""

    path: str
    name: str
    tags: tuple[str, ...]
    flow: Flow | None
    found: tuple[FlowError, ...] = ()

    @property
    def problems(self) -> tuple[FlowError, ...]:
        return tuple(p for p in self.found if not isinstance(p, UnsetVariable))

    @property
    def unset(self) -> tuple[FlowError, ...]:
        return tuple(p for p in self.found if isinstance(p, UnsetVariable))


@dataclass
class Load:
    """One load of a root flow: the variables given, the files being read (cycles) and a budget.

    ``params``: the variables given on purpose (``--env``), which a Maestro flow's scripts see
    besides its own; None: all of ``environ`` was (a caller's own mapping). ``script_roots``: the
    folders ``runScript`` files must lie in (:func:`script_roots`); ``roots``: the roots the caller
    set (``amc mcp --flow-root``), which every file the flow names must lie in
    (:mod:`amc.flows.roots`), or None."""

    environ: Mapping[str, str]
    stack: list[str] = field(default_factory=list)
    includes: int = 0
    params: Mapping[str, str] | None = None
    script_roots: tuple[str, ...] = ()
    roots: tuple[str, ...] | None = None  # the roots the caller set: every file the flow names (roots.py)


def script_roots(file: str, given: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The flow's folder tree, where its ``runScript`` files must lie (every symlink followed):
    ``given`` when the caller says (``amc mcp``: its flow root); else the folder of the flow a run
    starts with, and the project that holds it: the nearest folder above it named ``.maestro`` (a
    Maestro workspace), else the nearest holding ``.git`` (its repository), so a project's flows
    reach ``../scripts/x.js`` from a subfolder. The home folder and ``/`` are never a project."""
    if given is not None:
        return tuple(os.path.realpath(root) for root in given)
    folder = Path(os.path.realpath(os.path.dirname(file) or "."))
    never = {Path("/"), Path(os.path.realpath(os.path.expanduser("~")))}
    chain = [folder, *folder.parents]
    project = next((p for p in chain if p.name == ".maestro"), None) or next(
        (p for p in chain if p not in never and (p / ".git").exists()), None
    )
    if project is None or project == folder or project in never:
        return (str(folder),)
    return (str(folder), str(project))


def read_flow_file(path: str | os.PathLike[str], *, follow_symlink: bool = True) -> str:
    """The text of the flow file at ``path``: a regular file (a symlink only with
    ``follow_symlink``) of at most :data:`MAX_FLOW_BYTES` bytes, UTF-8; any problem is a ``FlowError``."""
    file = os.fspath(path)
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow_symlink else getattr(os, "O_NOFOLLOW", 0))
    )
    try:
        if not follow_symlink and stat.S_ISLNK(os.lstat(file).st_mode):
            raise FlowError(
                "a flow run by run_flow may not be a symlink", file=file, hint="name the file it points to"
            )
        fd = os.open(file, flags)
    except FlowError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        raise FlowError(
            f"cannot read the flow file: {getattr(exc, 'strerror', None) or exc}",
            file=file,
            hint="check the path",
        ) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, FIFO or socket)"
        raise FlowError(f"the flow file is {what}", file=file, hint="name a .yaml file")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_FLOW_BYTES:
            raise FlowError(
                f"the flow file is {info.st_size} bytes; the limit is {MAX_FLOW_BYTES}",
                file=file,
                hint="split it into smaller flows (run_flow)",
            )
        try:
            data = handle.read(MAX_FLOW_BYTES + 1)
        except OSError as exc:
            raise FlowError(f"cannot read the flow file: {exc.strerror or exc}", file=file) from exc
    if len(data) > MAX_FLOW_BYTES:
        raise FlowError(f"the flow file is larger than {MAX_FLOW_BYTES} bytes", file=file)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FlowError(f"the flow file is not UTF-8 text (byte {exc.start})", file=file) from exc


def _include(load: Load) -> Any:
    def include(r: NodeReader, node: Node, written: str, env: dict[str, str]) -> Flow:
        base = Path(r.file).parent
        try:  # before anything is looked at: not whether it exists, nor a word of it
            target = file_in_roots(written, base=base, roots=load.roots or (), what="run_flow")
        except FileOutsideRoot as outside:
            raise r.fail(node, outside.message, hint=outside.hint) from None
        key = os.path.realpath(target)
        if key in load.stack:
            chain = " -> ".join(
                [*(Path(f).name for f in load.stack[load.stack.index(key) :]), Path(key).name]
            )
            raise r.fail(
                node, f"run_flow makes a cycle: {chain}", hint="a flow may not run itself, directly or not"
            )
        if len(load.stack) >= MAX_INCLUDE_DEPTH:
            raise r.fail(node, f"run_flow nests more than {MAX_INCLUDE_DEPTH} flows deep")
        load.includes += 1
        if load.includes > MAX_INCLUDES:
            raise r.fail(node, f"a flow runs at most {MAX_INCLUDES} run_flow files in all")
        try:
            text = read_flow_file(target, follow_symlink=False)
        except FlowError as exc:  # said at the run_flow line: the file itself has no line to name
            bare = exc.message.removeprefix(f"{exc.file}: ")
            raise r.fail(node, f"run_flow {written!r}: {bare}", hint=exc.hint) from exc
        environ = ChainMap(env, dict(r.environ))
        return _flow_of(
            text,
            os.fspath(target),
            load,
            environ=environ,
            inherited=r.variables(),
            parent_timeout=r.default_timeout,
            parent_settle=r.default_settle,
        )

    return include


def _flow_of(
    text: str,
    file: str,
    load: Load,
    *,
    environ: Mapping[str, str],
    inherited: Mapping[str, str],
    parent_timeout: float | None,
    parent_settle: float | None = None,
) -> Flow:
    """The flow in ``text``; every problem (unset variables included) a ``FlowValidationError``."""
    check = _check(
        text,
        file,
        load,
        environ=environ,
        inherited=inherited,
        parent_timeout=parent_timeout,
        parent_settle=parent_settle,
    )
    if check.flow is None:
        raise FlowValidationError(check.found)
    return check.flow


def _check(
    text: str,
    file: str,
    load: Load,
    *,
    environ: Mapping[str, str],
    inherited: Mapping[str, str],
    parent_timeout: float | None,
    parent_settle: float | None = None,
) -> FlowCheck:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FLOW_BYTES:
        raise FlowError(
            f"the flow is larger than {MAX_FLOW_BYTES} bytes", file=file, hint="split it into smaller flows"
        )
    documents = compose_documents(text, file)
    if looks_maestro(documents):
        try:
            flow = read_maestro(documents, file, load, _include(load), environ=environ, inherited=inherited)
        except FlowValidationError as exc:
            return FlowCheck(file, Path(file).stem, (), None, exc.problems)
        return FlowCheck(file, flow.name, flow.tags, flow)
    if not documents:
        raise FlowError("the flow file is empty", file=file, line=1, column=1, hint="a flow needs `steps:`")
    if len(documents) > 1:
        mark = documents[1].start_mark
        raise FlowError(
            "not valid YAML: but found another document",
            file=file,
            line=mark.line + 1,
            column=mark.column + 1,
            hint="a flow of this project is one document; a Maestro flow is `appId: …`, `---`, then commands",
        )
    root = documents[0]
    r = NodeReader(
        file, environ, inherited=inherited, default_timeout=parent_timeout, default_settle=parent_settle
    )
    load.stack.append(os.path.realpath(file))
    problems: list[FlowError] = []
    nested: list[FlowError] = []
    name = Path(file).stem
    platform: Any = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    own_timeout: float | None = None
    steps: list[Any] = []

    def attempt(read: Any) -> None:
        try:
            read()
        except Invalid as bad:
            problems.append(bad.error)

    try:
        top = r.mapping(root, "the flow")
    except Invalid as bad:
        load.stack.pop()
        raise FlowValidationError((bad.error,)) from None
    for key_node, _value in root.value:  # every unknown key is a problem; the rest is still read
        key = str(key_node.value)
        if key not in TOP_KEYS:
            problems.append(
                r.pos(key_node).error(f"the flow: unknown key {key!r}", hint=suggest(key, list(TOP_KEYS)))
            )

    def read_env() -> None:
        r.flow_env = _read_env(r, top["env"])

    def read_platform() -> None:
        nonlocal platform
        platform = r.string(top["platform"], "platform").lower()
        if platform not in ("android", "ios"):
            raise r.fail(top["platform"], f"platform must be android or ios, got {platform!r}")

    def read_defaults() -> None:
        nonlocal own_timeout
        own_timeout = _read_defaults(r, top["defaults"])
        if own_timeout is not None:
            r.default_timeout = own_timeout

    def read_name() -> None:
        nonlocal name
        name = r.string(top["name"], "name")

    def read_description() -> None:
        nonlocal description
        description = r.string(top["description"], "description", allow_empty=True)

    def read_tags() -> None:
        nonlocal tags
        try:
            tags = _read_tags(r, top["tags"])
        except Invalid as bad:
            if not isinstance(bad.error, UnsetVariable):
                raise
            raise r.fail(  # the tags choose the flows a run runs: every run needs them
                top["tags"],
                f"the tags use a variable that is not set ({bad.error.message})",
                hint="write the tags out: they choose which flows run, so every run reads them",
            ) from None

    for key, read in (
        ("env", read_env),
        ("defaults", read_defaults),
        ("name", read_name),
        ("description", read_description),
        ("platform", read_platform),
        ("tags", read_tags),
    ):
        if key in top:
            attempt(read)
    include = _include(load)

    def checked_include(reader: NodeReader, node: Node, written: str, env: dict[str, str]) -> Flow:
        try:
            flow: Flow = include(reader, node, written, env)
        except FlowValidationError as exc:  # the subflow's own problems, at its own lines
            nested.extend(exc.problems)
            said = f"run_flow {written!r} has problems (listed with its own lines)"
            if all(isinstance(p, UnsetVariable) for p in exc.problems):  # only a run of it cares
                raise reader.unset(node, said) from None
            raise reader.fail(node, said) from None
        except FlowError as exc:  # a problem of the subflow's file as a whole (empty, not YAML …)
            nested.append(exc)
            raise reader.fail(
                node, f"run_flow {written!r} has a problem (listed with its own file)"
            ) from None
        return flow

    if "steps" not in top:
        problems.append(
            r.pos(root).error("the flow has no `steps:`", hint="add `steps:` with a list of commands")
        )
    else:
        try:
            steps = read_steps(r, top["steps"], checked_include, problems)
        except Invalid as bad:
            problems.append(bad.error)
    load.stack.pop()
    if problems or nested:
        problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        unique = {str(p): p for p in [*problems, *nested]}  # each problem once, in order
        return FlowCheck(file, name, tags, None, tuple(unique.values()))
    secrets = set(r.secrets)
    for step in steps:
        secrets |= _secrets_of(step)
    flow = Flow(
        name,
        file,
        tuple(steps),
        dict(r.flow_env),
        platform,
        description,
        frozenset(secrets),
        tags,
        r.default_timeout,
    )
    return FlowCheck(file, name, tags, flow)


def _secrets_of(node: Any) -> set[str]:
    from .model import RunFlow

    if isinstance(node, RunFlow):
        return set(node.flow.secrets)
    found: set[str] = set()
    for child in getattr(node, "steps", ()):
        found |= _secrets_of(child)
    return found


def _load(
    file: str,
    environ: Mapping[str, str] | None,
    params: Mapping[str, str] | None,
    roots: tuple[str, ...] | None,
) -> Load:
    real = None if roots is None else tuple(os.path.realpath(root) for root in roots)
    if environ is None:  # the process environment: none of it was given on purpose
        return Load(os.environ, params=params or {}, script_roots=script_roots(file, roots), roots=real)
    return Load(environ, params=params, script_roots=script_roots(file, roots), roots=real)


def parse_flow(
    text: str,
    *,
    file: str = "<flow>",
    environ: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
    roots: tuple[str, ...] | None = None,
) -> Flow:
    """Validate flow ``text`` (named ``file`` in messages, and ``run_flow`` paths relative to it).
    ``environ`` (the variables given: ``--env`` over the process environment) defaults to
    ``os.environ``; ``params`` are those of them given on purpose (``--env``: a Maestro flow's
    scripts see them; by default all of a given ``environ``, none of ``os.environ``); ``roots`` the
    folders its scripts must lie in (:func:`script_roots`)."""
    load = _load(file, environ, params, roots)
    return _flow_of(text, file, load, environ=load.environ, inherited={}, parent_timeout=None)


def load_flow(
    path: str | os.PathLike[str],
    *,
    environ: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
    roots: tuple[str, ...] | None = None,
) -> Flow:
    """Read and validate the flow file at ``path`` and every flow it runs; any problem is a
    ``FlowError`` (nothing runs). ``environ``, ``params``, ``roots``: as :func:`parse_flow`."""
    file = os.fspath(path)
    return parse_flow(read_flow_file(file), file=file, environ=environ, params=params, roots=roots)


def check_flow(
    path: str | os.PathLike[str], *, environ: Mapping[str, str], params: Mapping[str, str] | None = None
) -> FlowCheck:
    """Read the flow file at ``path`` and every flow it runs, keeping what is wrong in the result
    (:class:`FlowCheck`) instead of raising it; a file that cannot be read as a flow at all (not
    there, empty, not YAML, not a mapping) is still a ``FlowError``."""
    file = os.fspath(path)
    load = _load(file, environ, params, None)
    return _check(read_flow_file(file), file, load, environ=environ, inherited={}, parent_timeout=None)
