"""Typing over uiautomator2: the harness's one AdbKeyboard broadcast, and uiautomator2's own
``send_keys`` against the same simulated phone (what each sends, what lands in the field)."""

from __future__ import annotations

import logging

import adbutils
import pytest
import uiautomator2
from amc.core.errors import TargetNotFound
from amc.core.selectors import Selector
from amc.drivers.u2 import U2Driver
from amc.drivers.u2.ime import ADB_KEYBOARD, AdbKeyboard, broadcast_result
from amc.semantic import enrich_scene, keyboard_visible
from amc.sim.adb_face import AdbFace
from amc.sim.adb_ime import LATIN_IME
from amc.sim.device import SimDevice

from tests.drivers.u2.conftest import SERIAL, DriverFactory

DEMO = "com.example.amc.demo"
TEXTS = ["qa", "你好\uff0c世界", "emoji 😀🔑 ok", "naïve café", "a b\tc"]


def _focus(device: SimDevice, field: str) -> None:
    device.launch(DEMO)
    node = next(n for n in device.tree().iter() if n.ref == f"widget:{field}")
    device.tap(*node.bounds.center)
    assert device.keyboard_shown()


def _values(device: SimDevice) -> dict[str, str]:
    run = device.current_run()
    assert run is not None
    return dict(run.values)


def _commands(face: AdbFace) -> list[str]:
    return [c.removesuffix("; echo X4EXIT:$?") for c in face.phone(SERIAL).shell.history]


@pytest.mark.parametrize("text", TEXTS)
def test_any_text_lands_in_the_field_in_one_broadcast(
    face: AdbFace, driver: U2Driver, device: SimDevice, text: str
) -> None:
    _focus(device, "username")
    driver.type_text("x")  # the first time selects AdbKeyboard
    face.faults.reset_counts()
    driver.type_text(text)
    assert _values(device)["username"] == "x" + text
    assert face.requests("rpc:") == 0 and face.requests("adb:shell") == 1


