"""Issue 34, part 5: every input bounded before use, each refusal a typed error (exit 2 for a flow,
with its file:line:col), never a traceback, never a device request.

Before the fix: a flow with a 4,300-digit number ended in a ValueError traceback; ``run_flow`` of a
file that is not a flow echoed the whole file in the error; MCP and agent taps at ``x: 1e308`` or
``-5`` "passed" (flows bounded coordinates, the executor did not); a model reply whose ``target``
was nested 500 deep ended the whole task with RecursionError.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from amc.agent.guard import agent_executor
from amc.agent.llm import LLMPlanner
from amc.agent.mcp_server import build_server
from amc.agent.service import DeviceService
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from mcp import Client
from mcp_types import TextContent

from tests.agent.chat_server import ChatServer, tool
from tests.flows.helpers import amc, write_flow
from tests.hostile.counting import CountingSim

pytestmark = pytest.mark.timeout(60)


def test_a_flow_with_a_4300_digit_number_is_a_flow_error_at_its_place(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        f"""
        name: big
        steps:
          - tap: {{x: {"9" * 4400}, y: 5}}
          - remember: {{n: {"7" * 5000}}}
          - wait_for: {{text: a, timeout: {"1" * 400}.5}}
        """,
    )
    result = amc("run", flow, "--out", tmp_path / "runs")
    assert result.code == 2 and "Traceback" not in result.err
    assert f"{flow.name}:3:14: tap's x must be a number of at most 40 characters" in result.err
    assert f"{flow.name}:4:19: remembered value 'n' must be a number of at most 40" in result.err
    assert f"{flow.name}:5:34: wait_for's timeout must be a number of at most 40" in result.err
    assert "9" * 61 not in result.err and not (tmp_path / "runs").exists()


def test_run_flow_of_a_file_that_is_not_a_flow_quotes_only_its_start(tmp_path: Path) -> None:
    words = " ".join(f"private-line-{n}" for n in range(400))
    (tmp_path / "notes.yaml").write_text(words + "\n", encoding="utf-8")
    flow = write_flow(tmp_path, "name: outer\nsteps:\n  - run_flow: notes.yaml\n")
    result = amc("run", flow, "--out", tmp_path / "runs")
    assert result.code == 2 and "Traceback" not in result.err
    assert "notes.yaml:1:1: the flow must be a mapping, got str 'private-line-0" in result.err
    assert f"({len(words)} characters)" in result.err and "private-line-399" not in result.err


def _mcp(driver: CountingSim, tmp_path: Path, body: Callable[[Any], Awaitable[None]]) -> None:
    service = DeviceService(driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path)
    service.start()

    async def main() -> None:
        async with Client(build_server(service)) as client:
            await body(client)

    try:
        anyio.run(main)
    finally:
        service.close()


OUTSIDE = "StepArgumentError: argument"


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            {"x": 1e308, "y": 5},
            "StepArgumentError: argument 'x' must be from 0 to 100000, got 1e+308",
        ),
        ({"x": -5, "y": 5}, "StepArgumentError: argument 'x' must be from 0 to 100000, got -5"),
        (
            {"x": 5, "y": 2400},
            "StepArgumentError: argument 'y' (2400) is outside the screen, which is 2400 high",
        ),
        ({"target": {"text": "x"}, "timeout": 10**400}, "StepArgumentError: argument 'timeout'"),
    ],
)
def test_mcp_taps_outside_the_screen_are_refused_before_the_device(
    tmp_path: Path, arguments: dict[str, Any], error: str
) -> None:
    driver = CountingSim("android")
    answers: list[Any] = []

    async def body(client: Any) -> None:
        answers.append(await client.call_tool("tap", arguments))
        answers.append(await client.call_tool("current_app", {}))  # the server is still there

    _mcp(driver, tmp_path, body)
    refused, after = answers
    first = refused.content[0]
    assert refused.is_error and isinstance(first, TextContent) and first.text.startswith(error), first
    assert not after.is_error
    assert driver.acted == []


def test_an_mcp_target_nested_500_deep_is_refused_and_the_server_goes_on(tmp_path: Path) -> None:
    """The SDK's own client cannot even send this (pydantic's serialisation depth); a raw client
    can, and the service gets it as parsed: it is refused before anything walks it."""
    driver = CountingSim("android")
    service = DeviceService(driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path)
    service.start()
    try:
        reply = service.call("tap", {"target": json.loads("[" * 500 + "]" * 500)})
        assert (
            reply.is_error
            and reply.text == "StepArgumentError: tap: the arguments are nested more than 4 levels deep"
        )
        assert not service.call("current_app", {}).is_error
    finally:
        service.close()
    assert driver.acted == []


def test_agent_taps_outside_the_screen_and_a_deeply_nested_target_are_recorded_bad_steps() -> None:
    deep = '{"target": ' + "[" * 500 + "]" * 500 + "}"
    server = ChatServer(
        [
            tool("tap", {"x": 1e308, "y": 5}),
            tool("tap", {"x": -5, "y": 5}),
            tool("tap", deep),
            tool("tap", {"x": 100, "y": 200}),
            tool("done", {"summary": "tried"}),
        ]
    )
    driver = CountingSim("android")
    try:
        planner = LLMPlanner.connect(server.url, "m", max_steps=10)
        runner = TaskRunner(
            driver,
            planner,
            executor=agent_executor(driver),
            config=TaskRunnerConfig(max_steps=10, max_consecutive_failures=5),
        )
        result = runner.run("tap things")
    finally:
        server.close()
    shown = [(r.step.action, r.result.error_kind, (r.result.error or "")[:64]) for r in result.steps]
    assert shown == [
        ("tap", "StepArgumentError", "argument 'x' must be from 0 to 100000, got 1e+308"),
        ("tap", "StepArgumentError", "argument 'x' must be from 0 to 100000, got -5"),
        (
            "reply_error",
            "ModelReplyError",
            "tap: the arguments are nested more than 4 levels deep (hint: ans",
        ),
        ("tap", None, ""),
    ]
    assert driver.acted == ["tap 100 200"]  # only the one inside the screen reached the device
