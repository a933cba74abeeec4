"""`amc demo`: the example task on the simulated device, printing steps and world state."""

from __future__ import annotations

import io

import pytest
from amc.cli import main


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_demo_runs_and_prints_steps_and_world(platform: str) -> None:
    out = io.StringIO()
    assert main(["demo", "--platform", platform], out=out) == 0
    text = out.getvalue()
    assert "task succeeded" in text
    assert "launch_app" in text and "terminate_app" in text
    assert '"current_app": null' in text
    assert "secret123" not in text  # the typed password is hidden everywhere


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--platform", "windows"], out=io.StringIO()) == 2
    assert "invalid choice" in capsys.readouterr().err
