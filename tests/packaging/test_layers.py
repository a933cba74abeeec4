"""The arrows between the rooms: the adapters and the simulated device meet only in ``connect.py``.

``amc.sim`` is a device (a state machine and the servers that speak each backend's protocol for
it), not a driver: nothing under ``sim/`` imports ``amc.drivers``. The adapters (``drivers/wda``,
``drivers/u2``, ``drivers/appium``) and the parsers (``drivers/hierarchy``) never import
``amc.sim``: they reach the simulated device over the wire, like a phone. Only the composition root
(``drivers/connect.py``) and the in-process adapter (``drivers/simulated.py``) name it. Every import
counts, including those under ``TYPE_CHECKING`` and inside functions.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAY_IMPORT_SIM = {"drivers/connect.py", "drivers/simulated.py"}


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, relative imports resolved to ``amc.…`` names."""
    relative = path.relative_to(REPO)
    package = ["amc", *relative.parent.parts]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                targets = [node.module] if node.module else [alias.name for alias in node.names]
                found += [(node.lineno, ".".join([*base, target])) for target in targets]
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def _offending(folder: str, forbidden: str, allowed: Collection[str] = ()) -> list[str]:
    wrong = []
    for path in sorted((REPO / folder).rglob("*.py")):
        name = str(path.relative_to(REPO))
        if "__pycache__" in path.parts or name in allowed:
            continue
        wrong += [
            f"{name}:{line}: import {module}"
            for line, module in _imports(path)
            if module == forbidden or module.startswith(forbidden + ".")
        ]
    return wrong


def test_resolving_relative_imports() -> None:
    found = {module for _, module in _imports(REPO / "drivers" / "connect.py")}
    assert "amc.drivers.base" in found and "amc.core.errors" in found and "amc.sim.wda_face" in found


def test_the_simulated_device_imports_no_driver() -> None:
    assert _offending("sim", "amc.drivers") == []


@pytest.mark.parametrize("room", ["wda", "u2", "appium", "hierarchy"])
def test_adapters_and_parsers_never_import_the_simulated_device(room: str) -> None:
    assert _offending(f"drivers/{room}", "amc.sim") == []


def test_only_the_composition_root_and_the_in_process_adapter_import_the_simulated_device() -> None:
    assert _offending("drivers", "amc.sim", MAY_IMPORT_SIM) == []
    importers = {
        str(path.relative_to(REPO))
        for path in (REPO / "drivers").rglob("*.py")
        if any(module.startswith("amc.sim") for _, module in _imports(path))
    }
    assert importers == MAY_IMPORT_SIM


def test_no_front_end_lives_under_runtime() -> None:
    """runtime/ holds the loop only: the command line, flows, the inspector, the agent surfaces and
    the pytest plugin are top-level folders of their own (tests/packaging/test_imports.py says
    which way each may import)."""
    assert sorted(p.parent.name for p in (REPO / "runtime").rglob("__init__.py")) == ["runtime"]
