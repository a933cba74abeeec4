"""What a model reads stays affordable: MCP `tools/list` and the LLM planner's tool schemas at most
3,000 tokens, `observe` naming every element that acts, and a second look at a screen costing at most
a fifth of the first. Counted in o200k_base tokens (OpenAI's current encoding) by bpe-openai, through
the MCP SDK's own client connected to the server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import bpe_openai  # type: ignore[import-untyped,unused-ignore]
import pytest
from amc.agent.mcp_server import build_server
from amc.agent.screen import compact_screen
from amc.agent.service import DeviceService
from amc.agent.tools import DONE, action_tools, openai_tools
from amc.connect.simulated import SimDriver
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.models import Observation
from mcp import Client

BUDGET = 3000
_ENCODING = bpe_openai.get_encoding("o200k_base")


def tokens(text: str) -> int:
    return len(_ENCODING.encode(text))


def _dump(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _with_client(service: DeviceService, body: Callable[[Client], Any]) -> None:
    async def main() -> None:
        async with Client(build_server(service)) as client:
            await body(client)

    anyio.run(main)


def _service(tmp_path: Path, platform: str, app: str) -> DeviceService:
    driver = SimDriver(platform)  # type: ignore[arg-type]
    driver.launch_app(app)
    service = DeviceService(driver, spec=f"sim:{platform}", run_dir=tmp_path / "run", flow_root=tmp_path)
    service.start()
    return service


def test_tools_list_fits_the_budget_and_describes_every_tool_and_argument(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["tools"] = await client.list_tools()

    _with_client(_service(tmp_path, "android", "com.android.settings"), body)
    listed = _dump(seen["tools"])
    assert tokens(json.dumps(listed)) <= BUDGET
    for tool in listed["tools"]:
        assert len(tool["description"]) >= 10, tool["name"]
        for name, schema in tool["inputSchema"]["properties"].items():
            assert schema.get("description"), f"{tool['name']}.{name}"


def test_the_llm_planners_tool_schemas_fit_the_budget() -> None:
    offered = openai_tools([*action_tools(), DONE])
    assert tokens(json.dumps(offered)) <= BUDGET
    assert {t["function"]["name"] for t in offered} == {t.name for t in action_tools()} | {"done"}


@pytest.mark.parametrize(
    ("platform", "app"), [("android", "com.android.settings"), ("ios", "com.apple.Preferences")]
)
def test_a_second_look_at_a_screen_costs_at_most_a_fifth_of_the_first_and_full_gives_it_all(
    tmp_path: Path, platform: str, app: str
) -> None:
    looks: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        for arguments in ({}, {}, {"full": True}):
            looks.append(_dump(await client.call_tool("observe", arguments)))

    _with_client(_service(tmp_path, platform, app), body)
    first, again, full = looks
    assert tokens(json.dumps(again)) * 5 <= tokens(json.dumps(first))
    assert "no change since the last look" in again["content"][0]["text"]
    assert full["structuredContent"]["elements"] == first["structuredContent"]["elements"]


def test_a_look_after_a_step_lists_what_changed_and_a_new_page_is_listed_whole(tmp_path: Path) -> None:
    looks: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        looks.append(_dump(await client.call_tool("observe", {})))
        await client.call_tool("type_text", {"text": "qa", "target": {"id": "username"}})
        looks.append(_dump(await client.call_tool("observe", {})))
        await client.call_tool("launch_app", {"app_id": "com.android.settings"})
        looks.append(_dump(await client.call_tool("observe", {})))

    _with_client(_service(tmp_path, "android", "com.example.amc.demo"), body)
    _, typed, other = (look["structuredContent"] for look in looks)
    assert [e["target"] for e in typed["changed"]] == [{"id": "username"}]
    assert typed["changed"][0]["text"] == "qa" and "elements" not in typed
    assert other["foreground_app"] == "com.android.settings" and len(other["elements"]) > 10


def test_observe_names_every_element_that_acts_however_long_the_screen() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    scene = driver.observe()
    observation = Observation(scene, DefaultEnricher().enrich(scene))
    acting = [
        el
        for el in scene
        if el.visible
        and not el.bounds.is_empty()
        and (el.clickable or el.focusable or el.scrollable or el.checked is not None)
        and el.bounds.intersection(scene.window) is not None
    ]
    listed = compact_screen(observation, limit=3)  # a limit far below the screen's length
    named = {e.bounds for e in listed.elements}
    assert len(acting) > 3
    assert all((el.bounds.left, el.bounds.top, el.bounds.right, el.bounds.bottom) in named for el in acting)
    assert len(listed.elements) <= len(acting) + 3  # past the limit, only what acts is listed
