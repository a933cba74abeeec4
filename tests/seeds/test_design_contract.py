"""The design's own contract, checked the way its task list asks (tasks 2.3, 3.7, 4.5, 5.3, 5.4, 6.1-6.3).

DO NOT EDIT THIS MODULE TO FOLLOW A REFACTOR. It is written from the seeds in ``../shared/seeds/``
(the world-model design, its task list, the world-model spec and the history-records change) and
uses only the names they give: ``WorldState``, ``WorldEvent`` (``world/models.py``), ``WorldModel``
with ``state`` and ``observe(scene, semantic_scene, step, result)`` (``world/model.py``),
``TaskContext`` with ``scenes``, ``step_results``, ``latest_scene``, ``world`` and
``add_step_result`` (``runtime/context.py``), ``TaskRunner(..., world_model=None)`` and ``run(goal)``
(``runtime/task.py``), ``Planner.plan(*, goal, scene, context, world=None)`` and the stub planner
(``runtime/planner.py``), ``Scene``, ``SemanticScene``, ``PlannedStep``, ``StepResult``. A planner,
a test or a script written from the seeds must run unchanged: when this module fails, the code
broke the contract, and the code is what changes.

Where the seeds leave a name to the implementation, this module uses the project's and says so:
the driver is the loop's in-process fake (the seeds' "mocked Driver"), the configuration is
``WorldConfig`` from ``world/config.py`` (the seeds name the file and its two settings, not the
class), enrichment is handed to the runner as an ``enricher`` (the seeds' ``enrich_scene``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from amc.core.models import PlannedStep, Scene, StepResult
from amc.runtime.context import TaskContext
from amc.runtime.planner import Planner, StubPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.semantic.models import SemanticScene
from amc.world.config import WorldConfig
from amc.world.model import WorldModel
from amc.world.models import WorldEvent, WorldState

from tests.unit.fakes import FakeDriver, scene

OK = StepResult(success=True)
FAILED = StepResult(success=False, error="no such app")


class Pages:
    """The seeds' mocked SemanticScene sequence: one page per look, in order (None: no page)."""

    def __init__(self, *pages: str | None) -> None:
        self._pages: Iterator[str | None] = iter(pages)

    def enrich(self, scene: Scene) -> SemanticScene | None:
        page = next(self._pages, None)
        return SemanticScene(page=page) if page else None


class Recording(Planner):
    """A custom Planner subclass (task 5.4): runs the given steps one per turn and records the
    ``world`` and ``context`` it was handed each turn."""

    def __init__(self, *steps: PlannedStep) -> None:
        self.steps = list(steps)
        self.worlds: list[WorldState | None] = []
        self.contexts: list[TaskContext] = []

    def plan(
        self, *, goal: str, scene: Scene, context: TaskContext, world: WorldState | None = None
    ) -> list[PlannedStep]:
        self.worlds.append(world)
        self.contexts.append(context)
        return [self.steps.pop(0)] if self.steps else []


def _runner(planner: Any, *, pages: Pages | None = None, enabled: bool = True, **kwargs: Any) -> TaskRunner:
    config = TaskRunnerConfig(world=WorldConfig(enabled=enabled))
    return TaskRunner(FakeDriver(), planner, config=config, enricher=pages or Pages(), **kwargs)


# --- 2.3: WorldState / WorldEvent construction and the bounded history ---------------------------


def test_2_3_world_event_and_world_state_are_built_from_the_design_fields() -> None:
    now = datetime.now()
    event = WorldEvent(scene_summary=SemanticScene(page="Home"), action="tap", success=True, timestamp=now)
    assert (event.action, event.success, event.timestamp) == ("tap", True, now)
    assert WorldEvent(scene(), "launch_app", False, now).action == "launch_app"
    state = WorldState(current_app="com.a", current_page="Home", variables={"k": 1}, history=deque(maxlen=3))
    assert (state.current_app, state.current_page, dict(state.variables)) == ("com.a", "Home", {"k": 1})
    assert len(state.history) == 0 and state.history.maxlen == 3
    assert state.to_dict()["current_page"] == "Home" and event.to_dict()["action"] == "tap"


