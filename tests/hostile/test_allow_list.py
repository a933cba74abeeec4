"""Issue 34, part 2: the allowed apps hold on what is in front after every step, for MCP and the
agent alike, before the next action.

Before the fix ``amc mcp --allow-app X`` guarded launches only: after ``press home`` a client tapped
another app's icon and then typed and tapped in that app (six steps in a disallowed app); ``amc
agent`` stopped after two steps outside the list but let the first one through. Now the next acting
step is refused while a disallowed app is in front; ``press back``/``home`` and launching an allowed
app still work there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amc.agent.guard import agent_executor
from amc.agent.llm import LLMPlanner
from amc.agent.service import DeviceService
from amc.runtime.task import TaskRunner, TaskRunnerConfig

from tests.agent.chat_server import ChatServer, tool
from tests.hostile.counting import CountingSim

pytestmark = pytest.mark.timeout(60)

SETTINGS = "com.android.settings"
DEMO = "com.example.amc.demo"


def test_mcp_clients_cannot_act_in_an_app_outside_the_list(tmp_path: Path) -> None:
    driver = CountingSim("android")
    service = DeviceService(
        driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path, allowed_apps=[SETTINGS]
    )
    service.start()
    replies: list[tuple[str, Any]] = []
    try:
        for name, arguments in [
            ("launch_app", {"app_id": SETTINGS}),
            ("press", {"key": "home"}),
            ("tap", {"target": {"text": "Demo Login"}, "timeout": 5}),  # on the home screen: allowed
            ("wait_for", {"target": {"id": "username"}, "timeout": 5}),  # looking is allowed
            ("tap", {"target": {"id": "username"}}),
            ("type_text", {"text": "qa", "target": {"id": "username"}}),
            ("type_text", {"text": "qa"}),
            ("long_press", {"x": 100, "y": 300}),
            ("swipe", {"direction": "up"}),
            ("press", {"key": "enter"}),
            ("hide_keyboard", {}),
            ("launch_app", {"app_id": DEMO}),  # not allowed, as before
            ("press", {"key": "back"}),  # leaving is allowed
        ]:
            reply = service.call(name, arguments)
            replies.append((name, reply.text.split("\n", 1)[0] if reply.is_error else "ok"))
    finally:
        service.close()
    refused = [text for _, text in replies[4:11]]
    assert all(
        t.startswith(f"GuardrailViolation: {DEMO} is in front, outside the allowed apps ({SETTINGS})")
        for t in refused
    ), replies
    assert replies[:4] == [("launch_app", "ok"), ("press", "ok"), ("tap", "ok"), ("wait_for", "ok")]
    assert replies[11][1].startswith(f"GuardrailViolation: {DEMO} is outside the allowed apps")
    assert replies[12] == ("press", "ok")
    assert [a.split(" ")[0] for a in driver.acted] == ["launch", "press", "tap", "press"]


def test_the_agent_never_lets_a_step_act_in_an_app_outside_the_list() -> None:
    server = ChatServer(
        [
            tool("launch_app", {"app_id": SETTINGS}),
            tool("press", {"key": "home"}),
            tool("tap", {"target": {"text": "Demo Login"}, "timeout": 5}),
            tool("type_text", {"text": "qa"}),
            tool("tap", {"x": 100, "y": 300}),
            tool("done", {"summary": "x"}),
        ]
    )
    driver = CountingSim("android")
    try:
        planner = LLMPlanner.connect(server.url, "m", allowed_apps=[SETTINGS], max_steps=10)
        runner = TaskRunner(
            driver,
            planner,
            executor=agent_executor(driver, [SETTINGS]),
            config=TaskRunnerConfig(max_steps=10),
        )
        result = runner.run("open the demo app")
    finally:
        server.close()
    assert [a.split(" ")[0] for a in driver.acted] == ["launch", "press", "tap"]
    kinds = [(r.step.action, r.result.error_kind) for r in result.steps]
    assert kinds[:3] == [("launch_app", None), ("press", None), ("tap", None)]
    assert ("type_text", "GuardrailViolation") in kinds
    assert result.error_kind == "GuardrailViolation"  # and the task stops, as before
