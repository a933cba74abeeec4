"""The simulated device's state machine: apps, screens, taps, typing, alerts, keyboard, scrolling."""

from __future__ import annotations

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import AppNotInstalled, StepArgumentError
from amc.core.selectors import Selector, tap_point
from amc.sim import DEMO_APP, DEMO_PASSWORD, DEMO_USER, SimDevice


def _tap_text(driver: SimDriver, text: str, **kw: object) -> None:
    scene = driver.observe()
    el = scene.find(Selector(text=text, **kw))  # type: ignore[arg-type]
    assert el is not None, scene.texts()
    driver.tap(*tap_point(el, scene.window))


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_installed_apps_have_real_ids(platform: str) -> None:
    device = SimDevice("android" if platform == "android" else "ios")
    expected = {"android": {"com.android.settings", DEMO_APP}, "ios": {"com.apple.Preferences", DEMO_APP}}
    assert expected[platform] <= set(device.installed_apps())
    assert device.foreground() == device.launcher


def test_unknown_app_is_not_installed_and_nothing_changes() -> None:
    device = SimDevice("android")
    device.launch("com.android.settings")
    with pytest.raises(AppNotInstalled, match=r"com\.nope"):
        device.launch("com.nope")
    assert device.foreground() == "com.android.settings"


def test_launcher_icon_tap_launches_the_app() -> None:
    driver = SimDriver("android")
    _tap_text(driver, "Settings")
    assert driver.current_app() == "com.android.settings"


def test_back_and_home_navigate_and_resume_keeps_the_stack() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    _tap_text(driver, "Display")
    driver.press("home")
    assert driver.current_app() is None
    driver.launch_app("com.android.settings")  # resumes where it was
    assert "Dark theme" in driver.observe().texts()
    driver.press("back")
    assert "Network & internet" in driver.observe().texts()
    driver.press("back")
    assert driver.current_app() is None


def test_switch_rows_toggle() -> None:
    driver = SimDriver("ios")
    driver.launch_app("com.apple.Preferences")
    scene = driver.observe()
    switch = scene.find(Selector(type="Switch", label="Airplane Mode"))
    assert switch is not None and switch.checked is False
    driver.tap(*tap_point(switch, scene.window))
    after = driver.observe().find(Selector(type="Switch", label="Airplane Mode"))
    assert after is not None and after.checked is True and after.value == "1"


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_demo_login_succeeds_with_the_right_password_and_alerts_otherwise(platform: str) -> None:
    driver = SimDriver("android" if platform == "android" else "ios")
    driver.launch_app(DEMO_APP)

    def sign_in(password: str) -> None:
        for key, value in (("username", DEMO_USER), ("password", password)):
            scene = driver.observe()
            field = scene.find(Selector(id=key))
            assert field is not None
            driver.tap(*tap_point(field, scene.window))
            driver.device.clear_text()
            driver.type_text(value)
        _tap_text(driver, "Sign in")

    sign_in("wrong")
    scene = driver.observe()
    assert "Invalid username or password." in scene.texts()
    assert "wrong" not in str(scene.to_dict())  # the password field shows dots, never the text
    _tap_text(driver, "OK")
    sign_in(DEMO_PASSWORD)
    assert f"Signed in as {DEMO_USER}" in driver.observe().texts()


def test_focused_field_shows_a_keyboard_that_enter_hides() -> None:
    driver = SimDriver("ios")
    driver.launch_app(DEMO_APP)
    scene = driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    driver.tap(*tap_point(field, scene.window))
    assert driver.observe().find(Selector(type="Keyboard")) is not None
    driver.press("enter")
    assert driver.observe().find(Selector(type="Keyboard")) is None


def test_long_lists_scroll_and_off_screen_rows_leave_the_android_tree() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    assert driver.observe().find(Selector(text="System")) is None  # below the fold, recycled
    driver.swipe(540, 2000, 540, 600)
    scene = driver.observe()
    assert scene.find(Selector(text="System")) is not None
    assert scene.find(Selector(text="Network & internet")) is None


def test_ios_keeps_off_screen_cells_as_invisible() -> None:
    driver = SimDriver("ios")
    driver.launch_app("com.apple.Preferences")
    scene = driver.observe()
    hidden = scene.find(Selector(text="Calendar", visible=False))
    assert hidden is not None and not hidden.visible


def test_keys_are_checked_per_platform() -> None:
    with pytest.raises(StepArgumentError, match="supported"):
        SimDriver("ios").press("back")
    with pytest.raises(StepArgumentError, match="supported"):
        SimDriver("android").press("warp")
