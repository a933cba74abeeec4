"""Ctrl-C while something is in flight, as a user presses it: SIGINT to a real `amc` process.

A model request the server is slow to answer, a device call that takes seconds (the simulated
device's own latency, and WebDriverAgent's HTTP face on 127.0.0.1 with a phone that slow), a script
that runs on: each is given up within a second of the first Ctrl-C, the run exits 130 with its run
folder finished, the step recorded ``interrupted`` and nothing sent again. Each test waits for the
thing to be under way by reading the run folder's ``run.log`` or the server's own count, never by
sleeping; the time is measured from the signal to the process's exit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace
from amc.storage.timeline import read_timeline

from tests.agent.chat_server import ChatServer, hang, tool

from .helpers import Amc, running, write_flow

NO_ADB = {"ADBUTILS_ADB_PATH": "/bin/false", "ANDROID_ADB_SERVER_PORT": "1"}
PROMPT = 1.0  # seconds from Ctrl-C to the process's exit (the bound)


def _stopped_within(amc: Amc) -> tuple[int, float]:
    """Send Ctrl-C; the exit code and the seconds until the process ended."""
    sent = time.monotonic()
    amc.interrupt()
    code = amc.finish()
    return code, time.monotonic() - sent


def test_ctrl_c_gives_up_the_model_request_in_flight(tmp_path: Path) -> None:
    chat = ChatServer([hang(5)])  # the server answers 5 s after it was asked
    out = tmp_path / "runs"
    argv = ["agent", "wait", "--device", "sim:android", "--llm-url", chat.url, "--model", "m", "--out", out]
    try:
        with running(*argv, "--llm-timeout", "60", env=NO_ADB) as amc:
            amc.wait_until(lambda a: len(chat.requests) == 1, "the model request")
            code, took = _stopped_within(amc)
    finally:
        chat.close()
    assert code == 130, amc.err
    assert took < PROMPT, f"the run ended {took:.2f} s after Ctrl-C"
    assert "Traceback" not in amc.err and "agent INTERRUPTED: 0 steps" in amc.out
    (run_dir,) = out.iterdir()
    timeline = read_timeline(run_dir)
    assert timeline.status == "interrupted" and timeline.footer is not None
    assert "while the model server was asked" in timeline.footer["error"]
    assert (run_dir / "report.html").is_file()
    assert len(chat.requests) == 1  # never asked again


def test_a_model_request_that_timed_out_is_said_when_it_is_sent_again(tmp_path: Path) -> None:
    chat = ChatServer([hang(3), tool("done", {"summary": "nothing to do"})])
    out = tmp_path / "runs"
    argv = ["agent", "look", "--device", "sim:android", "--llm-url", chat.url, "--model", "m", "--out", out]
    try:
        with running(*argv, "--llm-timeout", "1", env=NO_ADB) as amc:
            code = amc.finish()
    finally:
        chat.close()
    assert code == 0, amc.err
    said = [line for line in amc.err.splitlines() if "asking again" in line]
    assert len(said) == 1, amc.err  # one line on the console, as the step lines are
    assert "no whole reply within 1 s" in said[0] and "(retry 1 of 1)" in said[0]
    assert "2 model requests" in amc.out and len(chat.requests) == 2
    (run_dir,) = out.iterdir()
    (note,) = read_timeline(run_dir).notes
    assert note["event"] == "model_retry" and "no whole reply within 1 s" in note["message"]


def test_ctrl_c_gives_up_a_slow_device_call_of_the_simulated_device(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        name: slow-device
        steps:
          - launch_app: com.example.amc.demo
          - wait_for: Sign in
        """,
    )
    with running("run", flow, "--sim-latency", "3", "--out", tmp_path / "runs") as amc:
        amc.wait_until(lambda a: a.started("1 launch_app") == 1, "the launch's start")
        code, took = _stopped_within(amc)  # the launch's 3 s device call is under way
    assert code == 130, amc.err
    assert took < PROMPT, f"the run ended {took:.2f} s after Ctrl-C"
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    assert [(s["action"], s["status"]) for s in timeline.steps] == [("launch_app", "interrupted")]
    assert timeline.steps[0]["result"]["attempts"] == 1
    assert timeline.status == "interrupted"


@pytest.fixture
def slow_wda() -> Iterator[WdaFace]:
    face = WdaFace(SimDevice("ios")).start()
    yield face
    face.faults.clear()
    face.stop()


def test_ctrl_c_gives_up_a_slow_webdriveragent_reply_and_never_sends_it_again(
    slow_wda: WdaFace, tmp_path: Path
) -> None:
    flow = write_flow(
        tmp_path,
        """
        name: slow-wda
        steps:
          - tap: Settings
          - wait_for: Never shown
        """,
    )
    device = ["--device", f"ios:{slow_wda.url}"]
    with running("run", flow, *device, "--out", tmp_path / "runs", env=NO_ADB) as amc:
        amc.wait_until(lambda a: "run folder:" in a.out, "the run's start")
        slow_wda.faults.set_latency(3.0)  # from now on each request takes 3 s, as on a slow phone
        amc.wait_until(lambda a: a.started("1 tap") == 1, "the tap's start")
        taps = slow_wda.faults.count
        code, took = _stopped_within(amc)
    assert code == 130, amc.err
    assert took < PROMPT, f"the run ended {took:.2f} s after Ctrl-C"
    assert "Traceback" not in amc.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    assert [(s["action"], s["status"]) for s in timeline.steps] == [("tap", "interrupted")]
    stopped = timeline.steps[0]["result"]
    assert stopped["error_kind"] == "Interrupted" and "it is not sent again" in stopped["error"]
    assert stopped.get("attempts", 1) == 1
    time.sleep(0.2)
    assert slow_wda.faults.count() == taps()  # nothing reached the device after the Ctrl-C


def test_ctrl_c_gives_up_a_scripts_http_call_in_flight(tmp_path: Path) -> None:
    backend = ChatServer([hang(5)])  # an HTTP server on 127.0.0.1 that answers 5 s late
    write_flow(tmp_path, f"http.post('{backend.url}/chat/completions', {{body: '{{}}'}});\n", "slow.js")
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        ---
        - runScript: slow.js
        - assertVisible: Never shown
        """,
        "slow.yaml",
    )
    try:
        with running("run", flow, "--out", tmp_path / "runs") as amc:
            amc.wait_until(lambda a: len(backend.requests) == 1, "the script's request")
            code, took = _stopped_within(amc)
    finally:
        backend.close()
    assert code == 130, amc.err
    assert took < PROMPT, f"the run ended {took:.2f} s after Ctrl-C"
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    assert timeline.steps == () and timeline.status == "interrupted"  # it ran as its step was planned
    assert timeline.footer is not None and timeline.footer["error_kind"] == "Interrupted"
