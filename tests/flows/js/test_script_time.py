"""A script step's time is the script's: the interpreter runs it before the step's turn, and the
console, timeline and report show how long it ran, not the instant the step took to be recorded."""

from __future__ import annotations

import re
from pathlib import Path

from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

BUSY = "${(function () { var t = Date.now(); while (Date.now() - t < 400) {} return 'done' })()}"


def test_a_slow_script_step_takes_the_scripts_time(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        f"""
        appId: com.example.amc.demo
        ---
        - launchApp
        - evalScript: {BUSY}
        """,
    )
    result = amc("run", flow, "--out", tmp_path / "runs")
    assert result.code == 0, result.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    (step,) = [s for s in read_timeline(run_dir).steps if s["action"] == "script"]
    assert step["result"]["duration"] >= 0.4
    shown = re.search(r"script\s+evalScript\s+passed\s+([\d.]+) ms", result.out)
    assert shown is not None, result.out
    assert float(shown.group(1)) >= 400
