"""Crash safety for real: `amc run` killed with SIGKILL mid-flow keeps every step it executed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

from amc.storage.report import render_report
from amc.storage.timeline import read_timeline

from .helpers import amc_command, write_flow

ROUNDS = 30


def test_sigkill_mid_flow_loses_no_executed_step(tmp_path: Path) -> None:
    steps = ["  - launch_app: com.android.settings"]
    for _ in range(ROUNDS):
        steps += ["  - tap: Network & internet", "  - assert_visible: Internet", "  - press: back"]
    flow = write_flow(tmp_path, "name: slow\nsteps:\n" + "\n".join(steps) + "\n", "slow.yaml")
    total = 1 + 3 * ROUNDS
    out = tmp_path / "runs"
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": "1", "ANDROID_ADB_SERVER_HOST": "127.0.0.1"}
    proc = subprocess.Popen(
        [
            *amc_command(),
            "run",
            str(flow),
            "--device",
            "sim:android",
            "--sim-latency",
            "0.05",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    printed: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if re.match(r"\[\s*\d+/\d+\]", line):
                printed.append(line)
            if len(printed) == 5:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(printed) == 5, "the run ended before it could be killed"

    (run_dir,) = list(out.iterdir())
    timeline = read_timeline(run_dir)
    assert timeline.header is not None and timeline.header["flow"] == "slow"
    assert not timeline.finished and timeline.status == "unfinished"
    # Every step the console showed is in the timeline (it is synced before the line is printed),
    # in order, and the killed process got no further than the flow allows.
    numbers = [s["number"] for s in timeline.steps]
    assert numbers == list(range(1, len(numbers) + 1))
    assert 5 <= len(numbers) < total
    for line, record in zip(printed, timeline.steps, strict=False):
        assert f"{record['number']}/{total}]" in line and record["action"] in line
    for record in timeline.steps:
        assert all(
            (run_dir / name).is_file() for key, name in record["files"].items() if key != "screenshot_error"
        )
    # A truncated last line, if the kill landed mid-write, is reported, never mistaken for a step.
    if timeline.truncated:
        assert "cut off mid-write" in timeline.problems[-1]

    report = render_report(run_dir).read_text(encoding="utf-8")
    assert "This run did not finish" in report
