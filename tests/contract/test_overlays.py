"""A system dialog over a just-launched app: the launch succeeded and the dialog is state.

The simulated Notes app asks to send notifications on its first launch, as real apps do: Android
shows the permission controller's prompt over the app (in the app's task), iOS a SpringBoard alert
(WebDriverAgent then reports SpringBoard as active, and the app's state as 4). On every rig and
profile the launch returns, the device still names the app as the one in front, the Scene shows
the dialog, the world model records it as the overlay, and a tap on "Allow" answers it.
"""

from __future__ import annotations

from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskStatus
from amc.semantic.screen import alert_of

from tests.contract.rigs import Rig

PROMPT = {"android": "to send you notifications?", "ios": "Would Like to Send You Notifications"}


def test_a_permission_prompt_over_a_just_launched_app_is_not_a_failed_launch(
    rig: Rig, apps: dict[str, str]
) -> None:
    platform = rig.device.platform
    rig.driver.launch_app(apps["notes"])
    assert rig.device.system_prompt() == (apps["notes"], "notifications")
    assert rig.driver.current_app() == apps["notes"]
    scene = rig.driver.observe()
    alert = alert_of(scene)
    assert alert is not None, scene.texts()
    assert any(PROMPT[platform] in text for text in (el.text or el.label or "" for el in alert.iter()))
    allow = scene.find(Selector(text="Allow"))
    assert allow is not None
    rig.driver.tap(*tap_point(allow, scene.window))
    assert rig.device.system_prompt() is None
    after = rig.driver.observe()
    assert alert_of(after) is None and after.foreground_app == apps["notes"]
    assert rig.driver.current_app() == apps["notes"]


def test_the_world_model_records_the_prompt_as_the_overlay_and_a_flow_can_answer_it(
    rig: Rig, apps: dict[str, str]
) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": apps["notes"]}),
        PlannedStep("assert_visible", {"text": "Allow"}),
        PlannedStep("tap", {"text": "Allow"}),
        PlannedStep("assert_app", {"app_id": apps["notes"]}),
    ]
    overlays: list[str | None] = []

    def record(record: StepRecord, context: TaskContext) -> None:
        assert context.world is not None
        overlays.append(context.world.overlay)

    result = TaskRunner(rig.driver, ScriptedPlanner(steps), listeners=[record]).run("answer the prompt")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert result.world is not None and result.world.current_app == apps["notes"]
    launched, seen, allowed, _ = overlays
    assert launched is not None and PROMPT[rig.device.platform] in launched
    assert seen == launched and allowed is None
