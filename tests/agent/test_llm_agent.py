"""`amc agent`: the LLM planner, through the real openai client, against a scripted server on 127.0.0.1.

Each test runs the command in process on the simulated Android device and asserts on what the
model was sent (the requests the server kept), what the console printed and what the run folder
holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from amc.agent.tools import DONE, REASON_FIELDS, action_tools
from amc.storage.timeline import read_timeline

from tests.agent.chat_server import ChatServer, Reply, garbage, hang, status, text, tool
from tests.flows.helpers import CliResult, amc

SETTINGS = "com.android.settings"
CLOCK = "com.android.deskclock"


@pytest.fixture
def chat() -> Iterator[list[ChatServer]]:
    servers: list[ChatServer] = []
    yield servers
    for server in servers:
        server.close()


def _agent(
    chat: list[ChatServer],
    tmp_path: Path,
    script: Sequence[Reply],
    *options: str,
    goal: str = "open settings",
) -> tuple[CliResult, ChatServer, Path | None]:
    server = ChatServer(script)
    chat.append(server)
    out = tmp_path / "runs"
    result = amc(
        "agent",
        goal,
        "--device",
        "sim:android",
        "--llm-url",
        server.url,
        "--model",
        "scripted",
        "--out",
        out,
        *options,
    )
    runs = sorted(out.iterdir()) if out.is_dir() else []
    return result, server, runs[-1] if runs else None


def _steps(run_dir: Path | None) -> list[dict[str, Any]]:
    assert run_dir is not None
    return [dict(s) for s in read_timeline(run_dir).steps]


def test_the_model_is_offered_one_tool_per_action_with_the_mcp_arguments_and_done(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    result, server, _ = _agent(chat, tmp_path, [tool("done", {"summary": "nothing to do"})])
    assert result.code == 0, result.out + result.err
    request = server.requests[0]
    assert request["model"] == "scripted" and request["tool_choice"] == "auto"
    assert server.tool_names(0) == [t.name for t in action_tools()] + ["done"]
    for offered, spec in zip(request["tools"], action_tools(), strict=False):
        parameters = offered["function"]["parameters"]
        assert parameters["properties"].pop("thinking")["type"] == "string"
        assert parameters == spec.input_schema(REASON_FIELDS)
    assert request["tools"][-1]["function"]["parameters"] == DONE.input_schema()
    assert "summary: nothing to do" in result.out


def test_later_requests_carry_the_world_and_the_earlier_rationale(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    script = [
        tool(
            "launch_app",
            {
                "app_id": SETTINGS,
                "rationale": "Settings has the network page",
                "expected_outcome": "the Settings list",
            },
        ),
        tool("remember", {"remember": {"user": "qa"}, "rationale": "for later"}),
        tool("remember", {"remember": {"token": "s3cret-value"}, "secret": True}),
        tool(
            "tap",
            {"target": {"text": "Network & internet"}, "thinking": "it is listed", "purpose": "reach it"},
        ),
        tool("done", {"summary": "network settings are open"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script, goal="open the network settings")
    assert result.code == 0, result.out + result.err
    first, second, last = server.user_content(0), server.user_content(1), server.user_content(4)
    assert first["goal"] == "open the network settings" and first["last_step"] is None
    assert first["world"]["history"] == [] and first["world"]["observed_app"] == "com.android.launcher3"
    assert first["screen"]["foreground_app"] == "com.android.launcher3"
    assert {"ref": "e3", "target": {"text": "Settings"}}.items() <= first["screen"]["elements"][2].items()
    event = second["world"]["history"][0]
    assert event == {
        "action": "launch_app",
        "args": {"app_id": SETTINGS},
        "page": "Settings",
        "rationale": "Settings has the network page",
        "expected_outcome": "the Settings list",
        "success": True,
    }
    assert (second["world"]["current_app"], second["world"]["observed_app"]) == (SETTINGS, SETTINGS)
    assert second["last_step"]["success"] is True and second["screen"]["page"] == "Settings"
    assert last["world"]["variables"] == {"user": "qa", "token": "***"}
    assert last["world"]["history"][2]["args"] == {"remember": {"token": "***"}, "secret": True}
    assert [e["rationale"] for e in last["world"]["history"][:2]] == [
        "Settings has the network page",
        "for later",
    ]
    assert last["world"]["history"][3]["thinking"] == "it is listed"
    assert last["world"]["current_page"] == "Settings$NetworkDashboardActivity"
    # The secret never went back to the model, nor into the run folder.
    assert all("s3cret-value" not in json.dumps(r["messages"]) for r in server.requests)
    assert run_dir is not None and all(b"s3cret-value" not in p.read_bytes() for p in run_dir.iterdir())
    assert "why: Settings has the network page" in result.out


def test_a_secret_typed_into_a_field_that_shows_it_goes_back_to_no_one(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    script = [
        tool("launch_app", {"app_id": "com.example.amc.demo"}),
        tool("type_text", {"text": "visible-secret-42", "target": {"id": "username"}, "secret": True}),
        tool("describe_screen"),
        tool("done", {"summary": "typed"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script)
    assert result.code == 0, result.out
    field = next(
        e for e in server.user_content(2)["screen"]["elements"] if e.get("id", "").endswith("username")
    )
    assert field["text"] == "***"  # the field shows what was typed; the request does not
    assert all("visible-secret-42" not in json.dumps(r["messages"]) for r in server.requests)
    assert run_dir is not None and all(b"visible-secret-42" not in p.read_bytes() for p in run_dir.iterdir())
    assert "visible-secret-42" not in result.out


def test_an_app_the_world_and_the_screen_show_in_front_is_not_launched_again(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    script = [
        tool("launch_app", {"app_id": SETTINGS}),
        tool("launch_app", {"app_id": SETTINGS, "rationale": "again"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script)
    assert result.code == 0, result.out
    steps = _steps(run_dir)
    assert [(s["action"], s["status"]) for s in steps] == [("launch_app", "passed"), ("skip", "skipped")]
    skipped = steps[1]["step"]
    assert skipped["args"]["skipped"] == "launch_app" and "already in front" in skipped["args"]["reason"]
    assert skipped["rationale"] == "again"
    told = server.user_content(2)["world"]["history"][1]
    assert told["action"] == "skip" and "world model and the latest screen agree" in told["args"]["reason"]


def test_a_launch_outside_the_allowed_apps_is_refused_and_the_model_is_told(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    script = [
        tool("launch_app", {"app_id": CLOCK}),
        tool("launch_app", {"app_id": SETTINGS}),
        tool("done", {"summary": "ok"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script, "--allow-app", SETTINGS)
    assert result.code == 0, result.out
    refused = _steps(run_dir)[0]
    assert refused["status"] == "failed" and refused["result"]["error_kind"] == "GuardrailViolation"
    told = server.user_content(1)
    assert told["last_step"]["error_kind"] == "GuardrailViolation"
    assert f"{CLOCK} is outside the allowed apps ({SETTINGS})" in told["last_step"]["error"]
    assert told["screen"]["foreground_app"] == "com.android.launcher3"  # nothing was launched
    assert told["allowed_apps"] == [SETTINGS] and SETTINGS in server.system_prompt(0)
    assert "allowed apps: com.android.settings" in result.out


def test_two_steps_in_a_row_outside_the_allowed_apps_stop_the_task(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    # The launcher's Clock icon opens an app no launch_app started: the guard on launches cannot see it.
    script = [
        tool("tap", {"target": {"text": "Clock"}}),
        tool("describe_screen"),
        tool("done", {"summary": "x"}),
    ]
    result, server, run_dir = _agent(chat, tmp_path, script, "--allow-app", SETTINGS)
    assert result.code == 1
    stopped = f"GuardrailViolation: stopped by a guardrail: the device has shown {CLOCK}"
    assert f"{stopped}, outside the allowed apps ({SETTINGS})" in result.out
    assert "after 2 steps in a row; the task stops" in result.out
    assert len(server.requests) == 2  # the third turn never reached the model
    assert run_dir is not None and read_timeline(run_dir).footer["error_kind"] == "GuardrailViolation"  # type: ignore[index]


def test_every_malformed_reply_is_a_recorded_failed_step_and_the_task_goes_on(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    good = tool("describe_screen", {"rationale": "look"})
    bad = [
        text("I would tap Settings now."),
        tool("fly", {"to": "moon"}),
        tool("tap", "{not json"),
        tool("tap", "[1, 2]"),
        tool("tap", {"tartget": {"text": "Settings"}}),
        tool("tap", {"x": "100", "y": 200}),
        tool("done", {"summary": 42}),
        status(500, "the model crashed"),
        hang(3.0),
        garbage(),
    ]
    script = [reply for pair in ((b, good) for b in bad) for reply in pair] + [
        tool("done", {"summary": "survived"})
    ]
    result, server, run_dir = _agent(chat, tmp_path, script, "--llm-timeout", "0.5", "--max-steps", "40")
    assert result.code == 0, result.out
    assert "summary: survived" in result.out
    failed = [s for s in _steps(run_dir) if s["status"] == "failed"]
    problems = [(s["result"]["error_kind"], s["result"]["error"]) for s in failed]
    expected = [
        ("ModelReplyError", "the reply called no tool; it said: I would tap Settings now."),
        ("ModelReplyError", "there is no tool 'fly'; the tools are: launch_app, terminate_app, tap"),
        ("ModelReplyError", "the arguments of tap are not JSON"),
        ("ModelReplyError", "the arguments of tap must be a JSON object, got list"),
        ("ModelReplyError", "tap does not take argument(s) tartget; it takes: target, x, y"),
        ("StepArgumentError", "argument 'x' must be a number, got '100'"),  # the executor's own check
        ("ModelReplyError", "done takes one argument, summary"),
        ("ModelReplyError", "the model server answered HTTP 500"),
        ("ModelReplyError", "the model server did not answer in time"),
        ("ModelReplyError", "the request failed"),
    ]
    assert len(problems) == len(expected)
    for (kind, error), (want_kind, want) in zip(problems, expected, strict=True):
        assert kind == want_kind and want in error, (kind, error)
    # Each failure came back to the model in the next request.
    for n, (_kind, want) in enumerate(expected):
        assert want in server.user_content(2 * n + 1)["last_step"]["error"]


def test_bad_replies_in_a_row_end_the_task_failed(chat: list[ChatServer], tmp_path: Path) -> None:
    result, server, _ = _agent(
        chat, tmp_path, [text("hm"), text("hm"), text("hm"), tool("done", {"summary": "x"})]
    )
    assert result.code == 1
    assert "ModelReplyError: 3 steps failed in a row; last: the reply called no tool" in result.out
    assert len(server.requests) == 3


def test_max_steps_bounds_the_task(chat: list[ChatServer], tmp_path: Path) -> None:
    script = [tool("describe_screen")] * 6
    result, _server, run_dir = _agent(chat, tmp_path, script, "--max-steps", "3")
    assert result.code == 1
    assert "agent MAX_STEPS: 3 steps" in result.out and "stopped after 3 steps" in result.out
    assert len(_steps(run_dir)) == 3


def test_the_key_comes_from_the_named_variable_and_is_never_written(
    chat: list[ChatServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-scripted-123")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-this-one")
    result, server, run_dir = _agent(
        chat, tmp_path, [tool("done", {"summary": "x"})], "--llm-key-env", "MY_LLM_KEY"
    )
    assert result.code == 0
    assert server.headers[0]["authorization"] == "Bearer sk-scripted-123"
    assert "key from $MY_LLM_KEY" in result.out and "sk-scripted" not in result.out + result.err
    assert run_dir is not None and all(b"sk-scripted" not in p.read_bytes() for p in run_dir.iterdir())


def test_openai_api_key_is_the_default_key(
    chat: list[ChatServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default")
    _result, server, _ = _agent(chat, tmp_path, [tool("done", {"summary": "x"})])
    assert server.headers[0]["authorization"] == "Bearer sk-default"


def test_the_run_folder_is_the_same_as_amc_runs(chat: list[ChatServer], tmp_path: Path) -> None:
    result, _server, run_dir = _agent(
        chat, tmp_path, [tool("launch_app", {"app_id": SETTINGS}), tool("done", {"summary": "s"})]
    )
    assert result.code == 0 and run_dir is not None
    timeline = read_timeline(run_dir)
    assert timeline.header is not None and timeline.header["goal"] == "open settings"
    assert timeline.footer is not None and timeline.footer["status"] == "succeeded"
    assert timeline.footer["summary"] == "s" and timeline.footer["model_requests"] == 2
    assert {"timeline.jsonl", "report.html", "run.log", "step-001-source.xml"} <= {
        p.name for p in run_dir.iterdir()
    }
    assert f"report:   {run_dir / 'report.html'}" in result.out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--llm-url", "ftp://example.org/v1"], "--llm-url 'ftp://example.org/v1' is not an http(s) URL"),
        (["--llm-url", "not a url"], "is not an http(s) URL"),
        (["--model", " "], "--model is empty"),
        (["--llm-key-env", "UNSET_KEY_VARIABLE"], "--llm-key-env UNSET_KEY_VARIABLE: the variable"),
        (["--llm-key-env", "BAD-NAME"], "is not an environment variable name"),
        (["--allow-app", "com.x; rm -rf /"], "is not an app id"),
        (["--max-steps", "0"], "must be between 1 and 1000"),
        (["--llm-timeout", "nan"], "must be above 0"),
        (["--device", "fridge:1"], "fridge"),
    ],
)
def test_bad_arguments_exit_2_before_any_request(
    chat: list[ChatServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    server = ChatServer([])
    chat.append(server)
    base = ["--llm-url", server.url, "--model", "m", "--device", "sim:android", "--out", tmp_path / "runs"]
    result = amc("agent", "a goal", *base, *options)  # argparse keeps an option's last value
    assert result.code == 2, result.out + result.err
    assert message in result.err + capsys.readouterr().err  # argparse writes to sys.stderr itself
    assert server.requests == [] and not (tmp_path / "runs").exists()
