"""`amc mcp` over stdio, driven by the MCP SDK's own client, on the simulated device in process
(Android, iOS) and over a protocol face (the adb socket protocol plus uiautomator2's JSON-RPC).

One server process per device: the client lists the tools, looks, acts on what it saw, reads the
world it changed, runs a flow, and leaves a run folder with every step, as `amc run` would.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from amc.agent.tools import mcp_tools
from amc.storage.timeline import read_timeline
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, ImageContent, TextContent

from tests.agent.test_tools import MCP_CONTRACT
from tests.flows.helpers import EXAMPLES


@dataclass(frozen=True)
class Device:
    spec: str
    app: str
    row: str  # a row of the app's first screen that opens a page
    flow: str
    mode: str  # the client's protocol negotiation: "legacy" is the initialize handshake


DEVICES = [
    Device("sim:android", "com.android.settings", "Network & internet", "settings_android.yaml", "auto"),
    Device("sim:ios", "com.apple.Preferences", "General", "settings_ios.yaml", "legacy"),
    Device("sim+adb:android", "com.android.settings", "Network & internet", "settings_android.yaml", "auto"),
]


def _text(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _data(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, _text(result)
    return dict(result.structured_content)


async def _session(device: Device, out: Path, errlog: TextIO) -> dict[str, Any]:
    env = {
        "ADBUTILS_ADB_PATH": "/bin/false",  # no adb daemon, no real adb server
        "ANDROID_ADB_SERVER_HOST": "127.0.0.1",
        "ANDROID_ADB_SERVER_PORT": "1",
        "AMC_WORLD_HISTORY_SIZE": "50",
        "AMC_SIM_TIMING": "instant",  # the tap's reply shows the new page at once (not a timing test)
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "amc.cli",
            "mcp",
            "--device",
            device.spec,
            "--out",
            str(out),
            "--flow-root",
            str(EXAMPLES),
        ],
        env=env,
        cwd=os.getcwd(),
    )
    seen: dict[str, Any] = {}
    async with Client(
        stdio_client(params, errlog=errlog), mode=device.mode, read_timeout_seconds=60
    ) as client:
        seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        seen["home"] = await client.call_tool("observe", {})
        seen["launch"] = await client.call_tool(
            "launch_app",
            {
                "app_id": device.app,
                "rationale": "the row to open is in Settings",
                "purpose": "reach the sub-page",
                "expected_outcome": "the Settings list",
            },
        )
        screen = _data(await client.call_tool("observe", {}))
        row = next(e for e in screen["elements"] if e.get("text") == device.row)
        seen["tap"] = await client.call_tool(
            "tap", {"target": row["target"], "rationale": f"open {device.row}"}
        )
        seen["current"] = await client.call_tool("current_app", {})
        seen["missing"] = await client.call_tool("launch_app", {"app_id": "com.example.not.installed"})
        seen["picture"] = await client.call_tool("screenshot", {"name": "after-tap"})
        seen["world"] = await client.call_tool("world_state", {})
        seen["devices"] = await client.call_tool("list_devices", {})
        seen["flow"] = await client.call_tool("run_flow", {"path": device.flow, "rationale": "the QA flow"})
        seen["world_after_flow"] = await client.call_tool("world_state", {})
    return seen


@pytest.mark.parametrize("device", DEVICES, ids=[d.spec for d in DEVICES])
def test_an_mcp_client_drives_the_device_and_reads_the_world_it_changed(
    device: Device, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    with open(tmp_path / "server.err", "w+", encoding="utf-8") as errlog:
        seen = anyio.run(_session, device, out, errlog)
        errlog.seek(0)
        server_err = errlog.read()

    tools = seen["tools"]
    assert set(tools) >= MCP_CONTRACT
    for spec in mcp_tools():
        assert tools[spec.name].input_schema == spec.input_schema()
    assert tools["observe"].annotations.read_only_hint is True

    home = seen["home"]
    assert not home.is_error and _text(home).startswith(f"{'ios' if 'ios' in device.spec else 'android'} ")
    assert _data(home)["elements"][0]["ref"] == "e1"

    launch = _data(seen["launch"])
    assert not seen["launch"].is_error and launch["status"] == "passed"
    assert launch["world"]["current_app"] == device.app and launch["foreground_app"] == device.app

    tap = _data(seen["tap"])
    assert not seen["tap"].is_error and tap["page"] not in (None, launch["page"])

    current = _data(seen["current"])
    assert (current["foreground_app"], current["world_current_app"]) == (device.app, device.app)

    missing = seen["missing"]
    assert missing.is_error
    assert _text(missing).startswith("AppNotInstalled: com.example.not.installed is not installed")
    assert " (hint: " in _text(missing).splitlines()[0]  # each backend words its own hint

    picture = seen["picture"]
    image = next(c for c in picture.content if isinstance(c, ImageContent))
    magic = {"image/png": b"\x89PNG", "image/jpeg": b"\xff\xd8"}  # uiautomator2 sends JPEG
    assert base64.b64decode(image.data).startswith(magic[image.mime_type])

    world = _data(seen["world"])
    assert world["current_app"] == device.app and world["current_page"] == tap["page"]
    launched, tapped, failed = world["history"][0], world["history"][1], world["history"][2]
    assert (launched["rationale"], launched["purpose"], launched["expected_outcome"]) == (
        "the row to open is in Settings",
        "reach the sub-page",
        "the Settings list",
    )
    assert tapped["action"] == "tap" and tapped["rationale"] == f"open {device.row}" and tapped["success"]
    assert failed["success"] is False and "not installed" in failed["error"]

    assert _data(seen["devices"])["this_server"]["spec"] == device.spec

    flow = _data(seen["flow"])
    assert not seen["flow"].is_error, _text(seen["flow"])
    assert flow["status"] == "succeeded" and flow["steps_run"] == flow["steps_in_flow"]
    flow_history = _data(seen["world_after_flow"])["history"]
    assert flow_history[-1]["thinking"] == "run_flow by the agent (rationale: the QA flow)"

    # The same evidence as a flow: every step in the run folder's timeline, and the report.
    (run_dir,) = out.iterdir()
    timeline = read_timeline(run_dir)
    acted = ["launch_app", "tap", "launch_app", "screenshot"]
    assert [s["action"] for s in timeline.steps][:4] == acted
    assert len(timeline.steps) == len(acted) + flow["steps_run"]
    assert timeline.header is not None and timeline.header["device"]["spec"] == device.spec
    assert timeline.footer is not None and timeline.footer["status"] == "ended"
    assert timeline.footer["failed_steps"] == 1
    # the screenshot step's picture, kept under the name the agent gave it
    assert (run_dir / "report.html").is_file() and len(list(run_dir.glob("after-tap.*g"))) == 1
    assert f"amc mcp: serving {device.spec}" in server_err and "report:" in server_err


def test_a_server_stopped_by_sigterm_finishes_its_run_folder(tmp_path: Path) -> None:
    """A raw JSON-RPC client on the pipes (the initialize handshake, one call), then SIGTERM."""
    out = tmp_path / "runs"
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false", "ANDROID_ADB_SERVER_PORT": "1"}
    command = [sys.executable, "-m", "amc.cli", "mcp", "--device", "sim:android", "--out", str(out)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        assert server.stderr.readline().startswith("amc mcp: serving sim:android")
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "launch_app", "arguments": {"app_id": "com.android.settings"}},
            },
        ):
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]
        assert answers[1]["result"]["isError"] is False
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0
        assert "amc mcp: stopped by signal 15; report:" in server.stderr.read()
    (run_dir,) = out.iterdir()
    timeline = read_timeline(run_dir)
    assert [s["action"] for s in timeline.steps] == ["launch_app"]
    assert timeline.footer is not None and timeline.footer["status"] == "ended"
    assert (run_dir / "report.html").is_file()
