"""A Maestro workspace: a folder with ``config.yaml`` (or ``config.yml``) saying which flows it
holds and how to run them, read as Maestro reads it (``models/WorkspaceConfig.kt:7-20``,
``orchestra/workspace/WorkspaceExecutionPlanner.kt``):

- ``flows``: globs relative to the folder (default ``*``: its own files only; ``**`` crosses
  folders; a glob starting with ``!`` leaves files out);
- ``includeTags`` / ``excludeTags``: added to ``--include-tags`` / ``--exclude-tags``;
- ``executionOrder``: ``flowsOrder`` (flow names, the header's ``name`` or the file's stem) run
  first, in that order; ``continueOnFailure`` is read.

Other keys Maestro knows are accepted; an unknown key is a problem at its line. Files named
``config.*`` are never flows. Only the folder's own regular files are read (no symlinks), at most
:data:`MAX_WORKSPACE_FLOWS`, at most :data:`MAX_WORKSPACE_DEPTH` folders deep.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import Node, SequenceNode

from ..core.errors import FlowError
from ..flows import FlowValidationError, read_flow_file
from ..flows.loader import compose_documents
from ..flows.nodes import Invalid, NodeReader

__all__ = ["CONFIG_NAMES", "MAX_WORKSPACE_DEPTH", "MAX_WORKSPACE_FLOWS", "Workspace", "read_workspace"]

CONFIG_NAMES = ("config.yaml", "config.yml")
MAX_WORKSPACE_FLOWS = 1000
MAX_WORKSPACE_DEPTH = 16
_KNOWN = (
    "flows",
    "includeTags",
    "excludeTags",
    "executionOrder",
    "baselineBranch",
    "notifications",
    "disableRetries",
    "platform",
    "testOutputDir",
)


@dataclass(frozen=True)
class Workspace:
    """What a workspace's config says: its flow files (in order), tags and order."""

    folder: str
    config: str
    files: tuple[str, ...]
    include_tags: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    order: tuple[str, ...] = ()
    continue_on_failure: bool = True


def _glob(pattern: str) -> re.Pattern[str]:
    """A Java-style glob as a regular expression over a relative path (``*`` stays in a folder)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _strings(r: NodeReader, node: Node, what: str) -> list[str]:
    items = node.value if isinstance(node, SequenceNode) else [node]
    return [r.string(item, what) for item in items]


def _yaml_files(folder: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        depth = len(Path(root).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_WORKSPACE_DEPTH)
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith((".yaml", ".yml")) and not name.startswith("config.") and not path.is_symlink():
                found.append(path.relative_to(folder).as_posix())
                if len(found) > MAX_WORKSPACE_FLOWS:
                    raise FlowError(
                        f"the workspace holds more than {MAX_WORKSPACE_FLOWS} YAML files", file=str(folder)
                    )
    return found


def read_workspace(folder: str) -> Workspace | None:
    """The workspace ``folder`` is, or None when it has no config file; ``FlowValidationError``
    with every problem of the config."""
    config = next((Path(folder) / n for n in CONFIG_NAMES if (Path(folder) / n).is_file()), None)
    if config is None:
        return None
    file = os.fspath(config)
    documents = compose_documents(read_flow_file(file), file)
    r = NodeReader(file, {})
    problems: list[FlowError] = []
    entries: dict[str, Node] = {}
    if documents:
        try:
            entries = r.mapping(documents[0], "the workspace config", _KNOWN)
        except Invalid as bad:
            problems.append(bad.error)
    patterns = ["*"]
    include: list[str] = []
    exclude: list[str] = []
    order: list[str] = []
    go_on = True
    try:
        if "flows" in entries:
            patterns = _strings(r, entries["flows"], "flows")
        if "includeTags" in entries:
            include = _strings(r, entries["includeTags"], "includeTags")
        if "excludeTags" in entries:
            exclude = _strings(r, entries["excludeTags"], "excludeTags")
        if "executionOrder" in entries:
            plan = r.mapping(entries["executionOrder"], "executionOrder", ("continueOnFailure", "flowsOrder"))
            if "flowsOrder" in plan:
                order = _strings(r, plan["flowsOrder"], "flowsOrder")
            if "continueOnFailure" in plan:
                go_on = r.boolean(plan["continueOnFailure"], "continueOnFailure")
    except Invalid as bad:
        problems.append(bad.error)
    keep = [_glob(p) for p in patterns if not p.startswith("!")]
    drop = [_glob(p[1:]) for p in patterns if p.startswith("!")]
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
    if not files:
        raise FlowError(
            "Flow inclusion pattern(s) did not match any Flow files"
            if "flows" in entries
            else "Top-level directories do not contain any Flows",
            file=file,
        )
    return Workspace(folder, file, tuple(files), frozenset(include), frozenset(exclude), tuple(order), go_on)
