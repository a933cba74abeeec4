"""End to end: multi-step tasks with the world hook on, on a scripted driver and on the simulated device."""

from __future__ import annotations

import threading

import pytest
from amc.connect.simulated import SimDriver
from amc.core.apps import is_home_screen
from amc.core.models import PlannedStep, Scene
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus
from amc.semantic.models import SemanticScene
from amc.world.config import WorldConfig

from tests.unit.fakes import FakeDriver, scene


class ScriptedEnricher:
    """Hands out one SemanticScene (or None) per observation, in order."""

    def __init__(self, *pages: str | None) -> None:
        self.pages = list(pages)

    def enrich(self, scene: Scene) -> SemanticScene | None:
        page = self.pages.pop(0) if self.pages else None
        return SemanticScene(page=page) if page else None


def _snapshots(runner: TaskRunner) -> list[tuple[str | None, str | None, str | None, int]]:
    snaps: list[tuple[str | None, str | None, str | None, int]] = []

    def listener(record: StepRecord, context: TaskContext) -> None:
        world = context.world
        assert world is not None
        snaps.append((world.current_app, world.current_page, world.observed_app, len(world.history)))

    runner.listeners.append(listener)
    return snaps


def test_world_follows_a_scripted_multi_step_task() -> None:
    driver = FakeDriver(
        scenes=[
            scene(app="com.launcher"),  # before any step
            scene("Wi-Fi", app="com.android.settings"),  # after launch
            scene("Internet", app="com.android.settings"),  # after tap
            scene(app="com.launcher"),  # after terminate
        ]
    )
    steps = [
        PlannedStep("launch_app", {"app_id": "com.android.settings"}, rationale="open settings"),
        PlannedStep("tap", {"x": 10, "y": 20}, purpose="open network"),
        PlannedStep("terminate_app", {"app_id": "com.android.settings"}),
    ]
    runner = TaskRunner(
        driver, ScriptedPlanner(steps), enricher=ScriptedEnricher("Home", "Settings", "Network", None)
    )
    snaps = _snapshots(runner)
    result = runner.run("visit network settings")
    assert result.status is TaskStatus.SUCCEEDED
    assert snaps == [
        ("com.android.settings", "Settings", "com.android.settings", 1),
        ("com.android.settings", "Network", "com.android.settings", 2),
        (None, "Network", "com.launcher", 3),  # no page signal: the page is kept
    ]
    history = result.world.history if result.world else []
    assert [(e.action, e.page, e.success) for e in history] == [
        ("launch_app", "Settings", True),
        ("tap", "Network", True),
        ("terminate_app", "Network", True),
    ]
    assert history[0].rationale == "open settings" and history[1].purpose == "open network"
    assert history[1].args == {"x": 10, "y": 20}


def test_missing_semantics_and_missing_args_never_stop_the_loop() -> None:
    steps = [
        PlannedStep("launch_app", {"name": "no id here"}),  # fails in the executor, world unchanged
        PlannedStep("describe_screen", {"remember": "not a mapping"}),
        PlannedStep("describe_screen"),
    ]
    runner = TaskRunner(
        FakeDriver(), ScriptedPlanner(steps, stop_on_failure=False), enricher=ScriptedEnricher()
    )
    result = runner.run("survive")
    assert result.status is TaskStatus.SUCCEEDED
    assert len(result.steps) == 3
    world = result.world
    assert world is not None
    assert (world.current_app, world.current_page, world.variables) == (None, None, {})
    assert [e.success for e in world.history] == [False, True, True]


def test_disabling_restores_the_plain_loop() -> None:
    config = TaskRunnerConfig(world=WorldConfig(enabled=False))
    steps = [PlannedStep("launch_app", {"app_id": "com.a"})]
    enabled = TaskRunner(FakeDriver(), ScriptedPlanner(steps)).run("go")
    disabled = TaskRunner(FakeDriver(), ScriptedPlanner(steps), config=config).run("go")
    assert enabled.world is not None and disabled.world is None
    assert enabled.status == disabled.status == TaskStatus.SUCCEEDED
    assert [r.result.success for r in enabled.steps] == [r.result.success for r in disabled.steps]


@pytest.mark.parametrize(
    ("platform", "settings", "subpage", "subpage_page"),
    [
        ("android", "com.android.settings", "Network & internet", "Settings$NetworkDashboardActivity"),
        ("ios", "com.apple.Preferences", "General", "General"),
    ],
)
def test_settings_sub_page_task_on_the_simulated_device(
    platform: str, settings: str, subpage: str, subpage_page: str
) -> None:
    driver = SimDriver("android" if platform == "android" else "ios")
    steps = [
        PlannedStep("launch_app", {"app_id": settings}),
        PlannedStep("tap", {"text": subpage}),
        PlannedStep("terminate_app", {"app_id": settings}),
    ]
    runner = TaskRunner(driver, ScriptedPlanner(steps))
    snaps = _snapshots(runner)
    result = runner.run("open a settings sub-page")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert snaps[0] == (settings, "Settings", settings, 1)
    assert snaps[1] == (settings, subpage_page, settings, 2)
    current, page, observed, length = snaps[2]
    assert current is None and is_home_screen(observed) and page == "Home screen" and length == 3
    assert driver.current_app() is None
    assert [r.foreground_app for r in result.steps][:2] == [settings, settings]


def test_two_tasks_in_threads_keep_independent_worlds() -> None:
    results = {}
    barrier = threading.Barrier(2)

    def run(name: str, platform: str, app: str) -> None:
        driver = SimDriver("android" if platform == "android" else "ios")
        steps = [PlannedStep("launch_app", {"app_id": app}, rationale=name)] + [
            PlannedStep("describe_screen", {"remember": {"owner": name}}) for _ in range(20)
        ]

        class Synced(ScriptedPlanner):
            def plan(self, **kwargs: object) -> list[PlannedStep]:  # type: ignore[override]
                if self.remaining == 10:
                    barrier.wait(timeout=10)  # both tasks are mid-run at the same time
                return super().plan(**kwargs)  # type: ignore[arg-type]

        results[name] = TaskRunner(driver, Synced(steps)).run(name)

    threads = [
        threading.Thread(target=run, args=("first", "android", "com.android.settings")),
        threading.Thread(target=run, args=("second", "ios", "com.apple.Preferences")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    first, second = results["first"].world, results["second"].world
    assert first is not None and second is not None and first is not second
    assert (first.current_app, first.variables) == ("com.android.settings", {"owner": "first"})
    assert (second.current_app, second.variables) == ("com.apple.Preferences", {"owner": "second"})
    assert all(e.args.get("remember", {"owner": "first"}) == {"owner": "first"} for e in first.history)
    assert all(e.args.get("remember", {"owner": "second"}) == {"owner": "second"} for e in second.history)
