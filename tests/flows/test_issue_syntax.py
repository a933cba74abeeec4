"""Flows written from issue 14's syntax alone (tests/flows/issue_flows/), as someone else would
write them, run on both simulated platforms in realistic timing and over a real protocol face each."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.storage.timeline import read_timeline

from .helpers import amc

FLOWS = Path(__file__).parent / "issue_flows"


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


@pytest.mark.parametrize("spec", ["sim:android", "sim:ios", "sim+wda:ios"])
def test_flows_written_from_the_issue_text_pass_as_written(spec: str, tmp_path: Path) -> None:
    result = amc(
        "run", FLOWS, "--device", f"{spec}?timing=realistic", "--env", "PASSWORD=secret123", "--out", tmp_path
    )
    assert result.code == 0, result.out + result.err
    assert "2 flow(s): 2 passed" in result.out
    assert "secret123" not in result.out  # typed with secret: true
    for run_dir in (p for p in tmp_path.iterdir() if p.is_dir()):
        statuses = {s["status"] for s in read_timeline(run_dir).steps}
        assert "failed" not in statuses
        assert "warning" not in statuses  # clear_state runs on a Simulator (over WDA through simctl)
