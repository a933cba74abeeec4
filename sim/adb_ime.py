"""The input methods of a simulated Android phone: ``ime``, the secure ``default_input_method``
setting, and the broadcasts uiautomator2's AdbKeyboard answers.

The phone has the stock keyboard (LatinIME, enabled and current) and, unless built without it,
uiautomator2's AdbKeyboard (``com.github.uiautomator/.AdbKeyboard``, from uiautomator2's
``app-uiautomator.apk``), installed but not enabled. What each command prints, from real phones:

- ``ime list -s`` prints the enabled input methods, ``-a`` every installed one, one id per line
  (``adb shell ime list -s`` in senzhk/ADBKeyBoard#66).
- ``ime enable ID`` prints ``Input method ID: now enabled for user #0`` (``already enabled`` the
  second time); a real log shows the pair's other half, ``Input method com.samsung.android.
  honeyboard/.service.HoneyBoardService: now disabled for user #0``. An id that is not installed:
  ``Unknown input method ID cannot be enabled for user #0`` (suyiiyii/AutoGLM-GUI#479).
- ``ime set ID`` prints ``Input method ID selected for user #0`` (the same real log:
  ``Input method com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME
  selected for user #0``); not installed, or installed and not enabled: ``Unknown input method ID
  cannot be selected for user #0`` (senzhk/ADBKeyBoard#66, alexal1/Insomniac#333). Both exit 0.
- ``settings get secure default_input_method`` prints the current id; ``settings put`` prints
  nothing (uiautomator2's ``set_input_ime`` uses both).
- ``am broadcast -a ACTION …`` prints ``Broadcasting: Intent { act=ACTION flg=0x400000 (has
  extras) }`` and ``Broadcast completed: result=0`` when no receiver takes it (senzhk/ADBKeyBoard
  #10 and #67: the keyboard is not the current input method). AdbKeyboard registers its receiver
  only while it is the current input method (``AdbKeyboard.onCreate``), and answers
  ``result=-1`` (``Activity.RESULT_OK``) with ``, data="…"`` when it returns data: its
  ``handleAction`` returns the action's name when there is no input connection (no text field
  has focus), nothing after ``ADB_KEYBOARD_INPUT_TEXT`` typed its base64 UTF-8 ``text`` extra
  (openatx/android-uiautomator-server ``AdbKeyboard.java``); an exception answers ``result=0,
  data="error:…"``. The ``result=-1, data="…"`` format: google-deepmind/android_env's
  ``adb_utils`` tests (``Broadcast completed: result=-1, data="Test data"``).
"""

from __future__ import annotations

import base64
import binascii
import threading

from .device import SimDevice
from .layout import ADB_KEYBOARD, LATIN_IME

__all__ = ["ADB_KEYBOARD", "LATIN_IME", "InputMethods"]

_ACTIONS = (
    "ADB_KEYBOARD_SMART_ENTER",
    "ADB_KEYBOARD_INPUT_TEXT",
    "ADB_KEYBOARD_CLEAR_TEXT",
    "ADB_KEYBOARD_SET_TEXT",
    "ADB_KEYBOARD_INPUT_KEYCODE",
    "ADB_KEYBOARD_EDITOR_CODE",
    "ADB_KEYBOARD_GET_CLIPBOARD",
    "ADB_KEYBOARD_HIDE",
    "ADB_KEYBOARD_SHOW",
)


class InputMethods:
    """The phone's input methods and which one is current (see the module docstring). Which are
    installed and which is current are the device's (``SimDevice.adb_keyboard``,
    ``SimDevice.input_method``: its screen shows the current one's keyboard); which are enabled
    is kept here."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.enabled: list[str] = [LATIN_IME]
        self._lock = threading.Lock()

    @property
    def adb_keyboard(self) -> bool:
        return self.device.adb_keyboard

    @adb_keyboard.setter
    def adb_keyboard(self, installed: bool) -> None:
        self.device.adb_keyboard = installed

    @property
    def current(self) -> str:
        return self.device.input_method

    @current.setter
    def current(self, ime: str) -> None:
        self.device.input_method = ime

    @property
    def installed(self) -> list[str]:
        return [LATIN_IME, ADB_KEYBOARD] if self.adb_keyboard else [LATIN_IME]

    def ime(self, argv: list[str]) -> tuple[str, int]:
        verb, args = (argv[1] if len(argv) > 1 else ""), argv[2:]
        with self._lock:
            if verb == "list":
                shown = self.installed if "-a" in args else self.enabled
                return "".join(f"{i}\n" for i in shown), 0
            ime = args[-1] if args else ""
            if verb in ("enable", "disable"):
                if ime not in self.installed:
                    return f"Unknown input method {ime} cannot be {verb}d for user #0\n", 0
                already = (ime in self.enabled) == (verb == "enable")
                if verb == "enable" and not already:
                    self.enabled.append(ime)
                elif verb == "disable" and not already:
                    self.enabled.remove(ime)
                    if self.current == ime:
                        self.current = self.enabled[0] if self.enabled else LATIN_IME
                state = "already" if already else "now"
                return f"Input method {ime}: {state} {verb}d for user #0\n", 0
            if verb == "set":
                if ime not in self.enabled:
                    return f"Unknown input method {ime} cannot be selected for user #0\n", 0
                self.current = ime
                return f"Input method {ime} selected for user #0\n", 0
        return f"Unknown command: {verb}\n", 255

    def put_default(self, ime: str) -> None:
        """``settings put secure default_input_method ID`` (Android takes an enabled id only)."""
        with self._lock:
            if ime in self.installed:
                if ime not in self.enabled:
                    self.enabled.append(ime)
                self.current = ime

    def broadcast(self, action: str, extras: dict[str, str]) -> str:
        """What ``am broadcast -a ACTION`` prints after the receivers (if any) ran."""
        flags = " (has extras)" if extras else ""
        head = f"Broadcasting: Intent {{ act={action} flg=0x400000{flags} }}\n"
        with self._lock:
            listening = self.current == ADB_KEYBOARD and action in _ACTIONS
        if not listening:
            return head + "Broadcast completed: result=0\n"
        if not self.device.keyboard_shown():  # no input connection: AdbKeyboard returns the action
            return head + f'Broadcast completed: result=-1, data="{action}"\n'
        if action in ("ADB_KEYBOARD_INPUT_TEXT", "ADB_KEYBOARD_SET_TEXT"):
            try:
                text = base64.b64decode(extras.get("text", ""), validate=False).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError) as exc:
                return head + f'Broadcast completed: result=0, data="error:{exc}"\n'
            if action == "ADB_KEYBOARD_SET_TEXT":
                self.device.clear_text()
            if text:
                self.device.type_text(text)
        elif action == "ADB_KEYBOARD_CLEAR_TEXT":
            self.device.clear_text()
        # ADB_KEYBOARD_HIDE hides the keyboard's window while the field keeps its focus; this
        # simulated phone has no "focused, keyboard hidden" state, so it leaves both as they are.
        return head + "Broadcast completed: result=-1\n"


def broadcast_extras(argv: list[str]) -> tuple[str, dict[str, str]]:
    """The action and the string/int extras of ``am broadcast -a ACTION --es K V --ei K N …``."""
    action, extras, k = "", {}, 2
    while k < len(argv):
        flag = argv[k]
        if flag == "-a" and k + 1 < len(argv):
            action, k = argv[k + 1], k + 2
        elif flag in ("--es", "--ei", "--ez") and k + 2 < len(argv):
            extras[argv[k + 1]] = argv[k + 2]
            k += 3
        else:
            k += 1
    return action, extras
