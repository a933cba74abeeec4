"""Locking the simulated phone, pulling its shade and showing a system dialog, through each face
with the real client libraries (adbutils, uiautomator2, facebook-wda, Appium-Python-Client), and
what each face then answers: the lines real phones print (``tests/fixtures/real``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import adbutils
import pytest
import uiautomator2
import wda
from amc.drivers.appium import options_for
from amc.sim.adb_face import AdbFace
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.profiles import AndroidProfile
from amc.sim.wda_face import WdaFace
from appium import webdriver

SERIAL = "emulator-5554"
SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
FOCUS = re.compile(r"mCurrentFocus=Window\{[0-9a-f]+ u0 ([^}]*)\}")


@pytest.fixture(params=[29, 34])
def adb_phone(request: pytest.FixtureRequest) -> Iterator[tuple[SimDevice, adbutils.AdbDevice]]:
    device = SimDevice("android", SERIAL, profile=AndroidProfile(request.param))
    with AdbFace([device]) as face:
        yield device, adbutils.AdbClient(host=face.host, port=face.port).device(serial=SERIAL)


def test_adb_locks_with_the_power_key_and_unlocks_with_wm_dismiss_keyguard(
    adb_phone: tuple[SimDevice, adbutils.AdbDevice],
) -> None:
    device, adb = adb_phone
    adb.shell(["am", "start", "-W", "-n", "com.android.settings/.Settings"])
    adb.shell("input keyevent 26")  # KEYCODE_POWER
    assert device.locked
    displays = adb.shell("dumpsys window displays")
    window = "NotificationShade" if device.profile.api >= 30 else "StatusBar"  # type: ignore[union-attr]
    assert FOCUS.findall(displays) == [window]  # the focus on SystemUI's window, the app behind it
    assert re.search(r"mFocusedApp=.*com\.android\.settings/\.Settings", displays)
    flag = "isKeyguardShowing=true" if device.profile.api >= 30 else "isStatusBarKeyguard=true"  # type: ignore[union-attr]
    assert flag in displays and "mDreamingLockscreen=true" in displays
    policy = adb.shell("dumpsys window policy")
    assert re.search(r"KeyguardStateMonitor\s+mIsShowing=true", policy) and "mInputRestricted=true" in policy
    adb.shell("wm dismiss-keyguard")  # appium-adb's dismissKeyguard, API 22+
    assert not device.locked and FOCUS.findall(adb.shell("dumpsys window displays")) == [
        "com.android.settings/com.android.settings.Settings"
    ]


def test_adb_pulls_the_shade_with_cmd_statusbar_and_uiautomator_dumps_it(
    adb_phone: tuple[SimDevice, adbutils.AdbDevice],
) -> None:
    device, adb = adb_phone
    adb.shell("cmd statusbar expand-notifications")
    assert device.screen_cover() == "shade"
    assert "isKeyguardShowing=true" not in adb.shell("dumpsys window displays")
    u2 = uiautomator2.Device(adb)
    try:
        xml = u2.dump_hierarchy()
    finally:
        u2.stop_uiautomator(wait=False)
    assert 'resource-id="com.android.systemui:id/notification_stack_scroller"' in xml
    assert 'content-desc="Internet,AndroidWifi"' in xml
    adb.shell("cmd statusbar collapse")
    assert device.screen_cover() is None


def test_a_system_dialog_is_the_focused_window_and_its_dump_is_the_real_one(
    adb_phone: tuple[SimDevice, adbutils.AdbDevice],
) -> None:
    device, adb = adb_phone
    adb.shell(["am", "start", "-W", "-n", "com.android.settings/.Settings"])
    device.show_system_dialog("not_responding", "com.android.systemui")
    assert FOCUS.findall(adb.shell("dumpsys window displays")) == [
        "Application Not Responding: com.android.systemui"
    ]
    u2 = uiautomator2.Device(adb)
    try:
        xml = u2.dump_hierarchy()
    finally:
        u2.stop_uiautomator(wait=False)
    # the frame, title and buttons of a real "System UI isn't responding" dump on 1080x2400
    assert re.search(r'package="android"[^>]*bounds="\[28,943\]\[1052,1457\]"', xml)
    assert 'text="System UI isn\'t responding" resource-id="android:id/alertTitle"' in xml
    assert 'text="Wait" resource-id="android:id/aerr_wait"' in xml
    adb.shell("input keyevent 4")  # back: wait
    assert device.screen_cover() is None


def test_webdriveragent_locks_reports_springboard_and_refuses_a_launch() -> None:
    with WdaFace(SimDevice("ios")) as face:
        client = wda.Client(face.url)
        session = client.session()
        session.app_activate(SETTINGS["ios"])
        client.lock()
        assert client.locked() is True and face.device.locked
        assert client.app_current()["bundleId"] == "com.apple.springboard"
        assert session.app_state(SETTINGS["ios"])["value"] == 3  # in the background while locked
        with pytest.raises(wda.WDAError, match="for reason: Locked"):
            session.app_activate("com.apple.mobilesafari")
        client.unlock()
        assert client.locked() is False and client.app_current()["bundleId"] == SETTINGS["ios"]


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_appium_locks_and_unlocks_through_its_python_client(platform: str) -> None:
    with AppiumFace(SimDevice("android" if platform == "android" else "ios")) as face:
        options = options_for("android" if platform == "android" else "ios", udid=face.device.device_id)
        driver = webdriver.Remote(face.url, options=options)
        try:
            driver.activate_app(SETTINGS[platform])
            assert driver.is_locked() is False
            driver.lock()
            assert driver.is_locked() is True and face.device.locked
            driver.unlock()
            assert driver.is_locked() is False and not face.device.locked
        finally:
            driver.quit()
