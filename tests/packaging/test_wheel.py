"""The wheel installs one import name, ``amc``, and leaves a user's own ``core`` and ``runtime`` alone.

The wheel is built from a copy of the source tree and installed, without its dependencies and with
no package index, into a fresh virtual environment; the dependencies come from this environment's
site-packages through a folder of links that leaves out this project's own installation. Beside it
lives a throwaway project with packages called ``core`` and ``runtime`` (every Django project has a
``core`` app), whose tests must pass under ``pytest`` and ``python -m pytest`` with the ``amc``
plugin loaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
# Every top-level folder pyproject maps under `amc` (the layers and the front ends).
LAYERS = tuple(
    tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values()
)
OWN = ("agentic_mobile_control", "__editable__", "_agentic_mobile_control", "__editable___agentic")

pytestmark = pytest.mark.timeout(300)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, check=False)


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md", *LAYERS):
        path = REPO / name
        if path.is_dir():  # the C module built in place by `pip install -e .` is left behind: built anew
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
        else:
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("dist")
    done = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
        cwd=src,
        env=_clean_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("agentic_mobile_control-*.whl")
    return built


def _c_modules(names: list[str]) -> list[str]:
    """The C module's files among a wheel's ``names`` (not its source or stub)."""
    prefix = "amc/drivers/hierarchy/_native."
    return [n for n in names if n.startswith(prefix) and n.endswith((".so", ".pyd"))]


def test_the_wheel_has_one_top_level_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
        top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        declared = archive.read(top_level).decode().split()
    assert tops == {"amc"}
    assert declared == ["amc"]
    assert "amc/storage/templates/report.html.j2" in names
    page = {f"amc/inspector/page/{name}" for name in ("index.html", "inspector.js", "inspector.css")}
    assert page <= set(names)  # the inspector serves its page from the installed package
    assert {f"amc/{layer}/py.typed" for layer in LAYERS} <= set(names)
    assert "amc/drivers/hierarchy/_native.pyi" in names  # the C module's types, built or not
    built = _c_modules(names)
    if not built and os.environ.get("AMC_REQUIRE_NATIVE", "").strip() != "1":
        pytest.skip(
            "the wheel holds no C module: no C compiler here (the wheel works without it, walking in Python)"
        )
    assert len(built) == 1, names


def _dependency_links(target: Path) -> Path:
    """This environment's site-packages as links, minus this project's own installation."""
    site = Path(sysconfig.get_paths()["purelib"])
    target.mkdir()
    for entry in site.iterdir():
        if entry.name.startswith(OWN) or entry.suffix == ".pth" or entry.name in ("amc", *LAYERS):
            continue
        (target / entry.name).symlink_to(entry)
    return target


PROJECT_FILES = {
    "core/__init__.py": "",
    "core/models.py": (
        "class PlannedStep:\n    '''Not the harness's: this project's own.'''\n\n\nOWNER = 'project'\n"
    ),
    "runtime/__init__.py": "",
    "runtime/task.py": "def run() -> str:\n    return 'project task'\n",
    "pytest.ini": "[pytest]\npythonpath = .\naddopts = -p no:cacheprovider\n",
    "tests/test_project.py": textwrap.dedent(
        """
        import core.models
        import runtime.task


        def test_own_core_is_imported():
            assert core.models.OWNER == "project"
            assert core.models.PlannedStep.__doc__ == "Not the harness's: this project's own."


        def test_own_runtime_is_imported():
            assert runtime.task.run() == "project task"


        def test_the_harness_lives_under_amc(pytestconfig):
            from amc.core import PlannedStep
            from amc.drivers.connect import connect

            assert PlannedStep("tap", {"x": 1, "y": 2}).action == "tap"
            assert callable(connect)
            assert pytestconfig.pluginmanager.has_plugin("amc")
        """
    ),
}


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("user")
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    done = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", str(wheel)],
        cwd=root,
        env=_clean_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root, {})
    deps = _dependency_links(root / "deps")
    (Path(purelib.stdout.strip()) / "zz_dependencies.pth").write_text(f"{deps}\n")
    # pytest's console script, written as pip writes it from pytest's own entry point (pip cannot
    # install pytest here: there is no index).
    (entry,) = (e for e in metadata.entry_points(group="console_scripts", name="pytest"))
    script = env_dir / "bin" / "pytest"
    script.write_text(
        f"#!{python}\nimport sys\nfrom {entry.module} import {entry.attr}\n"
        f"if __name__ == '__main__':\n    sys.exit({entry.attr}())\n"
    )
    script.chmod(0o755)
    project = root / "project"
    for name, text in PROJECT_FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    yield env_dir, project


@pytest.mark.parametrize(
    "command", [["pytest"], ["python", "-m", "pytest"]], ids=["pytest", "python -m pytest"]
)
def test_a_project_with_its_own_core_and_runtime_still_runs_its_tests(
    installed: tuple[Path, Path], command: list[str]
) -> None:
    env_dir, project = installed
    done = _run([str(env_dir / "bin" / command[0]), *command[1:], "-q"], cwd=project, env=_clean_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


def test_the_installed_command_runs(installed: tuple[Path, Path]) -> None:
    env_dir, project = installed
    done = _run([str(env_dir / "bin" / "amc"), "--help"], cwd=project, env=_clean_env())
    assert done.returncode == 0, done.stderr
    assert "usage: amc" in done.stdout


def test_the_installed_parsers_walk_in_c_where_the_wheel_holds_the_module(
    wheel: Path, installed: tuple[Path, Path]
) -> None:
    env_dir, project = installed
    with zipfile.ZipFile(wheel) as archive:
        holds = bool(_c_modules(archive.namelist()))
    probe = "from amc.drivers.hierarchy import native; print(native.NATIVE is not None)"
    done = _run([str(env_dir / "bin" / "python"), "-c", probe], cwd=project, env=_clean_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(holds)
    off = _run(
        [str(env_dir / "bin" / "python"), "-c", probe],
        cwd=project,
        env={**_clean_env(), "AMC_PURE_PYTHON": "1"},
    )
    assert off.stdout.strip() == "False", off.stderr


def _setuptools_config() -> dict[str, Any]:
    import tomllib

    config: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {f"amc.{layer}": layer for layer in LAYERS}
    return config


def test_pyproject_lists_every_package_folder() -> None:
    """Every folder with an ``__init__.py`` is a package; so is every folder of data files the
    code reads (setuptools warns about a data folder left out of ``packages``), which lists its
    files in ``package-data``; and every other file under a layer is shipped by some pattern."""
    config = _setuptools_config()
    declared = set(config["packages"])
    folders = {
        "amc." + ".".join(init.parent.relative_to(REPO).parts)
        for layer in LAYERS
        for init in (REPO / layer).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert folders <= declared
    for name in declared - folders:  # data packages
        folder = REPO.joinpath(*name.split(".")[1:])
        patterns = config["package-data"].get(name, [])
        assert folder.is_dir() and any(folder.glob(p) for p in patterns), f"{name}: no data it ships"
    for layer in LAYERS:
        for path in (REPO / layer).rglob("*"):
            skipped = path.suffix in {".py", ".pyc", ".c", ".so"} or "__pycache__" in path.parts
            if skipped or not path.is_file():
                continue
            package = "amc." + ".".join(path.parent.relative_to(REPO).parts)
            assert package in declared, f"{path.relative_to(REPO)}: its folder is not a package"
            patterns = [*config["package-data"].get(package, []), *config["package-data"]["*"]]
            assert any(path.match(p) for p in patterns), f"{path.relative_to(REPO)} is not in the wheel"