def test_a_password_field_takes_text_the_same_way(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    _focus(device, "password")
    driver.type_text("s3cr3t ✓")
    assert _values(device)["password"] == "s3cr3t ✓"
    shown = driver.observe().find(Selector(id="password"))
    assert shown is not None and "s3cr3t" not in (shown.text or "")  # the screen shows dots


def test_the_first_time_selects_adbkeyboard_and_close_puts_the_keyboard_back(
    face: AdbFace, make_driver: DriverFactory, device: SimDevice
) -> None:
    _focus(device, "username")
    driver = make_driver().connect()
    face.phone(SERIAL).shell.history.clear()
    driver.type_text("qa")
    sent = _commands(face)
    assert [c.split(" --es ")[0] for c in sent] == [
        "am broadcast -a ADB_KEYBOARD_INPUT_TEXT",  # result=0: nobody listens yet
        f"ime enable {ADB_KEYBOARD}",
        "settings get secure default_input_method",
        f"ime set {ADB_KEYBOARD}",
        "am broadcast -a ADB_KEYBOARD_INPUT_TEXT",  # result=-1: typed
    ]
    assert face.phone(SERIAL).shell.input_methods.current == ADB_KEYBOARD
    driver.close()
    assert _commands(face)[-1] == f"ime set {LATIN_IME}"
    assert face.phone(SERIAL).shell.input_methods.current == LATIN_IME


def test_no_focused_field_is_target_not_found(face: AdbFace, driver: U2Driver, device: SimDevice) -> None:
    device.launch(DEMO)
    assert not device.keyboard_shown()
    with pytest.raises(TargetNotFound, match="no text field has focus") as caught:
        driver.type_text("qa")
    assert caught.value.hint is not None and "tap a text field" in caught.value.hint
    assert _values(device).get("username", "") == ""


@pytest.mark.parametrize("text", ["qa", "你好 😀"])
def test_without_adbkeyboard_typing_goes_through_the_clipboard(
    face: AdbFace, make_driver: DriverFactory, device: SimDevice, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    device.adb_keyboard = False
    _focus(device, "username")
    driver = make_driver().connect()
    face.faults.reset_counts()
    with caplog.at_level(logging.INFO, logger="amc.drivers.u2.ime"):
        driver.type_text(text)
        # the first time: the broadcast nobody took, `ime enable` (Unknown input method), then
        # setClipboard, getClipboard (checked), pasteClipboard
        assert face.requests("adb:shell") == 2 and face.requests("rpc:") == 3
        assert face.faults.count("rpc:setClipboard") == 1 and face.faults.count("rpc:pasteClipboard") == 1
        face.faults.reset_counts()
        driver.type_text("!")  # decided once: no broadcast, no ime, the clipboard at once
        assert face.requests("adb:shell") == 0 and face.requests("rpc:") == 3
    assert _values(device)["username"] == text + "!"
    said = [r for r in caplog.records if "not installed" in r.getMessage()]
    assert len(said) == 1 and "set_input_ime()" in said[0].getMessage()
    assert device.input_method == LATIN_IME  # nothing was switched, nothing to put back
    face.phone(SERIAL).shell.history.clear()
    driver.close()
    assert not [c for c in _commands(face) if c.startswith("ime")]


def test_an_older_android_that_says_unknown_id_falls_back_too() -> None:
    answers = iter(["Broadcast completed: result=0\n", f"Error: Unknown id: {ADB_KEYBOARD}\n"])
    sent: list[list[str]] = []

    def shell(operation: str, args: list[str]) -> str:
        sent.append(args)
        return next(answers)

    keyboard = AdbKeyboard("emulator-5554", shell)
    assert keyboard.type_text("qa") is False and keyboard.installed is False
    assert keyboard.type_text("qa") is False and len(sent) == 2  # asked once


def test_the_keyboard_shown_is_the_current_input_methods_and_counts_as_a_keyboard(
    face: AdbFace, driver: U2Driver, device: SimDevice, adb: adbutils.AdbClient
) -> None:
    _focus(device, "username")
    before = driver.observe()
    assert keyboard_visible(before) and before.foreground_app == DEMO
    driver.type_text("qa")  # AdbKeyboard becomes current: its input view replaces Gboard's
    scene = driver.observe()
    assert device.input_method == ADB_KEYBOARD
    view = scene.find(Selector(id="com.github.uiautomator:id/keyboard"))
    assert view is not None and view.bounds.bottom == device.window_size[1]
    assert keyboard_visible(scene) and scene.foreground_app == DEMO
    seen, now = enrich_scene(before), enrich_scene(scene)  # what the world model is given
    assert seen is not None and now is not None
    assert now.keyboard_visible and now.alert is None and now.page == seen.page
    assert scene.find(Selector(id="com.google.android.inputmethod.latin:id/keyboard_holder")) is None
    windows = str(adb.device(serial=SERIAL).shell("dumpsys window windows"))
    assert "com.github.uiautomator" in windows and "com.google.android.inputmethod.latin" not in windows
    device.hide_keyboard()
    assert not keyboard_visible(driver.observe())


def test_the_broadcast_answers_parse_as_android_prints_them() -> None:
    assert broadcast_result(
        "Broadcasting: Intent { act=X flg=0x400000 }\nBroadcast completed: result=0\n"
    ) == (
        0,
        None,
    )
    assert broadcast_result('Broadcast completed: result=-1, data="ADB_KEYBOARD_INPUT_TEXT"\n') == (
        -1,
        "ADB_KEYBOARD_INPUT_TEXT",
    )
    assert broadcast_result("/system/bin/sh: am: not found") == (None, None)


# --- uiautomator2's own send_keys, through the real client, against the same face ---------------


@pytest.mark.parametrize("text", ["qa", "你好 😀"])
def test_uiautomator2_send_keys_types_through_adbkeyboard_in_four_commands(
    face: AdbFace, u2: uiautomator2.Device, device: SimDevice, text: str
) -> None:
    _focus(device, "username")
    u2.send_keys("x")  # the first time installs nothing (AdbKeyboard is there) and selects it
    face.faults.reset_counts()
    u2.send_keys(text)
    assert _values(device)["username"] == "x" + text
    # ime list -s -a, settings get secure default_input_method, INPUT_TEXT and HIDE broadcasts
    assert face.faults.count("adb:shell:ime") == 1 and face.faults.count("adb:shell:settings") == 1
    assert face.faults.count("adb:shell:am") == 2 and face.requests("rpc:") == 0


def test_uiautomator2_send_keys_into_a_password_field(
    face: AdbFace, u2: uiautomator2.Device, device: SimDevice
) -> None:
    _focus(device, "password")
    u2.send_keys("s3cr3t ✓")
    assert _values(device)["password"] == "s3cr3t ✓"


def test_uiautomator2_send_keys_without_adbkeyboard_uses_the_clipboard_in_four_requests(
    face: AdbFace, u2: uiautomator2.Device, device: SimDevice
) -> None:
    device.adb_keyboard = False
    _focus(device, "username")
    u2.send_keys("x")  # starts the uiautomator2 server
    face.faults.reset_counts()
    u2.send_keys("你好")
    assert _values(device)["username"] == "x你好"
    # ime list -s -a (AdbKeyboard not listed), then setClipboard, getClipboard, pasteClipboard
    assert face.faults.count("adb:shell:ime") == 1 and face.requests("adb:shell") == 1
    assert face.requests("rpc:") == 3 and face.faults.count("rpc:pasteClipboard") == 1


def test_a_keyboard_that_binds_to_the_field_late_is_waited_for_a_few_times() -> None:
    answers = iter(
        [
            "Broadcast completed: result=0\n",  # nobody listens: AdbKeyboard is not current
            "null\n",  # settings get secure default_input_method
            f"Input method {ADB_KEYBOARD}: now enabled for user #0\n",
            f"Input method {ADB_KEYBOARD} selected for user #0\n",
            'Broadcast completed: result=-1, data="ADB_KEYBOARD_INPUT_TEXT"\n',  # not bound yet
            "Broadcast completed: result=-1\n",  # typed
        ]
    )
    sent: list[list[str]] = []

    def shell(operation: str, args: list[str]) -> str:
        sent.append(args)
        return next(answers)

    AdbKeyboard("emulator-5554", shell, poll=0.0).type_text("qa")
    assert [a[:2] for a in sent].count(["am", "broadcast"]) == 3
    assert sent[-1][-1] == "cWE="  # the same broadcast, base64 of the UTF-8 text


def test_adbkeyboard_answering_without_a_field_is_target_not_found_at_once() -> None:
    sent: list[list[str]] = []

    def shell(operation: str, args: list[str]) -> str:
        sent.append(args)
        return 'Broadcast completed: result=-1, data="ADB_KEYBOARD_INPUT_TEXT"\n'

    keyboard = AdbKeyboard("emulator-5554", shell, attempts=3, poll=0.0)
    with pytest.raises(TargetNotFound):
        keyboard.type_text("qa")
    assert len(sent) == 1  # AdbKeyboard is current and said so: nothing to select, nothing repeated
