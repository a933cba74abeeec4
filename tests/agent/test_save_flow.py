"""`amc agent --save-flow` and MCP `save_flow`: a run becomes a flow that `amc run` replays without a
model, five times in a row on one device (each replay restarting the app the run left behind).

The agent runs on the simulated device with the real openai client against the scripted server on
127.0.0.1; the MCP session through the MCP SDK's own client; the replays through `amc run`.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from amc.agent.mcp_server import build_server
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver
from mcp import Client

from tests.agent.chat_server import ChatServer, Reply, tool
from tests.flows.helpers import CliResult, amc

DEMO = "com.example.amc.demo"
SETTINGS = "com.android.settings"
# Maestro 2.8.0's commands (YamlFluentCommand.kt's fields; /work/brief/maestro-semantics.md).
MAESTRO_COMMANDS = {
    "tapOn", "longPressOn", "assertVisible", "assertNotVisible", "back", "hideKeyboard", "inputText",
    "launchApp", "swipe", "openLink", "pressKey", "extendedWaitUntil", "stopApp", "clearState",
    "scrollUntilVisible", "waitForAnimationToEnd", "takeScreenshot",
}  # fmt: skip

SIGN_IN = [
    tool(
        "launch_app",
        {"app_id": DEMO, "rationale": "the demo app has the login", "expected_outcome": "shows: Sign in"},
    ),
    tool("type_text", {"text": "qa", "target": {"id": "username"}, "expected_outcome": "holds"}),
    tool("type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True}),
    # Sign in by its place on the screen: the saved flow names the button instead.
    tool("tap", {"x": 540, "y": 750, "rationale": "submit the form", "expected_outcome": "changes"}),
    tool("wait_for", {"target": {"text": "Signed in as qa"}, "rationale": "the app signs in for a moment"}),
    tool("done", {"summary": "signed in as qa"}),
]
NETWORK = [
    tool("launch_app", {"app_id": SETTINGS, "rationale": "the network lives in Settings"}),
    tool("tap", {"target": {"text": "Network & internet"}, "expected_outcome": "shows: Internet"}),
    tool(
        "tap",
        {
            "target": {"text_contains": "Internet"},
            "rationale": "the Wi-Fi list",
            "expected_outcome": "page: Internet",
        },
    ),
    tool("done", {"summary": "the Internet page is open"}),
]


@pytest.fixture
def chat() -> Iterator[list[ChatServer]]:
    servers: list[ChatServer] = []
    yield servers
    for server in servers:
        server.close()


def _agent(chat: list[ChatServer], tmp_path: Path, script: list[Reply], *options: str) -> CliResult:
    server = ChatServer(script)
    chat.append(server)
    return amc(
        "agent", "sign in", "--device", "sim:android", "--llm-url", server.url, "--model", "scripted",
        "--out", tmp_path / "runs", *options,
    )  # fmt: skip


def _replay_five_times(flow: Path, tmp_path: Path, *options: str) -> CliResult:
    """Five copies in one `amc run` on one device: each starts from what the one before left."""
    copies = []
    for n in range(1, 6):
        copies.append(tmp_path / f"replay{n}.yaml")
        shutil.copy(flow, copies[-1])
    return amc("run", *copies, "--device", "sim:android", "--out", tmp_path / "replays", *options)


def test_a_sign_in_saved_from_the_agent_replays_five_times_with_no_model_and_no_secret(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    saved = tmp_path / "sign_in.yaml"
    result = _agent(chat, tmp_path, SIGN_IN, "--save-flow", str(saved))
    assert result.code == 0, result.out + result.err
    assert (
        f"flow saved: {saved} (amc," in result.out
        and f"replay: amc run {saved} --env PASSWORD=..." in result.out
    )
    text = saved.read_text()
    assert "secret123" not in text and 'text: "${PASSWORD}"' in text and "secret: true" in text
    assert not re.search(r"\b[xy]: ?\d", text)  # the point tap is named by its element
    assert "  - tap: {id: sign_in}" in text or "  - tap: {text: Sign in}" in text
    assert "  # why: submit the form" in text and "  # expected: holds (verified)" in text
    assert "  - clear_state: com.example.amc.demo\n    optional: true\n" in text
    assert "  - wait_for: {text: Signed in as qa}" in text
    # Without the variable the flow says what it needs; with it, it passes five times in a row.
    missing = amc("run", saved, "--device", "sim:android", "--out", tmp_path / "none")
    assert missing.code == 2 and "PASSWORD" in missing.out + missing.err
    replays = _replay_five_times(saved, tmp_path, "--env", "PASSWORD=secret123")
    assert replays.code == 0, replays.out
    assert "5 flow(s): 5 passed, 0 did not" in replays.out
    assert "secret123" not in replays.out


def test_a_navigation_saved_from_the_agent_waits_for_each_page_it_reached(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    saved = tmp_path / "network.yaml"
    result = _agent(chat, tmp_path, NETWORK, "--save-flow", str(saved))
    assert result.code == 0, result.out + result.err
    text = saved.read_text()
    steps = yaml.safe_load(text)["steps"]
    commands = [next(iter(s)) for s in steps]
    assert commands[:3] == ["clear_state", "launch_app", "wait_for"]
    assert "  # the page reached: Settings$NetworkDashboardActivity\n  - wait_for: {text: Internet}" in text
    assert commands.count("wait_for") >= 2  # one per page reached
    replays = _replay_five_times(saved, tmp_path, "--device", "sim:android?timing=realistic")
    assert replays.code == 0, replays.out
    assert "5 flow(s): 5 passed, 0 did not" in replays.out


def test_the_same_run_saved_for_maestro_is_a_maestro_flow_amc_run_replays(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    saved = tmp_path / "sign_in.maestro.yaml"
    result = _agent(chat, tmp_path, SIGN_IN, "--save-flow", str(saved), "--save-format", "maestro")
    assert result.code == 0, result.out + result.err
    assert f"replay: maestro test {saved}" in result.out
    text = saved.read_text()
    config, commands = yaml.safe_load_all(text)
    assert config == {"appId": DEMO, "name": "sign-in"}
    assert "secret123" not in text and 'inputText: "${PASSWORD}"' in text
    for item in commands:
        assert (isinstance(item, str) and item in MAESTRO_COMMANDS) or (
            isinstance(item, dict) and len(item) == 1 and next(iter(item)) in MAESTRO_COMMANDS
        ), item
    assert {"clearState": {"appId": DEMO, "optional": True}} in commands
    assert {"launchApp": {"appId": DEMO}} in commands
    assert {"tapOn": {"id": "password"}} in commands and {"inputText": "qa"} in commands
    assert {"extendedWaitUntil": {"visible": {"text": "Signed in as qa"}, "timeout": 10000}} in commands
    assert "# why: submit the form" in text
    # ... which `amc run` replays, its secret given as Maestro's -e would give it, and never shown
    replay = amc(
        "run", saved, "--device", "sim:android", "--out", tmp_path / "replay", "--env", "PASSWORD=secret123"
    )
    assert replay.code == 0, replay.out + replay.err
    assert "flow sign-in passed" in replay.out and "secret123" not in replay.out + replay.err


def test_a_run_that_did_not_succeed_is_not_saved_and_a_taken_file_is_refused_first(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    saved = tmp_path / "nothing.yaml"
    failing = [tool("tap", {"target": {"text": "No such row"}, "timeout": 0})] * 3
    result = _agent(chat, tmp_path, failing, "--save-flow", str(saved))
    assert result.code == 1 and "flow not saved: the agent did not succeed" in result.out
    assert not saved.exists()
    saved.write_text("keep me\n")
    refused = _agent(chat, tmp_path, SIGN_IN, "--save-flow", str(saved))
    assert refused.code == 2 and "--save-flow" in refused.err and "already exists" in refused.err
    assert saved.read_text() == "keep me\n" and len(chat[-1].requests) == 0


def test_a_tap_on_a_point_where_nothing_is_is_never_saved_as_coordinates(
    chat: list[ChatServer], tmp_path: Path
) -> None:
    saved = tmp_path / "blank.yaml"
    script = [
        tool("launch_app", {"app_id": DEMO}),
        tool("tap", {"x": 540, "y": 1500}),
        tool("done", {"summary": "x"}),
    ]
    result = _agent(chat, tmp_path, script, "--save-flow", str(saved))
    assert result.code == 1
    assert "the flow was not saved: step 2 (tap at a point) acted on no element" in result.err
    assert "never taps coordinates" in result.err and not saved.exists()


def test_an_mcp_client_saves_its_session_as_a_flow_that_replays(tmp_path: Path) -> None:
    driver = SimDriver("android")
    service = DeviceService(driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path)
    service.start()
    replies: list[Any] = []

    async def main() -> None:
        async with Client(build_server(service)) as client:
            await client.call_tool("launch_app", {"app_id": DEMO})
            await client.call_tool("type_text", {"text": "qa", "target": {"id": "username"}})
            await client.call_tool(
                "type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True}
            )
            await client.call_tool("tap", {"target": {"text": "Sign in"}, "rationale": "submit"})
            await client.call_tool("wait_for", {"target": {"text": "Signed in as qa"}})
            replies.append(await client.call_tool("save_flow", {"path": "mcp.yaml"}))
            replies.append(await client.call_tool("save_flow", {"path": "mcp.yaml"}))
            replies.append(await client.call_tool("save_flow", {"path": "../outside.yaml"}))

    anyio.run(main)
    service.close()
    saved, again, outside = replies
    assert not saved.is_error and saved.structured_content["variables"] == ["PASSWORD"]
    assert again.is_error and "already exists" in saved.content[0].text + again.content[0].text
    assert outside.is_error and "outside the flow root" in outside.content[0].text
    text = (tmp_path / "mcp.yaml").read_text()
    assert "secret123" not in text and "# why: submit" in text
    replays = _replay_five_times(tmp_path / "mcp.yaml", tmp_path, "--env", "PASSWORD=secret123")
    assert replays.code == 0 and "5 flow(s): 5 passed" in replays.out, replays.out
