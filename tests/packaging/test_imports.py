"""Every import of the harness goes through ``amc``: no module may import ``core``, ``runtime``, ...

Inside the product the layers import each other relatively (``from ..core import Scene``), so the
mapping in ``pyproject.toml`` is the only place that names where they live; tests, benchmarks and
examples import ``amc.<layer>`` as a user does.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Every top-level folder pyproject maps under `amc`: the layers and the front ends.
LAYERS = tuple(
    tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values()
)
OTHERS = ("tests", "device_tests", "benchmarks", "examples")


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _absolute_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("folder", LAYERS + OTHERS)
def test_no_module_imports_a_layer_by_its_folder_name(folder: str) -> None:
    wrong = [
        f"{path.relative_to(REPO)}:{line}: import {name}"
        for path in _modules(folder)
        for line, name in _absolute_imports(path)
        if name.split(".")[0] in LAYERS
    ]
    assert wrong == []


@pytest.mark.parametrize("folder", LAYERS)
def test_the_layers_import_each_other_relatively(folder: str) -> None:
    absolute = [
        f"{path.relative_to(REPO)}:{line}: import {name}"
        for path in _modules(folder)
        for line, name in _absolute_imports(path)
        if name == "amc" or name.startswith("amc.")
    ]
    assert absolute == []


# Which layers each layer may import (itself always): the arrows of the data path
# Driver.observe -> Scene -> enrich -> Planner.plan(world) -> Executor -> StepResult -> WorldModel.observe.
ALLOWED = {
    "core": set(),
    "semantic": {"core"},
    "world": {"core", "semantic"},
    "storage": {"core"},
    "sim": {"core"},
    # The adapters never import the simulated device (tests/packaging/test_layers.py).
    "drivers": {"core"},
    # The composition root stands above both: one spec in, a connected driver out.
    "connect": {"core", "drivers", "sim"},
    # One module per action: arguments, handler, how flows write it (it looks through the runtime's
    # Screen protocol, which it declares, and drives the driver).
    "actions": {"core", "semantic", "world", "drivers"},
    "runtime": {"core", "semantic", "world", "drivers", "sim", "storage", "actions"},
}
# The one arrow upward: ``amc.drivers.connect``, the name the README gives the composition root,
# re-exports ``amc.connect`` (tests/packaging/test_layers.py checks it defines nothing of its own).
UPWARD = {"drivers/connect.py": {"connect"}}
# The front ends import the loop and what is under it, never the reverse; the command line is the
# front end that may name every other front end.
_LOOP = {"core", "semantic", "world", "drivers", "sim", "connect", "storage", "actions", "runtime"}
ALLOWED |= {
    "flows": _LOOP,
    "agent": _LOOP | {"flows"},
    "inspector": _LOOP | {"flows"},
    "pytest_plugin": _LOOP | {"flows"},
    "cli": _LOOP | {"flows", "agent", "inspector"},
}


def test_every_mapped_folder_has_its_arrows() -> None:
    assert sorted(ALLOWED) == sorted(LAYERS)


def _imported_layers(path: Path, layer: str) -> set[tuple[int, str]]:
    package = list(path.relative_to(REPO).parent.parts)  # e.g. ["drivers", "sim"]
    found: set[tuple[int, str]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = package[: len(package) - node.level + 1]
            target = [*base, *(node.module.split(".") if node.module else [])]
            if target and target[0] != layer:
                found.add((node.lineno, target[0]))
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = [
        f"{path.relative_to(REPO)}:{line}: imports {target}"
        for path in _modules(layer)
        for line, target in sorted(_imported_layers(path, layer))
        if target not in ALLOWED[layer] | UPWARD.get(str(path.relative_to(REPO)), set())
    ]
    assert wrong == []
