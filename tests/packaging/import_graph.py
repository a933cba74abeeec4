"""The harness's import graph, read from the source: every ``import`` of every module under the
folders ``pyproject.toml`` maps into ``amc``, resolved to ``amc.…`` module names, and the import
cycles that an import inside a function hides.

An import inside a function runs late, so a cycle it closes does not fail at import time: it waits
for the first call. Such a cycle is an import ``a -> b`` inside a function of ``a`` where ``b``
already reaches ``a`` through imports that run when a module is loaded (at its top, not under
``TYPE_CHECKING``). Loading ``x.y.z`` also loads the packages ``x.y`` and ``x`` first, unless the
importer is inside them (then they are already loading), so those count as arrows too.

Run it to list them (exit 1 when there is one)::

    .venv/bin/python -m tests.packaging.import_graph [--all]

``--all`` also lists every import inside a function, cycle or not.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

REPO = Path(__file__).resolve().parents[2]

When = Literal["load", "typing", "call"]


@dataclass(frozen=True)
class Import:
    """One import statement's arrow: ``source`` imports ``target`` (both ``amc.…`` modules)."""

    source: str
    target: str
    line: int
    when: When  # load: at the module's top; typing: under TYPE_CHECKING; call: inside a function


@dataclass(frozen=True)
class Cycle:
    """An import inside a function (``closing``) and the load-time path back from its target."""

    closing: Import
    path: tuple[str, ...]  # closing.target (or a package it loads first) -> ... -> closing.source

    def __str__(self) -> str:
        where = f"{self.closing.source}:{self.closing.line}"
        return f"{where} imports {self.closing.target} in a function; " + " -> ".join(self.path)


def modules(repo: Path = REPO) -> dict[str, Path]:
    """Every module of the harness by its ``amc.…`` name (a package by its ``__init__.py``)."""
    setup = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found: dict[str, Path] = {}
    for package, folder in setup["package-dir"].items():
        for path in sorted((repo / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(repo / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _targets(
    name: str, path: Path, node: ast.Import | ast.ImportFrom, known: Mapping[str, Path]
) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = name.split(".") if _is_package(path) else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        module = ".".join([*base, *([node.module] if node.module else [])])
    else:
        module = node.module or ""
    # ``from pkg import sub`` imports the module pkg.sub when there is one (a compiled one, known by
    # its stub, is outside the graph)
    folder = path.parent if node.level else None
    found = []
    for alias in node.names:
        sub = f"{module}.{alias.name}"
        compiled = folder is not None and module == name.rpartition(".")[0] and _compiled(folder, alias.name)
        found.append(sub if sub in known or compiled else module)
    return found


def _compiled(folder: Path, name: str) -> bool:
    return (folder / f"{name}.pyi").exists() and not (folder / f"{name}.py").exists()


class _Reader(ast.NodeVisitor):
    def __init__(self, name: str, path: Path, known: Mapping[str, Path]) -> None:
        self.name, self.path, self.known = name, path, known
        self.functions = 0
        self.typing = 0
        self.found: list[Import] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.functions += 1
        self.generic_visit(node)
        self.functions -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" not in ast.unparse(node.test):
            self.generic_visit(node)
            return
        self.typing += 1
        for child in node.body:
            self.visit(child)
        self.typing -= 1
        for child in node.orelse:
            self.visit(child)

    def _add(self, node: ast.Import | ast.ImportFrom) -> None:
        when: When = "typing" if self.typing else "call" if self.functions else "load"
        for target in _targets(self.name, self.path, node, self.known):
            if target in self.known and target != self.name:
                self.found.append(Import(self.name, target, node.lineno, when))

    visit_Import = _add
    visit_ImportFrom = _add


def imports(repo: Path = REPO) -> list[Import]:
    """Every import between the harness's modules."""
    known = modules(repo)
    found: list[Import] = []
    for name, path in known.items():
        reader = _Reader(name, path, known)
        reader.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += reader.found
    return found


def _packages_loaded(source: str, target: str, known: Mapping[str, Path]) -> Iterator[str]:
    """The packages loading ``target`` loads first: its parents the importer is not inside."""
    parts = target.split(".")
    for end in range(1, len(parts)):
        package = ".".join(parts[:end])
        if package in known and not (source == package or source.startswith(package + ".")):
            yield package


def load_graph(found: list[Import], known: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module's arrows that run when it is loaded."""
    graph: dict[str, set[str]] = {name: set() for name in known}
    for edge in found:
        if edge.when == "load":
            graph[edge.source].add(edge.target)
            graph[edge.source].update(_packages_loaded(edge.source, edge.target, known))
    return graph


def _path(graph: Mapping[str, set[str]], start: str, end: str) -> tuple[str, ...] | None:
    before: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == end:
            path: list[str] = []
            step: str | None = here
            while step is not None:
                path.append(step)
                step = before[step]
            return tuple(reversed(path))
        for there in sorted(graph.get(here, ())):
            if there not in before:
                before[there] = here
                queue.append(there)
    return None


def hidden_cycles(repo: Path = REPO) -> list[Cycle]:
    """Every import inside a function whose target reaches the importer at load time."""
    known = modules(repo)
    found = imports(repo)
    graph = load_graph(found, known)
    cycles = []
    for edge in found:
        if edge.when != "call":
            continue
        # the import runs the target's packages first, then the target
        for start in (*_packages_loaded(edge.source, edge.target, known), edge.target):
            path = _path(graph, start, edge.source)
            if path is not None:
                cycles.append(Cycle(edge, path))
                break
    return cycles


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--all" in args:
        for edge in imports():
            if edge.when == "call":
                print(f"{edge.source}:{edge.line}: imports {edge.target} inside a function")
    cycles = hidden_cycles()
    for cycle in cycles:
        print(cycle)
    print(f"{len(cycles)} import(s) inside functions close a cycle")
    return 1 if cycles else 0


if __name__ == "__main__":
    raise SystemExit(main())
