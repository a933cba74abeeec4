"""The one description of the tools: generated from the executor's table, the same for MCP and the LLM."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from amc.actions import ACTIONS, Action, Param
from amc.actions.kinds import Number
from amc.agent.tools import (
    DONE,
    LLM_REASON_FIELDS,
    PLANNER_ONLY,
    REASON_FIELDS,
    SESSION_TOOLS,
    action_tools,
    mcp_tools,
    openai_tools,
    read_call,
    step_from_call,
)
from amc.core.errors import StepArgumentError
from amc.core.selectors import Selector

# The names the issue promises MCP clients (issue 16): a contract, not a copy of the table.
MCP_CONTRACT = {
    "list_devices",
    "observe",
    "tap",
    "long_press",
    "type_text",
    "swipe",
    "press",
    "launch_app",
    "terminate_app",
    "current_app",
    "world_state",
    "run_flow",
    "screenshot",
}


def _spec(name: str) -> Any:
    return next(t for t in mcp_tools() if t.name == name)


def test_every_executor_action_but_the_planner_only_ones_is_a_tool_in_table_order() -> None:
    assert [t.name for t in action_tools()] == [a for a in ACTIONS if a not in PLANNER_ONLY]
    assert {t.action for t in action_tools()} == set(ACTIONS) - PLANNER_ONLY


def test_the_mcp_tools_hold_the_promised_names() -> None:
    names = [t.name for t in mcp_tools()]
    assert set(names) >= MCP_CONTRACT
    assert len(names) == len(set(names))


def test_the_llm_tools_are_the_mcp_action_tools_plus_done_with_thinking() -> None:
    offered = {t["function"]["name"]: t["function"] for t in openai_tools([*action_tools(), DONE])}
    assert set(offered) == {t.name for t in action_tools()} | {"done"}
    for spec in action_tools():
        mcp = spec.input_schema(REASON_FIELDS)
        llm = offered[spec.name]["parameters"]
        assert llm["properties"].pop("thinking")["type"] == "string"
        assert llm == mcp  # the same names and arguments on both doors
    assert offered["done"]["parameters"]["required"] == ["summary"]


def test_every_argument_a_tool_shows_is_described() -> None:
    for spec in mcp_tools():
        for name, schema in spec.input_schema()["properties"].items():
            assert str(schema.get("description", "")).strip(), f"{spec.name}.{name} has no description"


def test_an_action_added_to_the_table_becomes_a_tool_with_its_arguments_described() -> None:
    table = dict(ACTIONS)
    angle = Param("angle", Number(0, 360), "degrees to turn", required=True)
    table["rotate"] = Action(
        "rotate", "rotate the screen", lambda driver, args, screen: None, params=(angle,)
    )
    tools = {t.name: t for t in action_tools(table)}
    schema = tools["rotate"].input_schema()
    assert schema["properties"]["angle"] == {
        "type": "number",
        "minimum": 0,
        "maximum": 360,
        "description": "degrees to turn",
    }
    assert schema["required"] == ["angle"]


def test_a_tool_shows_one_spelling_of_each_argument() -> None:
    tap = _spec("tap").input_schema()["properties"]
    assert "target" in tap and not set(tap) & {"text", "id", "label", "bundle_id"}
    launch = _spec("launch_app")
    assert launch.required == ("app_id",) and "package" not in launch.input_schema()["properties"]
    typing = _spec("type_text").input_schema()
    assert typing["required"] == ["text"] and "secret" in typing["properties"]


def test_the_selector_schema_lists_every_selector_field_with_its_type() -> None:
    schema = _spec("tap").input_schema()["properties"]["target"]
    as_object = next(s for s in schema["anyOf"] if s["type"] == "object")
    fields = as_object["properties"]
    assert set(fields) == {f.name for f in dataclasses.fields(Selector)}
    assert (fields["text"]["type"], fields["index"]["type"], fields["visible"]["type"]) == (
        "string",
        "integer",
        "boolean",
    )


def test_acting_tools_take_the_reasons_and_looking_tools_take_nothing() -> None:
    for spec in SESSION_TOOLS:
        properties = set(spec.input_schema()["properties"])
        assert (set(REASON_FIELDS) <= properties) is spec.acting
    assert set(LLM_REASON_FIELDS) <= set(_spec("tap").arguments(LLM_REASON_FIELDS))


def test_a_call_becomes_a_planned_step_with_its_reasons() -> None:
    step = step_from_call(
        _spec("tap"),
        {"target": {"text": "OK"}, "rationale": "close it", "expected_outcome": "no dialog", "purpose": None},
    )
    assert (step.action, dict(step.args)) == ("tap", {"target": {"text": "OK"}})
    assert (step.rationale, step.expected_outcome, step.purpose) == ("close it", "no dialog", None)


def test_a_target_sent_as_json_text_is_read_as_the_object() -> None:
    step = step_from_call(_spec("tap"), {"target": '{"id": "login"}'})
    assert step.args["target"] == {"id": "login"}
    assert step_from_call(_spec("tap"), {"target": "{ not json"}).args["target"] == "{ not json"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("tap", {"tartget": {"text": "OK"}}, "tap does not take argument(s) tartget; it takes: target, x, y"),
        ("tap", {"thinking": "hmm"}, "tap does not take argument(s) thinking"),  # MCP tools: no thinking
        ("launch_app", {}, "launch_app needs argument(s) app_id"),
        ("launch_app", {"app_id": "a", "rationale": 5}, "launch_app: 'rationale' must be text, got int"),
        ("tap", ["x", 1], "tap: the arguments must be a JSON object, got list"),
        ("observe", {"x": 1}, "observe does not take argument(s) x; it takes: no arguments"),
    ],
)
def test_bad_calls_are_refused_naming_the_problem(name: str, arguments: Any, message: str) -> None:
    with pytest.raises(StepArgumentError) as raised:
        read_call(_spec(name), arguments)
    assert message in str(raised.value)


def test_reasons_are_cut_to_what_the_world_keeps() -> None:
    step = step_from_call(_spec("press"), {"key": "back", "rationale": "x" * 5000})
    assert step.rationale is not None and len(step.rationale) == 2000
