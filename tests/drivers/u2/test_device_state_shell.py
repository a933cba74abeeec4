"""The adb face's answers to the device-state shell commands, through the real adbutils and
uiautomator2 clients: the words real phones print (sim/adb_state.py cites each), and the state they
change on the phone."""

from __future__ import annotations

import adbutils
import uiautomator2
from amc.sim.device import SimDevice
from PIL import Image

from .conftest import SERIAL


def test_settings_and_cmd_answer_as_an_emulator_does(adb: adbutils.AdbClient, device: SimDevice) -> None:
    phone = adb.device(serial=SERIAL)
    assert phone.shell("cmd connectivity airplane-mode") == "disabled"
    assert phone.shell("cmd connectivity airplane-mode enable") == ""
    assert device.airplane and phone.shell("cmd connectivity airplane-mode") == "enabled"
    assert phone.shell("settings get global airplane_mode_on") == "1"
    assert phone.shell("cmd uimode night") == "Night mode: no"
    assert phone.shell("cmd uimode night yes") == "Night mode: yes"  # it prints the mode it set
    assert device.dark and phone.shell("settings get secure ui_night_mode") == "2"
    wrong = phone.shell2("cmd uimode night maybe")
    assert wrong.returncode == 255 and "Error: mode must be 'yes', 'no', or 'auto'" in wrong.output
    phone.shell("settings put system accelerometer_rotation 0")
    phone.shell("settings put system user_rotation 1")
    assert device.orientation == "landscape_left"
    assert phone.shell("settings get system user_rotation") == "1"
    assert phone.shell("wm size") == "Physical size: 1080x2400"  # the panel, whichever way it turns
    assert "orientation=1," in phone.shell("dumpsys display")


def test_a_pushed_picture_joins_the_gallery_once_the_media_scanner_hears_of_it(
    adb: adbutils.AdbClient, device: SimDevice, tmp_path: object
) -> None:
    phone = adb.device(serial=SERIAL)
    Image.new("RGB", (4, 4), (1, 2, 3)).save(f"{tmp_path}/cat.png")
    phone.sync.push(f"{tmp_path}/cat.png", "/sdcard/Pictures/cat.png")
    assert device.gallery() == {}
    said = phone.shell(
        "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///sdcard/Pictures/cat.png"
    )
    assert said.splitlines() == [
        "Broadcasting: Intent { act=android.intent.action.MEDIA_SCANNER_SCAN_FILE "
        "dat=file:///sdcard/Pictures/cat.png flg=0x400000 }",
        "Broadcast completed: result=0",
    ]
    assert list(device.gallery()) == ["cat.png"]


def test_uiautomator2s_own_orientation_turns_the_phone(u2: uiautomator2.Device, device: SimDevice) -> None:
    u2.set_orientation("right")
    assert device.orientation == "landscape_right" and u2.orientation == "right"
    assert u2.window_size() == (2400, 1080)
    u2.set_orientation("natural")
    assert device.orientation == "portrait" and u2.window_size() == (1080, 2400)
