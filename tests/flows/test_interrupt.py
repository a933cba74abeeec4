"""Ctrl-C on `amc run`, as a user presses it: SIGINT to a real `amc` process on the simulated device.

The first SIGINT ends the step in progress at its next poll (not at its timeout) and the run with
exit 130, keeping everything done so far; the second quits at once. Each test waits for the step
to begin by reading the run folder's ``run.log`` (named on the console; the loop logs each step as
it starts), never by sleeping. The bounds below only guard against a hang: a run that waited for
its step's timeout (60 s) would pass none of them.
"""

from __future__ import annotations

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


def test_a_second_ctrl_c_quits_at_once_while_the_first_waits_for_the_device(tmp_path: Path) -> None:
    # With 5 s per device call, the launch_app in progress holds the first Ctrl-C for up to 5 s;
    # the second does not wait for it.
    flow = write_flow(
        tmp_path,
        """
        name: slow-device
        steps:
          - press: home
            when: {platform: ios}
          - launch_app: com.example.amc.demo
          - wait_for: Sign in
        """,
    )
    with running("run", flow, "--sim-latency", "5", "--out", tmp_path / "runs") as amc:
        amc.wait_until(lambda a: a.started("2 launch_app") == 1, "the launch's start")
        amc.interrupt()  # the launch_app call is on its way to the device
        amc.wait_until(lambda a: "Ctrl-C again to quit now" in a.err, "the first Ctrl-C's note")
        amc.interrupt()
        code = amc.finish()
    assert code == 130, amc.err
    assert "interrupted again: quitting now" in amc.err and "Traceback" not in amc.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    # What was written stays; the launch that was under way was not waited for, nor the run's end.
    assert [s["status"] for s in timeline.steps] == ["skipped"]
    assert timeline.status == "unfinished" and not timeline.truncated
