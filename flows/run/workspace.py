"""A Maestro workspace: a folder with ``config.yaml`` (or ``config.yml``) saying which flows it
holds and how to run them, read as Maestro reads it (its ``WorkspaceConfig.kt``,
``workspace/WorkspaceExecutionPlanner.kt``, ``workspace/ExecutionOrderPlanner.kt``,
``workspace/Filters.kt`` and the CLI's ``TestCommand.kt`` / ``TestSuiteInteractor.kt``):

- ``flows``: globs relative to the folder (default ``*``: its own files only; ``**`` crosses
  folders; ``{a,b}`` and ``[ab]`` as Java's globs; a glob starting with ``!`` leaves files out);
- ``includeTags`` (a flow needs one of them), ``requireTags`` (a flow needs all of them),
  ``excludeTags`` (a flow with one is left out): added to the command line's;
- ``executionOrder``: ``flowsOrder`` (flow names: the header's ``name``, else the file's stem) run
  first, in that order, taken as Maestro's ExecutionOrderPlanner takes it (:func:`sequence`);
  ``continueOnFailure: false`` stops that sequence at its first failure (the rest is not run);
- ``platform``: ``android: {disableAnimations}``, ``ios: {disableAnimations,
  snapshotKeyHonorModalViews}``, kept in :attr:`Workspace.platforms`;
- ``testOutputDir``: where a run's folders go, relative to the workspace (``--out`` wins);
- ``baselineBranch``, ``notifications``, ``disableRetries``: Maestro Cloud's, read and set aside.

Any other key (``appId``, ``env``, ``timeout`` …) is set aside with a note, never refused: Maestro's
``WorkspaceConfig`` takes unknown keys with a ``@JsonAnySetter`` that does nothing and logs
"Config file ... contains unknown keys". A known key of the wrong type is a problem at its line, as
it is a parse error there. Files named ``config.yaml`` / ``config.yml`` are never flows, nor is a
YAML file with no ``---`` whose keys are all workspace keys (an additional config file, as
``Filters.kt`` tells them). Only the folder's own regular files are read (no symlinks), at most
:data:`MAX_WORKSPACE_FLOWS`, at most :data:`MAX_WORKSPACE_DEPTH` folders deep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import FlowError
from ..loader import compose_documents, read_flow_file
from ..model import FlowValidationError
from ..nodes import Invalid, NodeReader

__all__ = [
    "CONFIG_NAMES",
    "KNOWN_KEYS",
    "MAX_WORKSPACE_DEPTH",
    "MAX_WORKSPACE_FLOWS",
    "Workspace",
    "no_flows",
    "read_workspace",
    "sequence",
]

CONFIG_NAMES = ("config.yaml", "config.yml")
MAX_WORKSPACE_FLOWS = 1000
MAX_WORKSPACE_DEPTH = 16
# The properties of Maestro's WorkspaceConfig (2.x), the keys it reads; any other is set aside.
KNOWN_KEYS = (
    "flows",
    "includeTags",
    "requireTags",
    "excludeTags",
    "executionOrder",
    "baselineBranch",
    "notifications",
    "disableRetries",
    "platform",
    "testOutputDir",
)
_CLOUD = ("baselineBranch", "notifications", "disableRetries")  # read by Maestro Cloud only
_PLATFORM_NOTES = {  # what each platform setting does in Maestro, and why the harness sets it aside
    "disableAnimations": "Maestro Cloud turns the device's system animations off (Reduce Motion on "
    "iOS); here each step waits for the screen to settle instead",
    "snapshotKeyHonorModalViews": "Maestro's iOS driver then keeps elements behind a modal view in "
    "its hierarchy; here the hierarchy is the one the device's backend gives",
}
_PLATFORM_KEYS = {
    "android": ("disableAnimations",),
    "ios": ("disableAnimations", "snapshotKeyHonorModalViews"),
}


@dataclass(frozen=True)
class Workspace:
    """What a workspace's config says: its flow files (in order), tags, order and settings.
    ``notes``: what was set aside (unknown keys, Cloud settings), said once, never a refusal;
    ``output_dir``: ``testOutputDir`` resolved against the folder; ``platforms``: the ``platform``
    settings per platform."""

    folder: str
    config: str
    files: tuple[str, ...]
    include_tags: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    order: tuple[str, ...] = ()
    continue_on_failure: bool = True
    require_tags: frozenset[str] = frozenset()
    output_dir: str | None = None
    platforms: Mapping[str, Mapping[str, bool]] = field(default_factory=dict, compare=False)
    notes: tuple[FlowError, ...] = field(default=(), compare=False)


def _glob(pattern: str) -> re.Pattern[str]:
    """A Java-style glob as a regular expression over a relative path (``*`` stays in a folder)."""
    out, i, depth = "", 0, 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "{":
            out, i, depth = out + "(?:", i + 1, depth + 1
        elif c == "}" and depth:
            out, i, depth = out + ")", i + 1, depth - 1
        elif c == "," and depth:
            out, i = out + "|", i + 1
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out, i = out + "[" + ("^" + body[1:] if body.startswith("!") else body) + "]", end + 1
        else:
            out, i = out + re.escape(c), i + 1
    return re.compile(out + ")" * depth if depth else out)


def _strings(r: NodeReader, node: Node, what: str) -> list[str]:
    items = node.value if isinstance(node, SequenceNode) else [node]
    return [r.string(item, what) for item in items]


def _keys(node: Node) -> list[tuple[str, Node, Node]]:
    if not isinstance(node, MappingNode):
        return []
    return [(str(k.value), k, v) for k, v in node.value if isinstance(k, ScalarNode)]


def _is_extra_config(path: Path) -> bool:
    """A YAML file beside the flows that is a workspace config, not a flow: no ``---`` and only
    workspace keys at its top (Maestro's ``Filters.kt`` rule)."""
    try:
        text = path.read_text(encoding="utf-8")
        if "\n---" in text:
            return False
        documents = compose_documents(text, str(path))
    except (OSError, UnicodeDecodeError, FlowError):
        return False
    if len(documents) != 1 or not isinstance(documents[0], MappingNode):
        return False
    return all(key in KNOWN_KEYS for key, _k, _v in _keys(documents[0]))


def _yaml_files(folder: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        depth = len(Path(root).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_WORKSPACE_DEPTH)
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith((".yaml", ".yml")) and name not in CONFIG_NAMES and not path.is_symlink():
                found.append(path.relative_to(folder).as_posix())
                if len(found) > MAX_WORKSPACE_FLOWS:
                    raise FlowError(
                        f"the workspace holds more than {MAX_WORKSPACE_FLOWS} YAML files", file=str(folder)
                    )
    return found


_SUBFOLDERS_HINT = (
    "flows in subfolders run when the workspace's config.yaml names them, e.g. `flows: ['**']` or "
    "`flows: ['login/*']` (Maestro's inclusion patterns: "
    "https://maestro.mobile.dev/cli/test-suites-and-reports#inclusion-patterns)"
)


def no_flows(folder: str, patterns: Sequence[str] = ("*",), *, file: str | None = None) -> FlowError:
    """Why ``folder`` chose no flow, in Maestro's words (its WorkspaceExecutionPlanner): no flow file
    anywhere in it; flows only below its top level while the patterns are Maestro's default ``*``;
    or patterns that match none."""
    try:
        anywhere = bool(_yaml_files(Path(folder)))
    except (FlowError, OSError):
        anywhere = True  # more than the bound: there are flows
    if not anywhere:
        return FlowError("Flow directories do not contain any Flow files", file=file or folder)
    if list(patterns) == ["*"]:
        return FlowError(
            "Top-level directories do not contain any Flows",
            file=file or folder,
            hint=_SUBFOLDERS_HINT,
        )
    return FlowError(
        "Flow inclusion pattern(s) did not match any Flow files: " + ", ".join(patterns)[:300],
        file=file or folder,
        hint="a pattern is read from the workspace's folder (the one config.yaml is in), as Maestro reads it",
    )


def _note(r: NodeReader, node: Node, message: str) -> FlowError:
    mark = node.start_mark
    return FlowError(message, file=r.file, line=mark.line + 1, column=mark.column + 1)


def _set_aside(r: NodeReader, where: str, node: Node, known: Sequence[str]) -> list[FlowError]:
    """A note for each key of ``node`` Maestro does not read."""
    return [
        _note(
            r,
            key_node,
            f"{where}: key {key!r} is not one Maestro's workspace config reads; set aside "
            f"(Maestro ignores it too; it reads: {', '.join(known)})",
        )
        for key, key_node, _v in _keys(node)
        if key not in known
    ]


def _platforms(r: NodeReader, node: Node, notes: list[FlowError]) -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = {}
    r.mapping(node, "platform")
    notes.extend(_set_aside(r, "platform", node, tuple(_PLATFORM_KEYS)))
    for name, _key, value in _keys(node):
        if name not in _PLATFORM_KEYS:
            continue
        settings = r.mapping(value, f"platform.{name}")
        notes.extend(_set_aside(r, f"platform.{name}", value, _PLATFORM_KEYS[name]))
        out[name] = {
            key: r.boolean(settings[key], f"platform.{name}.{key}")
            for key in _PLATFORM_KEYS[name]
            if key in settings
        }
        notes.extend(
            _note(r, settings[key], f"platform.{name}.{key}: {_PLATFORM_NOTES[key]}; read and set aside")
            for key in out[name]
        )
    return out


@dataclass
class _Read:
    patterns: list[str] = field(default_factory=lambda: ["*"])
    include: list[str] = field(default_factory=list)
    require: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    go_on: bool = True
    output: str | None = None
    platforms: dict[str, dict[str, bool]] = field(default_factory=dict)


def _read(r: NodeReader, entries: dict[str, Node], notes: list[FlowError]) -> _Read:
    got = _Read()
    if "flows" in entries:
        got.patterns = _strings(r, entries["flows"], "flows")
    for key, into in (
        ("includeTags", got.include),
        ("requireTags", got.require),
        ("excludeTags", got.exclude),
    ):
        if key in entries:
            into.extend(_strings(r, entries[key], key))
    if "executionOrder" in entries:
        node = entries["executionOrder"]
        plan = r.mapping(node, "executionOrder")
        notes.extend(_set_aside(r, "executionOrder", node, ("continueOnFailure", "flowsOrder")))
        if "flowsOrder" in plan:
            got.order = _strings(r, plan["flowsOrder"], "flowsOrder")
        if "continueOnFailure" in plan:
            got.go_on = r.boolean(plan["continueOnFailure"], "continueOnFailure")
    if "platform" in entries:
        got.platforms = _platforms(r, entries["platform"], notes)
    if "testOutputDir" in entries:
        got.output = r.string(entries["testOutputDir"], "testOutputDir")
    if "disableRetries" in entries:
        r.boolean(entries["disableRetries"], "disableRetries")
    if "baselineBranch" in entries:
        r.string(entries["baselineBranch"], "baselineBranch")
    if "notifications" in entries:
        r.mapping(entries["notifications"], "notifications")
    return got


def read_workspace(folder: str, *, config_file: str | None = None) -> Workspace | None:
    """The workspace ``folder`` is, or None when it has no config file; ``FlowValidationError``
    with every problem of the config (a known key of the wrong type, no flow selected).
    ``config_file``: the config to read instead of the folder's own (Maestro's ``--config``)."""
    config = next((Path(folder) / n for n in CONFIG_NAMES if (Path(folder) / n).is_file()), None)
    if config_file is not None:
        config = Path(config_file)
    if config is None:
        return None
    file = os.fspath(config)
    documents = compose_documents(read_flow_file(file), file)
    r = NodeReader(file, {})
    problems: list[FlowError] = []
    notes: list[FlowError] = []
    entries: dict[str, Node] = {}
    got = _Read()
    try:
        if documents:
            entries = r.mapping(documents[0], "the workspace config")
            notes.extend(_set_aside(r, "the workspace config", documents[0], KNOWN_KEYS))
            notes.extend(
                _note(r, entries[key], f"{key}: a Maestro Cloud setting; set aside by amc run")
                for key in _CLOUD
                if key in entries
            )
        got = _read(r, {k: v for k, v in entries.items() if k in KNOWN_KEYS}, notes)
    except Invalid as bad:
        problems.append(bad.error)
    keep = [_glob(p) for p in got.patterns if not p.startswith("!")]
    drop = [_glob(p[1:]) for p in got.patterns if p.startswith("!")]
    if not keep:
        where = entries.get("flows")
        line = where.start_mark.line + 1 if isinstance(where, Node) else 1
        problems.append(
            FlowError("flows: only exclusions (!…) are given; say which flows to run", file=file, line=line)
        )
    if problems:
        raise FlowValidationError(tuple(problems))
    files = [
        os.path.join(folder, rel)
        for rel in _yaml_files(Path(folder))
        if any(g.fullmatch(rel) for g in keep) and not any(g.fullmatch(rel) for g in drop)
    ]
    files = [f for f in files if not _is_extra_config(Path(f))]
    if not files:
        raise no_flows(folder, got.patterns, file=file)
    output = None if got.output is None else os.path.join(folder, os.path.expanduser(got.output))
    return Workspace(
        folder,
        file,
        tuple(files),
        frozenset(got.include),
        frozenset(got.exclude),
        tuple(got.order),
        got.go_on,
        frozenset(got.require),
        output,
        got.platforms,
        tuple(notes),
    )


def sequence(names: Sequence[str], order: Sequence[str], config: str) -> list[int]:
    """The positions (in ``names``, the names of a workspace's selected flows) of the flows its
    ``flowsOrder`` runs first, as Maestro's ExecutionOrderPlanner takes them: the longest start of
    the order whose names are all found; none when no name of it is found, or when the order names
    a flow twice; a ``FlowError`` when its first name is missing but a later one is found."""
    if not order:
        return []
    wanted = list(dict.fromkeys(order))
    at = {name: i for i, name in enumerate(names)}  # a name given twice: the last flow, as Maestro's map
    if not any(name in at for name in wanted):
        return []
    found: list[str] = []
    for name in wanted:
        if name not in at:
            break
        found.append(name)
    if not found:
        missing = ", ".join(n for n in wanted if n not in at)
        raise FlowError(f"Could not find flows needed for execution in order: {missing}", file=config)
    if list(order[: len(found)]) != found:
        return []
    return [at[name] for name in found]
