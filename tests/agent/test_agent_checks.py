"""`amc agent`: expectations checked and shown, the model server's failures kept apart from the
model's, the report's goal and model, the system prompt's device, and an agent's waits.

Through the real openai client against the scripted server on 127.0.0.1, on the simulated device.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amc.storage.timeline import read_timeline

from tests.agent.chat_server import ChatServer, Reply, garbage, hang, status, tool
from tests.flows.helpers import CliResult, amc

SETTINGS = "com.android.settings"
DEMO = "com.example.amc.demo"


@pytest.fixture
def chat() -> Iterator[list[ChatServer]]:
    servers: list[ChatServer] = []
    yield servers
    for server in servers:
        server.close()


def _run(
    url: str, tmp_path: Path, *options: str, goal: str = "open settings"
) -> tuple[CliResult, Path | None]:
    out = tmp_path / "runs"
    result = amc("agent", goal, "--llm-url", url, "--model", "scripted", "--out", out, *options)
    runs = sorted(out.iterdir()) if out.is_dir() else []
    return result, runs[-1] if runs else None


def _agent(
    chat: list[ChatServer],
    tmp_path: Path,
    script: list[Reply],
    *options: str,
    device: str = "sim:android",
    goal: str = "open settings",
) -> tuple[CliResult, ChatServer, Path | None]:
    server = ChatServer(script)
    chat.append(server)
    result, run_dir = _run(server.url, tmp_path, "--device", device, *options, goal=goal)
    return result, server, run_dir


def _steps(run_dir: Path | None) -> list[dict[str, Any]]:
    assert run_dir is not None
    return [dict(s) for s in read_timeline(run_dir).steps]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_model_server_is_an_infrastructure_error_not_the_models(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result, run_dir = _run(url, tmp_path, "--device", "sim:android")
    assert result.code == 3, result.out + result.err
    said = f"ModelServerError: the model server at {url} did not answer: Connection error ([Errno 111]"
    assert said in result.out
    assert "ModelReplyError" not in result.out and "answer with exactly one call" not in result.out
    assert run_dir is not None
    timeline = read_timeline(run_dir)
    assert len(timeline.steps) == 0 and timeline.footer is not None
    assert (timeline.footer["status"], timeline.footer["error_kind"]) == (
        "infrastructure_error",
        "ModelServerError",
    )
    assert "infrastructure error" in (run_dir / "report.html").read_text()


@pytest.mark.parametrize(
    ("failure", "said", "asked"),
    [
        ([status(500, "the model crashed"), status(503, "still down")], "did not answer: HTTP 503", 2),
        ([hang(3.0), hang(3.0)], "did not answer: no answer in time", 2),
        ([garbage()], "did not answer: JSONDecodeError", 1),  # a 200 answer: not asked again
    ],
    ids=["http-5xx", "timeout", "not-a-completion"],
)
def test_a_failing_model_server_stops_the_task_with_exit_3_after_one_retry_and_keeps_the_steps(
    chat: list[ChatServer], tmp_path: Path, failure: list[Reply], said: str, asked: int
) -> None:
    script = [tool("launch_app", {"app_id": SETTINGS, "expected_outcome": "app: " + SETTINGS}), *failure]
    result, server, run_dir = _agent(chat, tmp_path, script, "--llm-timeout", "0.5")
    assert result.code == 3, result.out
    assert f"the model server at {server.url} {said}" in result.out
    assert len(server.requests) == 1 + asked  # the turn after the launch: one bounded retry of a failure
    steps = _steps(run_dir)
    assert [(s["action"], s["status"]) for s in steps] == [
        ("launch_app", "passed")
    ]  # nothing held against the model


def test_each_step_s_expectation_is_checked_recorded_and_shown_to_the_model_next_turn(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    script = [
        tool(
            "launch_app",
            {
                "app_id": SETTINGS,
                "rationale": "Settings lists the network",
                "expected_outcome": "shows: Network & internet; app: " + SETTINGS,
            },
        ),
        tool(
            "tap",
            {
                "target": {"text": "Network & internet"},
                "rationale": "open it",
                "expected_outcome": "page: Display",
            },
        ),
        tool("press", {"key": "back", "rationale": "back to the list"}),
        tool("done", {"summary": "looked"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script, goal="look at the network settings")
    assert result.code == 0, result.out
    steps = _steps(run_dir)
    verifications = [s["result"]["verification"] for s in steps]
    assert verifications[0]["verified"] is True and verifications[0]["changed"] is True
    assert verifications[0]["saw"] == f"'Network & internet' is on screen; the app in front is {SETTINGS}"
    assert verifications[1]["verified"] is False
    assert verifications[1]["saw"].startswith("the page is Settings$NetworkDashboardActivity")
    assert verifications[2]["verified"] is None and verifications[2]["changed"] is True  # no expectation
    assert "page Settings$NetworkDashboardActivity -> Settings" in verifications[2]["saw"]
    # The model is shown each verdict on the next turn, and a failed check stays in the history.
    second, third = server.user_content(1), server.user_content(2)
    assert second["last_step"]["verified"] is True and second["last_step"]["expected"].startswith("shows:")
    assert third["last_step"]["verified"] is False
    assert third["last_step"]["saw"].startswith("the page is Settings$NetworkDashboardActivity")
    history = server.user_content(3)["world"]["history"]
    assert [e.get("verified") for e in history] == [True, False, None]
    assert "saw" in history[1] and "saw" not in history[0]
    # The console and the report say it, with the goal and the model.
    assert "expected: page: Display -> NOT verified (saw: the page is Settings$Network" in result.out
    assert run_dir is not None
    page = (run_dir / "report.html").read_text()
    assert "look at the network settings" in page and f"scripted at {server.url}" in page
    assert "why: Settings lists the network" in page and "not verified" in page
    assert "the screen changed: page Settings$NetworkDashboardActivity -&gt; Settings" in page


@pytest.mark.parametrize(
    ("device", "words"), [("sim:android", "an Android device"), ("sim:ios", "an iOS device")]
)
def test_the_system_prompt_names_the_device_as_english_does(
    chat: list[ChatServer], tmp_path: Path, device: str, words: str
) -> None:
    result, server, _ = _agent(chat, tmp_path, [tool("done", {"summary": "x"})], device=device)
    assert result.code == 0
    assert server.requests[0]["messages"][0]["content"].startswith(f"You operate {words} for a user")


def test_an_agents_check_without_a_timeout_waits_as_a_flow_step_does(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    # The demo app signs in for about a second, showing "Loading": a flow's assert_visible waits
    # 10 s by default, and so does the agent's.
    script = [
        tool("launch_app", {"app_id": DEMO}),
        tool("type_text", {"text": "qa", "target": {"id": "username"}}),
        tool("type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True}),
        tool("tap", {"target": {"text": "Sign in"}}),
        tool("assert_visible", {"target": {"text": "Signed in as qa"}}),
        tool("done", {"summary": "signed in"}),
    ]
    result, _, run_dir = _agent(chat, tmp_path, script, device="sim:android?timing=realistic")
    assert result.code == 0, result.out
    check = _steps(run_dir)[-1]
    assert (check["action"], check["status"]) == ("assert_visible", "passed")
    assert check["result"]["output"]["polls"] >= 1  # it looked again until the text came
