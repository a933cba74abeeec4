"""What covers the apps is world state, on every rig and profile, through ``connect()`` and the real
client libraries: the lock screen, the pulled-down shade (iOS: Notification Center), a system
dialog (Android's "X isn't responding").

A locked phone names no app in front and refuses a launch as ``DeviceOffline`` that says to unlock
it; the shade and a system dialog over the app leave it the app in front (as a permission prompt
does); the Scene and the world model name each cover, and the phone is usable again once it is
gone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from amc.core.errors import DeviceOffline
from amc.core.models import PlannedStep
from amc.core.selectors import Selector, tap_point
from amc.core.steps import StepRecord
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskStatus
from amc.semantic.enricher import enrich_scene
from amc.sim.device import SimDevice

from tests.contract.rigs import APPS, Rig, all_rigs, build_rig

# Android's system dialogs have no iOS counterpart: their tests run on the Android rigs only.
_ANDROID = [r for r in all_rigs() if r.platform == "android"]

FRONT = {"android": "com.android.systemui", "ios": "com.apple.springboard"}


@pytest.fixture(params=_ANDROID, ids=[r.id for r in _ANDROID])
def android_rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    with build_rig(request.param) as built:
        yield built


SHADE = {"android": "Notification shade", "ios": "Notification Center or Control Center"}


def test_a_locked_phone_names_no_app_and_refuses_a_launch_until_it_is_unlocked(
    rig: Rig, apps: dict[str, str]
) -> None:
    rig.driver.launch_app(apps["settings"])
    rig.device.lock()
    assert rig.driver.current_app() is None  # not Settings, which is still behind the lock screen
    with pytest.raises(DeviceOffline) as caught:
        rig.driver.launch_app(apps["second"])
    assert caught.value.state == "locked" and "unlock the phone" in str(caught.value)
    rig.device.unlock()
    rig.driver.launch_app(apps["second"])
    assert rig.driver.current_app() == apps["second"]


def _cover(device: SimDevice, kind: str) -> None:
    if kind == "lock":
        device.lock()
    elif kind == "shade":
        device.pull_shade()
    else:
        device.show_system_dialog("not_responding")


@pytest.mark.parametrize("kind", ["lock", "shade"])
def test_the_scene_and_the_world_model_name_the_cover(rig: Rig, apps: dict[str, str], kind: str) -> None:
    _names_the_cover(rig, apps, kind)


def test_the_scene_and_the_world_model_name_a_system_dialog(android_rig: Rig) -> None:
    _names_the_cover(android_rig, APPS["android"], "dialog")


def _names_the_cover(rig: Rig, apps: dict[str, str], kind: str) -> None:
    platform = rig.device.platform
    expected = {
        "lock": ("Lock screen", "keyguard", FRONT[platform]),
        "shade": (SHADE[platform], "shade", FRONT[platform]),
        "dialog": ("Settings isn't responding", "anr", apps["settings"]),
    }[kind]
    seen: list[tuple[str | None, str | None]] = []

    def listen(record: StepRecord, context: TaskContext) -> None:
        assert context.world is not None
        seen.append((context.world.overlay, context.world.observed_app))
        if len(seen) == 1:
            _cover(rig.device, kind)  # between the launch and the next step

    steps = [
        PlannedStep("launch_app", {"app_id": apps["settings"]}),
        PlannedStep("press", {"key": "volume_up"}),  # changes nothing, under any cover
    ]
    result = TaskRunner(rig.driver, ScriptedPlanner(steps), listeners=[listen]).run("look at the cover")
    assert result.status is TaskStatus.SUCCEEDED, result.error
    assert seen[0] == (None, apps["settings"])
    assert seen[1] == (expected[0], expected[2])
    scene = rig.driver.observe()
    semantic = enrich_scene(scene)
    assert semantic is not None and (semantic.alert, semantic.cover) == expected[:2]
    assert scene.foreground_app == expected[2]


def test_the_shade_over_the_app_leaves_it_the_app_in_front_until_it_is_closed(
    rig: Rig, apps: dict[str, str]
) -> None:
    rig.driver.launch_app(apps["settings"])
    rig.device.pull_shade()
    assert rig.driver.current_app() == apps["settings"]  # under the shade, not behind a lock
    rig.driver.press("home" if rig.device.platform == "ios" else "back")  # closes it
    semantic = enrich_scene(rig.driver.observe())
    assert rig.device.screen_cover() is None and (semantic is None or semantic.cover is None)


def test_a_system_dialog_is_answered_by_tapping_wait(android_rig: Rig) -> None:
    rig, apps = android_rig, APPS["android"]
    rig.driver.launch_app(apps["settings"])
    rig.device.show_system_dialog("not_responding", "com.android.systemui")
    assert rig.driver.current_app() == apps["settings"]
    scene = rig.driver.observe()
    semantic = enrich_scene(scene)
    assert semantic is not None and semantic.alert == "System UI isn't responding"
    wait = scene.find(Selector(text="Wait"))
    assert wait is not None and wait.identifier == "android:id/aerr_wait"
    rig.driver.tap(*tap_point(wait, scene.window))
    assert rig.device.screen_cover() is None
    after = enrich_scene(rig.driver.observe())
    assert after is not None and after.alert is None and after.app == apps["settings"]
