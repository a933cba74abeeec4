"""Ctrl-C on `amc agent` and `amc mcp`, as processes: the step in progress, a 60 s `wait_for`, ends
at its next poll, recorded `interrupted`, and the run folder is finished (timeline end record and
report). Each test waits for the step to start by reading the run folder's `run.log`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.storage.timeline import read_timeline

from tests.agent.chat_server import ChatServer, tool
from tests.flows.helpers import running

NO_ADB = {"ADBUTILS_ADB_PATH": "/bin/false", "ANDROID_ADB_SERVER_PORT": "1"}
LONG_WAIT = {"target": "Never shown", "timeout": 60}


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer([tool("wait_for", LONG_WAIT)])
    yield server
    server.close()


def test_ctrl_c_stops_the_agents_step_and_finishes_its_run_folder(chat: ChatServer, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    argv: list[str | Path] = [
        "agent",
        "wait",
        "--device",
        "sim:android",
        "--llm-url",
        chat.url,
        "--model",
        "m",
        "--out",
        out,
    ]
    with running(*argv, env=NO_ADB) as amc:
        amc.wait_until(lambda a: a.started("1 wait_for") == 1, "the agent's wait_for start")
        amc.interrupt()
        code = amc.finish()
    assert code == 130, amc.err
    assert "Traceback" not in amc.err and "Ctrl-C again to quit now" in amc.err
    assert "agent INTERRUPTED: 1 steps (0 passed, 0 failed, 0 skipped)" in amc.out
    (run_dir,) = out.iterdir()
    timeline = read_timeline(run_dir)
    assert [(s["action"], s["status"]) for s in timeline.steps] == [("wait_for", "interrupted")]
    assert timeline.status == "interrupted" and (run_dir / "report.html").is_file()
    assert len(chat.requests) == 1  # the model was not asked again after the stop


def test_ctrl_c_stops_the_mcp_call_under_way_and_finishes_the_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    }
    call = {"name": "wait_for", "arguments": LONG_WAIT}
    with running("mcp", "--device", "sim:android", "--out", out, env=NO_ADB) as amc:
        amc.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        amc.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        amc.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}))
        amc.wait_until(lambda a: a.started("1 wait_for") == 1, "the call's wait_for start")
        amc.interrupt()
        code = amc.finish()
    assert code == 0, amc.err  # the client stopped the server: a normal end
    assert "amc mcp: stopped by signal 2; report:" in amc.err and "Traceback" not in amc.err
    (run_dir,) = out.iterdir()
    timeline = read_timeline(run_dir)
    assert [(s["action"], s["status"]) for s in timeline.steps] == [("wait_for", "interrupted")]
    assert timeline.footer is not None and timeline.footer["status"] == "ended"
    assert (run_dir / "report.html").is_file()