def test_2_3_history_evicts_the_oldest_entry_past_its_bound() -> None:
    model = WorldModel()
    assert model.state.history.maxlen == 10  # the configured default bound
    for i in range(13):
        model.observe(scene(), None, PlannedStep("tap", {"x": i, "y": i}), OK)
    history = model.state.history
    assert len(history) == 10 == history.maxlen
    assert [event.args["x"] for event in history] == list(range(3, 13))  # 0, 1 and 2 are gone


# --- 3.7: WorldModel.observe() and each update rule -----------------------------------------------


def test_3_7_page_comes_from_the_semantic_scene_and_stays_without_one() -> None:
    model = WorldModel()
    model.observe(scene(), SemanticScene(page="Settings"), PlannedStep("describe_screen"), OK)
    assert model.state.current_page == "Settings"
    model.observe(scene(), None, PlannedStep("describe_screen"), OK)
    assert model.state.current_page == "Settings"


def test_3_7_app_follows_successful_launches_only() -> None:
    model = WorldModel()
    model.observe(scene(), None, PlannedStep("launch_app", {"bundle_id": "com.apple.Preferences"}), OK)
    assert model.state.current_app == "com.apple.Preferences"
    model.observe(scene(), None, PlannedStep("launch_app", {"app_id": "com.other"}), FAILED)
    model.observe(scene(), None, PlannedStep("tap", {"x": 1, "y": 2}), OK)
    assert model.state.current_app == "com.apple.Preferences"
    model.observe(scene(), None, PlannedStep("launch_app", {"app_id": "com.android.settings"}), OK)
    assert model.state.current_app == "com.android.settings"
    model.observe(scene(), None, PlannedStep("terminate_app", {"app_id": "com.android.settings"}), OK)
    assert model.state.current_app is None


def test_3_7_variables_merge_remember_and_change_only_with_it() -> None:
    model = WorldModel()
    model.observe(scene(), None, PlannedStep("describe_screen", {"remember": {"user": "qa"}}), OK)
    model.observe(scene(), None, PlannedStep("describe_screen", {"remember": {"order": 42}}), OK)
    assert dict(model.state.variables) == {"user": "qa", "order": 42}
    model.observe(scene(), None, PlannedStep("tap", {"x": 1, "y": 1}), OK)
    assert dict(model.state.variables) == {"user": "qa", "order": 42}


def test_3_7_history_appends_one_event_per_observe_with_the_summary_and_the_004_fields() -> None:
    model = WorldModel()
    step = PlannedStep(
        "tap",
        {"x": 5, "y": 6},
        rationale="the row leads to the page",
        thinking="it is the second row",
        purpose="open the page",
        expected_outcome="the page opens",
    )
    semantic = SemanticScene(page="Wi-Fi")
    model.observe(scene(), semantic, step, OK)
    bare = scene("no page")
    model.observe(bare, None, PlannedStep("describe_screen"), FAILED)
    first, second = model.state.history
    assert first.scene_summary is semantic and second.scene_summary is bare  # SemanticScene, else Scene
    assert (first.action, first.success, second.success) == ("tap", True, False)
    assert dict(first.args) == {"x": 5, "y": 6} and first.page == "Wi-Fi"
    assert (first.rationale, first.thinking, first.purpose, first.expected_outcome) == (
        "the row leads to the page",
        "it is the second row",
        "open the page",
        "the page opens",
    )
    assert second.rationale is None and second.page == "Wi-Fi"


def test_3_7_observe_takes_its_four_arguments_by_position_or_by_name() -> None:
    model = WorldModel()
    model.observe(
        scene=scene(), semantic_scene=SemanticScene(page="A"), step=PlannedStep("describe_screen"), result=OK
    )
    model.observe(scene(), SemanticScene(page="B"), PlannedStep("describe_screen"), OK)
    assert model.state.current_page == "B" and len(model.state.history) == 2


def test_3_6_malformed_inputs_are_skipped_never_raised() -> None:
    model = WorldModel()
    model.observe(scene(), None, PlannedStep("launch_app", {"app_id": "com.a"}), OK)
    model.observe(scene(), None, PlannedStep("launch_app"), OK)  # no bundle_id / app_id
    model.observe(scene(), None, PlannedStep("tap", {"remember": ["not", "a", "dict"]}), OK)
    assert model.state.current_app == "com.a" and dict(model.state.variables) == {}
    assert len(model.state.history) == 3


