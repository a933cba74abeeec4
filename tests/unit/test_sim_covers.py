"""The simulated phone's covers as a state machine (sim/covers.py): what a touch, a key, a swipe or
a launch does while the lock screen, the shade or a system dialog is up, and the spec that starts
a phone locked."""

from __future__ import annotations

import pytest
from amc.core.errors import AppLaunchFailed, ConfigError, StepArgumentError
from amc.drivers.connect import parse_sim_target
from amc.drivers.frontboard import launch_refusal
from amc.sim.device import SimDevice

SETTINGS = "com.android.settings"


def _ref_at(device: SimDevice, ref: str) -> tuple[float, float]:
    node = next(n for n in device.tree().iter() if n.ref == ref)
    return node.bounds.center


def test_a_locked_android_phone_starts_the_app_behind_its_lock_screen_and_a_swipe_up_unlocks() -> None:
    phone = SimDevice("android")
    phone.lock()
    phone.launch(SETTINGS)
    assert phone.foreground() == SETTINGS and phone.screen_cover() == "keyguard"
    assert {n.package for n in phone.tree().children} == {"com.android.systemui"}  # no app window shows
    phone.press("home")
    assert phone.locked  # home does nothing on the lock screen
    phone.swipe(540, 1900, 540, 480)  # appium-adb's swipe: 4/5 to 1/5 of the height
    assert not phone.locked and phone.foreground() == SETTINGS


def test_the_power_key_locks_and_the_menu_key_unlocks_an_android_phone_without_a_pin() -> None:
    phone = SimDevice("android")
    phone.press("power")
    assert phone.locked
    phone.press("menu")
    assert not phone.locked


def test_an_iphone_refuses_a_launch_while_locked_with_frontboards_reason() -> None:
    phone = SimDevice("ios")
    phone.launch("com.apple.Preferences")
    phone.lock()
    assert phone.app_state("com.apple.Preferences") == 3  # in the background while locked
    with pytest.raises(AppLaunchFailed) as caught:
        phone.launch("com.apple.mobilesafari")
    refusal = launch_refusal(caught.value.message)
    assert refusal is not None and refusal.kind == "locked"
    phone.press("home")  # WebDriverAgent's unlock presses Home
    assert not phone.locked and phone.app_state("com.apple.Preferences") == 4


def test_nothing_under_a_cover_takes_touches_or_typing() -> None:
    phone = SimDevice("android")
    phone.launch("com.example.amc.demo")
    phone.tap(*_ref_at(phone, "widget:username"))
    assert phone.keyboard_shown()
    phone.pull_shade()
    assert not phone.keyboard_shown()  # the field lost its focus under the shade
    phone.type_text("qa")
    assert phone.current_run().values.get("username", "") == ""  # type: ignore[union-attr]
    phone.press("back")
    assert phone.screen_cover() is None and phone.foreground() == "com.example.amc.demo"


def test_a_system_dialog_stays_over_every_app_until_answered() -> None:
    phone = SimDevice("android")
    phone.launch(SETTINGS)
    phone.show_system_dialog("keeps_stopping")
    phone.press("home")
    assert phone.screen_cover() == "crash"  # home leaves it up
    phone.launch("com.android.deskclock")
    assert phone.screen_cover() == "crash" and phone.foreground() == "com.android.deskclock"
    phone.tap(*_ref_at(phone, "sysdialog:close"))  # "Close app" stops the app it names
    assert phone.screen_cover() is None and SETTINGS not in phone.running_apps()


def test_a_system_dialog_and_a_shade_panel_are_asked_for_by_name() -> None:
    with pytest.raises(StepArgumentError, match="iOS shows none"):
        SimDevice("ios").show_system_dialog()
    with pytest.raises(StepArgumentError, match="kind must be one of"):
        SimDevice("android").show_system_dialog("frozen")
    with pytest.raises(StepArgumentError, match="panel must be one of"):
        SimDevice("android").pull_shade("widgets")


def test_a_spec_starts_the_phone_locked_and_a_bad_value_says_what_is_accepted() -> None:
    assert parse_sim_target("sim", "android?locked=true").locked
    target = parse_sim_target("sim+wda", "ios?ios=17&wda=5&locked=false")
    assert not target.locked and target.names_profile
    assert not parse_sim_target("sim", "android?locked=1&id=a").names_profile
    with pytest.raises(ConfigError, match="locked='maybe' is not a boolean"):
        parse_sim_target("sim", "android?locked=maybe")
