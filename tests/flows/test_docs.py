"""The docs and examples stay true: every command documented, every example valid and passing as described."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.cli.run import setup_run
from amc.flows import BLOCK_COMMANDS, COMMANDS, load_flow
from amc.flows.conditions import CONDITION_KEYS
from amc.flows.loader import TOP_KEYS

from .helpers import EXAMPLES, REPO, amc

EXPECTED = {
    "settings_android.yaml": 0,
    "settings_ios.yaml": 0,
    "demo_login.yaml": 0,
    "demo_login_fails.yaml": 1,
    "demo_session.yaml": 0,
    "settings_scroll.yaml": 0,
}
DOCS = REPO / "docs" / "flows.md"


def test_every_command_is_documented_with_an_example() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for command in (*COMMANDS, *BLOCK_COMMANDS):
        assert f"| `{command}` |" in docs, command
        assert f"- {command}" in docs or f"  - {command}:" in docs, f"no example of {command}"


def test_every_flow_key_condition_and_run_option_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for key in (*TOP_KEYS, "optional", "when"):
        assert f"{key}:" in docs, key
    for condition in CONDITION_KEYS:
        assert f"{{{condition}:" in docs, condition
    run = argparse.ArgumentParser()
    setup_run(run)
    options = [
        o for action in run._actions for o in action.option_strings if o.startswith("--") and o != "--help"
    ]
    assert len(options) >= 11
    for option in options:
        assert f"| `{option}" in docs, f"{option} has no row with an example in docs/flows.md"


def test_the_examples_are_the_ones_described() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.yaml")) == sorted(EXPECTED)


RUNS = [
    ("settings_android.yaml", "android", 0),
    ("settings_ios.yaml", "ios", 0),
    ("demo_login.yaml", "android", 0),
    ("demo_login.yaml", "ios", 0),
    ("demo_login_fails.yaml", "android", 1),
    ("demo_login_fails.yaml", "ios", 1),
    ("demo_session.yaml", "android", 0),
    ("demo_session.yaml", "ios", 0),
    ("settings_scroll.yaml", "android", 0),
    ("settings_scroll.yaml", "ios", 0),
]


@pytest.mark.parametrize(("name", "platform", "code"), RUNS)
def test_each_example_runs_as_described(
    name: str, platform: str, code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])
    flow = load_flow(EXAMPLES / name)
    assert flow.platform in (None, platform)
    result = amc("run", EXAMPLES / name, "--platform", platform, "--out", tmp_path)
    assert result.code == code, result.out + result.err
    assert f"device: sim:{platform} " in result.out


def test_the_readme_python_example_runs_on_the_simulated_device_and_prints_what_it_says(
    tmp_path: Path,
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("save this as `display.py`") :]
    code = after[
        after.index("```python\n") + len("```python\n") : after.index("```\n", after.index("```python"))
    ]
    promised = after[after.index("It prints `") + len("It prints `") :].split("`", 1)[0]
    script = tmp_path / "display.py"
    script.write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AMC_SIM_TIMING"}  # as a user runs it: timing on
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == promised


def test_the_generated_command_table_is_current() -> None:
    from amc.flows.reference import render

    text = DOCS.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m amc.flows.reference --write docs/flows.md"
