"""Every import of the harness goes through ``amc``: no module may import ``core``, ``runtime``, ...

Inside the product the layers import each other relatively (``from ..core import Scene``), so the
mapping in ``pyproject.toml`` is the only place that names where they live; tests, benchmarks and
examples import ``amc.<layer>`` as a user does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = ("core", "world", "semantic", "runtime", "drivers", "sim", "storage")
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
