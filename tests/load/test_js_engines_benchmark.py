"""``benchmarks/js_engines.py`` run as a user runs it (``--quick``, with the one engine the project
installs): its tables say what the engine was seen to do. Behaviour only: no time is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _row(output: str, table: str, engine: str) -> list[str]:
    section = output.split(f"### {table}", 1)[1].split("\n### ", 1)[0]
    line = next(line for line in section.splitlines() if line.startswith(f"| {engine} |"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def test_the_engine_benchmark_reports_what_jsbox_does() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "js_engines.py"), "--quick", "--only", "jsbox"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    offers = _row(done.stdout, "JavaScript engines: what each offers", "jsbox")
    assert offers[3] == "15/15"  # every modern feature
    assert offers[4] == "console"  # no require, process, std, os, fetch ...
    assert offers[5:7] == ["yes", "yes"]  # a synchronous Python call, also under a time limit
    assert offers[7].startswith("no (")  # a jsbox runtime stays on its thread: why ScriptContext has one
    runaway = _row(done.stdout, "JavaScript engines: runaway scripts", "jsbox")
    assert "timeout" in runaway[1] and runaway[3] == "yes"
    assert "out of memory" in runaway[4] and runaway[7] == "yes"
    evaluation = _row(done.stdout, "JavaScript engines: one `${...}` evaluation", "amc.flows.js")
    assert all(float(cell) > 0 for cell in evaluation[1:5])
