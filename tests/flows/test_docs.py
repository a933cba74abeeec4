"""The docs and examples stay true: every command documented, every example valid and passing as described."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.drivers import connect as connect_module
from amc.runtime.flows import COMMANDS, load_flow

from .helpers import EXAMPLES, REPO, amc

EXPECTED = {
    "settings_android.yaml": 0,
    "settings_ios.yaml": 0,
    "demo_login.yaml": 0,
    "demo_login_fails.yaml": 1,
}


def test_every_command_is_documented() -> None:
    docs = (REPO / "docs" / "flows.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"| `{command}` |" in docs, command


def test_the_examples_are_the_ones_described() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.yaml")) == sorted(EXPECTED)


RUNS = [
    ("settings_android.yaml", "android", 0),
    ("settings_ios.yaml", "ios", 0),
    ("demo_login.yaml", "android", 0),
    ("demo_login.yaml", "ios", 0),
    ("demo_login_fails.yaml", "android", 1),
    ("demo_login_fails.yaml", "ios", 1),
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
