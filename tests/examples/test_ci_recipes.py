"""The CI recipes in ``examples/ci/`` cannot rot: each is valid for GitHub Actions (its workflow
schema, as SchemaStore publishes it, vendored by check-jsonschema), and every ``amc`` command in
them runs here, against the simulated device, over the protocol its real target speaks.

How a command is made to run here (``examples/ci/README.md`` says the same to a reader):

- ``${{ matrix.X }}`` takes each value of the job's matrix in turn; ``${{ secrets.X }}`` the
  value in :data:`SECRETS`; the step's ``env:`` is the command's environment;
- the device spec is replaced: ``android:SERIAL`` by ``sim+adb:android`` (an adb server and
  uiautomator2, as on the emulator), ``ios:URL`` by ``sim+wda:ios`` (WebDriverAgent, as on the
  Simulator), ``appium:URL?platform=P`` by ``sim+appium:P`` (an Appium server, as the hub is);
- the rest of the command is run by bash unchanged, in a copy of ``examples/ci``, with this
  tree's ``amc`` first on the PATH.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "examples" / "ci"
WORKFLOWS = sorted(RECIPES.glob("*.yml"))
SECRETS = {"APP_PASSWORD": "secret123", "APPIUM_URL": "https://user:key@hub.example.com/wd/hub"}
_EXPR = re.compile(r"\$\{\{\s*(matrix|secrets)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_DEVICE = re.compile(r"""--device[ =](?P<q>["']?)(?P<spec>[^"'\s]+)(?P=q)""")


@dataclass(frozen=True)
class Command:
    workflow: str
    step: str
    line: str
    env: dict[str, str]

    @property
    def id(self) -> str:
        return f"{self.workflow}:{self.step}:{self.line[:60]}"


def _expand(text: str, matrix: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        kind, name = match.groups()
        return matrix[name] if kind == "matrix" else SECRETS[name]

    return _EXPR.sub(value, text)


def _matrices(job: dict[str, Any]) -> list[dict[str, str]]:
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    names = sorted(matrix)
    return [
        dict(zip(names, map(str, combo), strict=True))
        for combo in itertools.product(*(matrix[n] for n in names))
    ]


def _amc_lines(script: str) -> list[str]:
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("amc ")]


def commands(path: Path) -> list[Command]:
    """Every ``amc`` command of ``path``'s steps (``run:``, or an action's ``script:``), once per
    matrix combination, expressions expanded."""
    workflow = yaml.safe_load(path.read_text())
    found: list[Command] = []
    for job in workflow["jobs"].values():
        for matrix in _matrices(job) or [{}]:
            for step in job["steps"]:
                script = step.get("run") or (step.get("with") or {}).get("script") or ""
                env = {k: _expand(str(v), matrix) for k, v in (step.get("env") or {}).items()}
                for line in _amc_lines(script):
                    found.append(Command(path.name, step.get("name", "?"), _expand(line, matrix), env))
    return found


def on_the_simulated_device(line: str) -> str:
    """``line`` with its device spec replaced by the simulated device behind the same protocol."""

    def swap(match: re.Match[str]) -> str:
        spec = match.group("spec")
        if spec.startswith("android:"):
            return "--device sim+adb:android"
        if spec.startswith("ios:"):
            return "--device sim+wda:ios"
        platform = re.search(r"platform=(android|ios)", spec)
        assert spec.startswith("appium:") and platform, f"no simulated stand-in for the spec {spec!r}"
        return f"--device sim+appium:{platform.group(1)}"

    return _DEVICE.sub(swap, line)


ALL = [command for path in WORKFLOWS for command in commands(path)]


def test_each_recipe_is_there_with_its_amc_steps() -> None:
    counts = {path.name: len(commands(path)) for path in WORKFLOWS}
    # check + run each; the Grid's job runs for android and ios
    assert counts == {"android-emulator.yml": 2, "appium-grid.yml": 4, "ios-simulator.yml": 2}


def test_every_recipe_is_a_valid_github_workflow() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = (
        (RECIPES / "android-emulator.yml")
        .read_text()
        .replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest")
    )
    broken.write_text(text)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(broken),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and "runs_on" in done.stdout, done.stdout


@pytest.mark.parametrize("command", ALL, ids=[c.id for c in ALL])
def test_each_amc_step_runs_against_the_simulated_device(command: Command, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    shutil.copytree(RECIPES, work)
    line = on_the_simulated_device(command.line)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AMC_", "PYTEST_"))}
    env |= command.env
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=180, check=False
    )

    assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    junit = re.search(r"--junit (\S+)", line)
    if junit is not None:
        suites = ET.parse(work / junit.group(1)).getroot()
        cases = suites.findall(".//testcase")
        assert [c.get("name") for c in cases] == ["sign_in"], ET.tostring(suites)[:2000]
        assert not suites.findall(".//failure") and not suites.findall(".//error")
        assert "--device sim" in line  # the command that ran was pointed at the simulated device


def test_the_run_step_fails_when_the_flow_fails(tmp_path: Path) -> None:
    # The same command with a wrong password must fail the job: the recipes' checks are real.
    run = next(c for c in ALL if c.workflow == "android-emulator.yml" and " run " in c.line)
    work = tmp_path / "repo"
    shutil.copytree(RECIPES, work)
    env = {**os.environ, **run.env, "PASSWORD": "wrong"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", on_the_simulated_device(run.line)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-2000:]
    assert ET.parse(work / "report.xml").getroot().findall(".//failure")
