"""Ctrl-C on `amc run`, as a user presses it: SIGINT to a real `amc` process on the simulated device.

The first SIGINT ends the step in progress at its next poll (not at its timeout) and the run with
exit 130, keeping everything done so far; the second quits at once. (What is in flight when the
first comes, a device call, a model request, a script's request: ``test_interrupt_in_flight.py``.)
Each test waits for the step to begin by reading the run folder's ``run.log`` (named on the
console; the loop logs each step as it starts), never by sleeping. The bounds below only guard
against a hang: a run that waited for its step's timeout (60 s) would pass none of them.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from amc.storage.timeline import read_timeline
from lxml import etree

from .helpers import HANG, running, write_flow

LONG_WAIT = """
name: {name}
steps:
  - launch_app: com.example.amc.demo
  - wait_for: {{text: "Never shown", timeout: 60}}
  - tap: Sign in
"""


def _junit_cases(path: Path) -> dict[str, etree._Element]:
    return {str(case.get("name")): case for case in etree.parse(str(path)).iter("testcase")}


def test_the_first_ctrl_c_stops_a_waiting_step_at_its_next_poll_and_keeps_the_run(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, LONG_WAIT.format(name="long-wait"))
    junit = tmp_path / "junit.xml"
    with running("run", flow, "--out", tmp_path / "runs", "--junit", junit) as amc:
        amc.wait_until(lambda a: a.started("2 wait_for") == 1, "step 2 start")
        amc.interrupt()  # step 2, the 60 s wait_for, is in progress
        code = amc.finish()
    assert code == 130, amc.err
    assert "Traceback" not in amc.err
    assert "interrupted; each flow stops at its next poll (Ctrl-C again to quit now)" in amc.err
    assert "Interrupted at " in amc.out and "flow long-wait INTERRUPTED" in amc.out
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    # The earlier step as it was, the waiting one interrupted (not TargetNotFound), nothing after it.
    assert [(s["action"], s["status"]) for s in timeline.steps] == [
        ("launch_app", "passed"),
        ("wait_for", "interrupted"),
    ]
    stopped = timeline.steps[1]["result"]
    assert stopped["error_kind"] == "Interrupted" and "Ctrl-C" in stopped["error"]
    assert stopped["duration"] < HANG  # it ended at a poll, not at its 60 s timeout
    assert timeline.status == "interrupted" and timeline.footer is not None
    assert timeline.footer["error_kind"] == "Interrupted"
    assert not any(run_dir.glob("step-*.png"))  # no picture asked of the device after the stop
    report = (run_dir / "report.html").read_text(encoding="utf-8")
    assert '<span class="badge interrupted">interrupted</span>' in report
    (case,) = _junit_cases(junit).values()
    error = case.find("error")
    assert error is not None and error.get("type") == "Interrupted" and case.find("failure") is None
    assert "step 2 wait_for at" in (error.get("message") or "")


def test_ctrl_c_stops_the_flows_on_every_device_and_no_thread_is_left(tmp_path: Path) -> None:
    # Two devices run a flow each on a thread of their own; a third flow waits for a free device.
    flows = [write_flow(tmp_path, LONG_WAIT.format(name=n), f"{n}.yaml") for n in ("a", "b", "c")]
    junit = tmp_path / "junit.xml"
    devices = ["--device", "sim:android", "--device", "sim:android"]
    with running("run", *flows, *devices, "--out", tmp_path / "runs", "--junit", junit) as amc:
        amc.wait_until(lambda a: a.started("2 wait_for") == 2, "step 2 start on both devices")
        amc.interrupt()
        code = amc.finish()  # returns only once the process has exited: no thread kept it alive
    assert code == 130, amc.err
    assert "Traceback" not in amc.err
    runs = sorted(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert len(runs) == 2
    for run_dir in runs:
        timeline = read_timeline(run_dir)
        assert [s["status"] for s in timeline.steps] == ["passed", "interrupted"]
        assert timeline.status == "interrupted"
    cases = _junit_cases(junit)
    assert sorted(cases) == ["a", "b", "c"]
    errors = [c.find("error") for c in cases.values()]
    assert [e.get("type") for e in errors if e is not None] == ["Interrupted", "Interrupted"]
    skipped = [c.find("skipped") for c in cases.values()]
    (waiting,) = [s.get("message") or "" for s in skipped if s is not None]
    assert "not started: the run was interrupted" in waiting


# What the first Ctrl-C cannot stop at once (a plugin's own code, a listener, a script that only
# computes): the command's own handler, in a process whose main thread ignores the stop request.
HOLDS_THE_FIRST = """
import sys, time
from amc.cli.interrupt import stop_on_ctrl_c
from amc.runtime.cancel import Cancel
cancel = Cancel()
with stop_on_ctrl_c(cancel, sys.stderr, "amc: interrupted (Ctrl-C again to quit now)"):
    print("ready", flush=True)
    time.sleep(60)  # does not look at the stop request
print("not reached", flush=True)
"""


def test_a_second_ctrl_c_quits_at_once_while_the_first_is_held() -> None:
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:  # inherited by the child otherwise
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLDS_THE_FIRST], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        assert proc.poll() is None  # the first only asked the run to stop
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and took < 1.0, (took, err)
    assert b"Ctrl-C again to quit now" in err and b"interrupted again: quitting now" in err
    assert b"not reached" not in out
