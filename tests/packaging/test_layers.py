"""The arrows between the rooms: the adapters and the simulated device meet only in the composition
root, ``amc.connect``, which stands above both; and no import inside a function hides a cycle.

``amc.sim`` is a device (a state machine and the servers that speak each backend's protocol for
it), not a driver: nothing under ``sim/`` imports ``amc.drivers`` or ``amc.connect``. Nothing under
``drivers/`` imports ``amc.sim``: the adapters reach the simulated device over the wire, like a
phone. ``drivers/connect.py`` is kept for the name the README gives (``from amc.drivers.connect
import connect``) and only re-exports ``amc.connect``. Every import counts, including those under
``TYPE_CHECKING`` and inside functions.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

from tests.packaging import import_graph

REPO = Path(__file__).resolve().parents[2]
RE_EXPORT = "drivers/connect.py"


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
    found = {module for _, module in _imports(REPO / "connect" / "wiring.py")}
    assert "amc.drivers.base" in found and "amc.core.errors" in found and "amc.connect.specs" in found


def test_the_simulated_device_imports_no_driver_and_no_composition_root() -> None:
    assert _offending("sim", "amc.drivers") == []
    assert _offending("sim", "amc.connect") == []


def test_no_driver_imports_the_simulated_device() -> None:
    assert _offending("drivers", "amc.sim") == []


def test_only_the_re_export_imports_the_composition_root_from_drivers() -> None:
    assert _offending("drivers", "amc.connect", {RE_EXPORT}) == []


def test_the_re_export_defines_nothing_of_its_own() -> None:
    """``drivers/connect.py`` holds a docstring, imports from ``amc.connect`` and ``__all__``."""
    tree = ast.parse((REPO / RE_EXPORT).read_text(encoding="utf-8"))
    kinds = set()
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            kinds.add("docstring")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module in ("__future__", "connect")
            and node.level in (0, 2)
        ):
            kinds.add("import")
        elif isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            kinds.add("__all__")
        else:
            kinds.add(ast.unparse(node)[:60])
    assert kinds == {"docstring", "import", "__all__"}


def test_the_readme_name_is_the_composition_root() -> None:
    import amc.connect
    import amc.drivers.connect

    for name in amc.drivers.connect.__all__:
        assert getattr(amc.drivers.connect, name) is getattr(amc.connect, name)
    assert sorted(amc.drivers.connect.__all__) == sorted(amc.connect.__all__)


def test_no_front_end_lives_under_runtime() -> None:
    """runtime/ holds the loop only: the command line, flows, the inspector, the agent surfaces and
    the pytest plugin are top-level folders of their own (tests/packaging/test_imports.py says
    which way each may import)."""
    assert sorted(p.parent.name for p in (REPO / "runtime").rglob("__init__.py")) == ["runtime"]


# Cycles an import inside a function still hides, not yet broken (issue 41 item 7 broke the
# simulated device's and the adapters'): Scene's methods answer through core.lazy and
# core.selectors, which build on core.models' elements; recorded flows are written in Maestro's
# format by flows.maestro.writer, which reads their steps. No other may be added.
KNOWN_CYCLES = {
    ("amc.core.models", "amc.core.lazy"),
    ("amc.core.models", "amc.core.selectors"),
    ("amc.flows.recorded", "amc.flows.maestro.writer"),
}


def test_no_import_inside_a_function_hides_a_cycle() -> None:
    """An import inside a function that closes a cycle fails only on its first call; move the
    piece both modules need down instead (``python -m tests.packaging.import_graph`` lists them)."""
    cycles = import_graph.hidden_cycles()
    assert [str(c) for c in cycles if (c.closing.source, c.closing.target) not in KNOWN_CYCLES] == []


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"amc.pkg" = "pkg"\n')
    for name, text in files.items():
        (root / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / name).write_text(text)
    return root


def test_the_graph_finds_a_cycle_an_import_inside_a_function_hides(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import B\n",
            "b.py": "def f():\n    from .a import A\n\nclass B: ...\n",
            "c.py": "def g():\n    from .a import A\n",  # no cycle: a does not reach c
            "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        },
    )
    cycles = import_graph.hidden_cycles(root)
    assert [(c.closing.source, c.closing.target, c.path) for c in cycles] == [
        ("amc.pkg.b", "amc.pkg.a", ("amc.pkg.a", "amc.pkg.b"))
    ]


def test_loading_a_module_loads_its_package_first(tmp_path: Path) -> None:
    """``from .sub.x import X`` in a sibling runs ``sub/__init__.py`` too: an arrow of the graph."""
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "top.py": "def f():\n    from .sub.x import X\n",
            "sub/__init__.py": "from ..top import T\n",
            "sub/x.py": "X = 1\n",
        },
    )
    paths = [cycle.path for cycle in import_graph.hidden_cycles(root)]
    assert paths == [("amc.pkg.sub", "amc.pkg.top")]
