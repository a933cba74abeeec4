"""Real outputs of covered phones, played back by the adb face to uiautomator2 and adbutils through
the U2Driver (sources: tests/fixtures/real/PROVENANCE.md): a phone whose window manager focuses the
lock screen names no app in front and refuses a launch as ``DeviceOffline``; the shade or a system
dialog over the app leaves it the app in front. One more command, ``dumpsys window policy``, only
when the dump does not say whether the keyguard is up."""

from __future__ import annotations

import pytest
from amc.core.errors import DeviceOffline
from amc.sim.replay import Reply

from tests.contract.real import real_text
from tests.contract.test_real_android import DISPLAYS, STARTED, _start, replayed, shell

POLICY = "dumpsys window policy"
HONOR = "honor-alt-nx1-a15-dumpsys-window-screen-off-notificationshade-focusedapp.txt"
PIXEL7 = "pixel7-dumpsys-window-notificationshade-focusedapp-behind.txt"
LOCKED_POLICY = "appium-adb-dumpsys-window-keyguardstatemonitor-showing-input-restricted.txt"
UNLOCKED_POLICY = "appium-adb-dumpsys-window-mShowingLockscreen-false-line.txt"


def test_a_locked_honor_with_its_screen_off_names_no_app_and_refuses_the_launch() -> None:
    """The dump says it all (mAwake=false): no second command."""
    replies = {DISPLAYS: shell(HONOR), _start("com.android.settings"): shell(STARTED)}
    with replayed(replies) as (driver, faults, _):
        assert driver.current_app() is None  # not Settings, named by mFocusedApp behind the lock
        with pytest.raises(DeviceOffline) as caught:
            driver.launch_app("com.android.settings")
        assert caught.value.state == "locked" and "unlock the phone" in str(caught.value)
        assert faults.count("adb:shell:dumpsys") == 2  # current_app's and the launch's check


@pytest.mark.parametrize(
    ("policy", "locked"), [(LOCKED_POLICY, True), (UNLOCKED_POLICY, False)], ids=["locked", "shade"]
)
def test_a_pixel_focused_on_notificationshade_asks_the_policy_once_whether_it_is_locked(
    policy: str, locked: bool
) -> None:
    app = "com.flow.mobile.debug"
    replies = {
        DISPLAYS: shell(PIXEL7),
        _start(app): shell(STARTED),
        POLICY: Reply.text(real_text(f"android/{policy}")),
    }
    with replayed(replies) as (driver, faults, _):
        assert driver.current_app() is None  # the dump cannot tell the lock screen from the shade
        faults.reset_counts()
        if locked:
            with pytest.raises(DeviceOffline, match="the phone is locked"):
                driver.launch_app(app)
        else:
            driver.launch_app(app)  # the shade is down over it: the app is the one in front
        assert faults.count("adb:shell:dumpsys") == 2  # the focus, then the policy, once


def test_an_anr_dialog_over_the_app_leaves_it_the_app_in_front() -> None:
    app = "com.monyvi.app"
    replies = {
        DISPLAYS: shell("emulator-dumpsys-window-launcher-anr-over-devmenu.txt"),
        _start(app): shell(STARTED),
    }
    with replayed(replies) as (driver, faults, _):
        assert driver.current_app() == app
        driver.launch_app(app)
        assert faults.count("adb:shell:dumpsys") == 2  # no policy asked: a dialog is not a lock