# --- 4.5: TaskContext and TaskRunner -----------------------------------------------------------


def test_4_5_context_world_is_populated_after_a_step_by_default() -> None:
    planner = Recording(PlannedStep("launch_app", {"app_id": "com.example.app"}))
    TaskRunner(FakeDriver(), planner).run("open the app")
    context = planner.contexts[-1]
    assert context.world is not None and context.world.current_app == "com.example.app"
    assert len(context.step_results) == 1 and context.step_results[0].success
    assert context.latest_scene is not None and context.latest_scene is context.scenes[-1]


def test_4_5_context_world_stays_none_when_disabled_and_the_outcome_is_the_same() -> None:
    steps = (PlannedStep("launch_app", {"app_id": "com.example.app"}), PlannedStep("describe_screen"))
    on, off = Recording(*steps), Recording(*steps)
    with_world = _runner(on).run("twice")
    without_world = _runner(off, enabled=False).run("twice")
    assert off.contexts[-1].world is None and off.worlds == [None, None, None]
    assert on.contexts[-1].world is not None
    assert [r.success for r in on.contexts[-1].step_results] == [
        r.success for r in off.contexts[-1].step_results
    ]
    assert with_world.status == without_world.status


def test_4_add_step_result_records_a_result_on_a_context_of_its_own() -> None:
    context = TaskContext()
    assert context.world is None and context.latest_scene is None and list(context.scenes) == []
    context.add_step_result(OK)
    context.add_step_result(FAILED)
    assert list(context.step_results) == [OK, FAILED]


# --- 5.3 / 5.4: the planner -----------------------------------------------------------------------


def test_5_3_the_stub_planner_returns_the_same_steps_with_or_without_a_world() -> None:
    context = TaskContext()
    without = StubPlanner().plan(goal="look", scene=scene(), context=context)
    with_world = StubPlanner().plan(goal="look", scene=scene(), context=context, world=WorldState())
    assert without == with_world and [step.action for step in without] == ["describe_screen"]
    context.add_step_result(OK)
    assert StubPlanner().plan(goal="look", scene=scene(), context=context) == []  # goal reached


def test_5_4_the_runner_passes_context_world_into_plan_by_the_second_step() -> None:
    planner = Recording(
        PlannedStep("launch_app", {"app_id": "com.example.app"}), PlannedStep("describe_screen")
    )
    TaskRunner(FakeDriver(), planner).run("two steps")
    second = planner.worlds[1]
    assert second is not None and second.current_app == "com.example.app" and len(second.history) == 1


# --- 6.1-6.3: end to end -------------------------------------------------------------------------


def test_6_1_a_multi_step_task_updates_app_page_and_history_after_each_step() -> None:
    planner = Recording(
        PlannedStep("launch_app", {"app_id": "com.android.settings"}),
        PlannedStep("tap", {"x": 10, "y": 20}),
        PlannedStep("describe_screen"),
    )
    # looks: the first one, then one after each step
    _runner(planner, pages=Pages("Launcher", "Settings", "Network", "Network")).run("open network")
    seen = [(w.current_app, w.current_page, len(w.history)) for w in planner.worlds if w is not None]
    assert seen == [
        (None, "Launcher", 0),
        ("com.android.settings", "Settings", 1),
        ("com.android.settings", "Network", 2),
        ("com.android.settings", "Network", 3),
    ]
    assert [event.action for event in planner.contexts[-1].world.history] == [  # type: ignore[union-attr]
        "launch_app",
        "tap",
        "describe_screen",
    ]


def test_6_2_missing_semantic_scene_and_missing_args_never_interrupt_the_task() -> None:
    planner = Recording(PlannedStep("launch_app"), PlannedStep("describe_screen"))
    result = _runner(planner, pages=Pages("Home")).run("keep going")
    world = planner.contexts[-1].world
    assert world is not None and world.current_page == "Home" and world.current_app is None
    assert len(planner.contexts[-1].step_results) == 2 and len(world.history) == 2
    assert result is not None


def test_6_3_on_by_default_and_off_restores_the_plain_loop() -> None:
    assert WorldConfig().enabled is True and WorldConfig().history_size == 10
    planner = Recording(PlannedStep("describe_screen"))
    _runner(planner, enabled=False).run("look")
    assert planner.worlds == [None, None] and planner.contexts[-1].world is None
