"""The MCP tools' answers in detail, through the SDK's client connected to the server in process."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from amc.agent.mcp_server import build_server
from amc.agent.service import DeviceService
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.runtime.task import TaskRunnerConfig
from amc.sim.faults import Fault, FaultInjector
from amc.storage.timeline import read_timeline
from amc.world.config import WorldConfig
from mcp import Client
from mcp_types import CallToolResult, TextContent

Call = Callable[[str, dict[str, Any]], Awaitable[CallToolResult]]


def _text(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _serve(
    driver: Driver, tmp_path: Path, body: Callable[[Call], Awaitable[None]], **options: Any
) -> DeviceService:
    service = DeviceService(
        driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path / "flows", **options
    )
    service.start()

    async def main() -> None:
        async with Client(build_server(service)) as client:

            async def call(name: str, arguments: dict[str, Any]) -> CallToolResult:
                return await client.call_tool(name, arguments)

            await body(call)

    try:
        anyio.run(main)
    finally:
        service.close()
    return service


@pytest.fixture
def android() -> Iterator[Driver]:
    driver = connect("sim:android")
    yield driver
    driver.close()


def test_an_argument_the_tool_does_not_take_is_a_tool_error_and_no_step(
    android: Driver, tmp_path: Path
) -> None:
    async def body(call: Call) -> None:
        result = await call("tap", {"tartget": {"text": "Settings"}})
        assert result.is_error
        assert _text(result) == (
            "StepArgumentError: tap does not take argument(s) tartget; "
            "it takes: target, x, y, at, repeat, delay, retry_if_no_change, timeout, interval, "
            "rationale, purpose, expected_outcome"
        )
        result = await call("tap", {"x": "10", "y": 10})  # the executor's own check, recorded
        assert result.is_error and _text(result).startswith(
            "StepArgumentError: argument 'x' must be a number"
        )

    service = _serve(android, tmp_path, body)
    assert [s["action"] for s in read_timeline(service.run_dir).steps] == ["tap"]


def test_a_target_sent_as_json_text_taps_the_element(android: Driver, tmp_path: Path) -> None:
    async def body(call: Call) -> None:
        result = await call("tap", {"target": '{"text": "Settings"}'})
        assert not result.is_error and result.structured_content["foreground_app"] == "com.android.settings"  # type: ignore[index]

    _serve(android, tmp_path, body)


def test_a_launch_the_world_and_the_screen_already_show_is_skipped(android: Driver, tmp_path: Path) -> None:
    async def body(call: Call) -> None:
        await call("launch_app", {"app_id": "com.android.settings"})
        again = await call("launch_app", {"app_id": "com.android.settings", "rationale": "be sure"})
        data = again.structured_content or {}
        assert not again.is_error and data["status"] == "skipped" and data["action"] == "skip"
        assert "already in front" in data["target"]

    _serve(android, tmp_path, body)


def test_allow_app_refuses_other_launches(android: Driver, tmp_path: Path) -> None:
    async def body(call: Call) -> None:
        result = await call("launch_app", {"app_id": "com.android.deskclock"})
        assert result.is_error
        assert _text(result).startswith(
            "GuardrailViolation: com.android.deskclock is outside the allowed apps (com.android.settings); "
            "launch_app refused (hint: "
        )
        assert not (await call("launch_app", {"app_id": "com.android.settings"})).is_error
        stop = await call("terminate_app", {"app_id": "com.android.deskclock"})
        assert stop.is_error and "terminate_app refused" in _text(stop)
        check = await call("assert_app", {"app_id": "com.android.settings"})  # a check may name any app
        assert not check.is_error

    _serve(android, tmp_path, body, allowed_apps=["com.android.settings"])
    assert android.current_app() == "com.android.settings"


def test_a_secret_typed_is_hidden_in_replies_the_world_and_the_run_folder(
    android: Driver, tmp_path: Path
) -> None:
    async def body(call: Call) -> None:
        await call("launch_app", {"app_id": "com.example.amc.demo"})
        typed = await call(
            "type_text", {"text": "hunter2-secret", "target": {"id": "username"}, "secret": True}
        )
        assert not typed.is_error and "hunter2-secret" not in _text(typed)
        world = await call("world_state", {})
        assert "hunter2-secret" not in _text(world)
        assert world.structured_content["history"][1]["args"]["text"] == "***"  # type: ignore[index]
        screen = await call("observe", {})
        assert "hunter2-secret" not in _text(screen) + json.dumps(screen.structured_content)

    service = _serve(android, tmp_path, body)
    assert all(b"hunter2-secret" not in p.read_bytes() for p in service.run_dir.iterdir())


def test_run_flow_reads_only_flow_files_under_the_flow_root(android: Driver, tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "broken.yaml").write_text("name: broken\nsteps:\n  - fly: away\n", encoding="utf-8")
    (tmp_path / "outside.yaml").write_text("name: outside\nsteps:\n  - press: home\n", encoding="utf-8")
    (flows / "notes.txt").write_text("hello", encoding="utf-8")
    (flows / "ok.yaml").write_text(
        textwrap.dedent(
            """\
            name: ok
            steps:
              - launch_app: com.android.settings
              - assert_visible: Network & internet
            """
        ),
        encoding="utf-8",
    )

    async def body(call: Call) -> None:
        outside = await call("run_flow", {"path": "../outside.yaml"})
        assert outside.is_error and "FlowError: ../outside.yaml is outside the flow root" in _text(outside)
        absolute = await call("run_flow", {"path": str(tmp_path / "outside.yaml")})
        assert absolute.is_error and "outside the flow root" in _text(absolute)
        text = await call("run_flow", {"path": "notes.txt"})
        assert text.is_error and "is not a flow file (.yaml or .yml)" in _text(text)
        broken = await call("run_flow", {"path": "broken.yaml"})
        assert (
            broken.is_error and _text(broken).startswith("FlowValidationError: ") and "fly" in _text(broken)
        )
        ok = await call("run_flow", {"path": "ok.yaml", "purpose": "smoke"})
        assert not ok.is_error and ok.structured_content["status"] == "succeeded"  # type: ignore[index]
        again = await call("run_flow", {"path": "ok.yaml"})  # the launch is skipped: already in front
        assert [s["status"] for s in again.structured_content["steps"]] == ["skipped", "passed"]  # type: ignore[index]

    service = _serve(android, tmp_path, body)
    assert [s["action"] for s in read_timeline(service.run_dir).steps] == [
        "launch_app",
        "assert_visible",
        "skip",
        "assert_visible",
    ]


def test_a_flow_after_failed_calls_is_judged_on_its_own_steps(android: Driver, tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "one.yaml").write_text(
        "name: one\nsteps:\n  - launch_app: com.android.settings\n", encoding="utf-8"
    )

    async def body(call: Call) -> None:
        for _ in range(3):  # three failed steps in a row before the flow
            assert (await call("launch_app", {"app_id": "com.nope"})).is_error
        flow = await call("run_flow", {"path": "one.yaml"})
        assert not flow.is_error, _text(flow)
        assert flow.structured_content["steps_run"] == 1  # type: ignore[index]

    _serve(android, tmp_path, body)


def test_a_device_that_dies_is_a_tool_error_and_the_server_goes_on_answering(tmp_path: Path) -> None:
    faults = FaultInjector()
    driver = connect("sim+wda:ios", faults=faults)

    async def body(call: Call) -> None:
        assert not (await call("observe", {})).is_error
        faults.inject(Fault.DIE)
        tap = await call("tap", {"x": 10, "y": 10})
        assert tap.is_error and _text(tap).startswith("DriverUnavailable: ")
        look = await call("observe", {})
        assert look.is_error and _text(look).startswith("DriverUnavailable: ")
        world = await call("world_state", {})
        assert not world.is_error and world.structured_content["history"][0]["success"] is False  # type: ignore[index]

    try:
        _serve(driver, tmp_path, body)
    finally:
        driver.close()


def test_with_the_world_model_off_world_state_says_so(android: Driver, tmp_path: Path) -> None:
    async def body(call: Call) -> None:
        await call("launch_app", {"app_id": "com.android.settings"})
        world = await call("world_state", {})
        assert world.structured_content == {  # type: ignore[comparison-overlap]
            "enabled": False,
            "steps_run": 1,
            "note": "AMC_WORLD_ENABLED is off",
        }

    _serve(android, tmp_path, body, config=TaskRunnerConfig(world=WorldConfig(enabled=False)))


def test_calls_made_at_once_run_one_at_a_time(android: Driver, tmp_path: Path) -> None:
    results: list[CallToolResult] = []

    async def body(call: Call) -> None:
        async def one(key: str) -> None:
            results.append(await call("press", {"key": key}))

        async with anyio.create_task_group() as group:
            for key in ("home", "back", "home", "back"):
                group.start_soon(one, key)

    service = _serve(android, tmp_path, body)
    assert sorted(r.structured_content["step"] for r in results) == [1, 2, 3, 4]  # type: ignore[index]
    assert [s["number"] for s in read_timeline(service.run_dir).steps] == [1, 2, 3, 4]
