"""Typing through uiautomator2's input method, AdbKeyboard: one broadcast per ``type_text``.

uiautomator2 3.7.1's ``Device.send_keys`` costs four commands: ``ime list -s -a`` (is AdbKeyboard
installed?), ``settings get secure default_input_method`` (is it current?), then the broadcasts
``ADB_KEYBOARD_INPUT_TEXT`` and ``ADB_KEYBOARD_HIDE``; without AdbKeyboard it falls back to the
clipboard (``setClipboard``, ``getClipboard`` to check it, ``pasteClipboard``). The harness sends
the ``ADB_KEYBOARD_INPUT_TEXT`` broadcast alone and reads its answer, which already says all it
needs (openatx/android-uiautomator-server ``AdbKeyboard.java``; the simulated phone answers the
same, :mod:`sim.adb_ime`):

- ``Broadcast completed: result=-1``: AdbKeyboard committed the text to the focused field
  (``InputConnection.commitText``: at the cursor, like typing; password fields too; any Unicode,
  since the text travels as base64 UTF-8);
- ``result=-1, data="ADB_KEYBOARD_INPUT_TEXT"``: AdbKeyboard has no input connection, i.e. no
  text field has focus: :class:`~core.errors.TargetNotFound`;
- ``result=0`` and no data: no receiver took it, AdbKeyboard is not the current input method.
  Then, once per driver, AdbKeyboard is enabled (``ime enable``), the previous input method read
  (``settings get secure default_input_method``) and AdbKeyboard selected (``ime set``), and the
  broadcast sent again, at most :data:`ATTEMPTS` times while the new keyboard starts and binds
  to the focused field (a broadcast nobody received, or received without an input connection,
  typed nothing, so repeating it cannot type twice). ``restore()`` (on close) selects the
  previous input method again, as uiautomator2 does not;
- AdbKeyboard not installed: ``ime enable`` (or ``ime set``) answers that it does not know the id
  (``Unknown input method ID cannot be enabled for user #0`` since Android 9's shell command;
  ``Error: Unknown id: ID`` from the older ``ime`` tool, whose ``IllegalArgumentException`` it
  printed). Then :meth:`AdbKeyboard.type_text` returns False, now and for the rest of the
  driver's life without asking again (logged once), and the driver types through the clipboard
  as uiautomator2 does without its keyboard;
- ``result=0, data="error:…"``: AdbKeyboard failed: :class:`~core.errors.DeviceError`.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
import time
from collections.abc import Callable

from ...core.errors import DeviceError, HarnessError, TargetNotFound

__all__ = ["ADB_KEYBOARD", "ATTEMPTS", "INSTALL_HINT", "AdbKeyboard", "broadcast_result"]

log = logging.getLogger(__name__)

ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"
INPUT_TEXT = "ADB_KEYBOARD_INPUT_TEXT"
ATTEMPTS = 5  # broadcasts right after selecting AdbKeyboard, POLL seconds apart
POLL = 0.2
INSTALL_HINT = (
    "install uiautomator2's AdbKeyboard (it ships in its app-uiautomator.apk) for one request a call: "
    "python -c \"import uiautomator2; uiautomator2.connect('{serial}').set_input_ime()\""
)
_RESULT = re.compile(r'Broadcast completed: result=(-?\d+)(?:, data="(.*?)")?')
# What ``ime enable``/``ime set`` print for an id the phone does not have (see the docstring).
_UNKNOWN = ("Unknown input method", "Unknown id")

Shell = Callable[[str, list[str]], str]


def broadcast_result(output: str) -> tuple[int | None, str | None]:
    """The result code and data ``am broadcast`` printed (None, None when it printed neither)."""
    found = _RESULT.search(output)
    if found is None:
        return None, None
    return int(found.group(1)), found.group(2)


class AdbKeyboard:
    """``type_text`` for one phone through AdbKeyboard (see the module docstring)."""

    def __init__(self, serial: str, shell: Shell, *, attempts: int = ATTEMPTS, poll: float = POLL) -> None:
        self.serial = serial
        self._shell = shell
        self._attempts = attempts
        self._poll = poll
        self._lock = threading.Lock()
        self._switched = False
        self._previous: str | None = None
        self.installed: bool | None = None  # None until a type_text found out

    def type_text(self, text: str) -> bool:
        """Type ``text`` into the focused field; False (nothing sent) when AdbKeyboard is not
        installed, so the caller types another way."""
        payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
        with self._lock:
            if self.installed is False:
                return False
            output = self._broadcast(payload)
            code, data = broadcast_result(output)
            if code != -1 and data is None and not self._switched:
                if not self._make_current():
                    return False
                for attempt in range(self._attempts):
                    if attempt:
                        time.sleep(self._poll)
                    output = self._broadcast(payload)
                    code, data = broadcast_result(output)
                    if (code == -1 and data != INPUT_TEXT) or (data or "").startswith("error:"):
                        break  # typed, or failed: answered either way
            self.installed = True
        if code == -1 and data == INPUT_TEXT:
            raise TargetNotFound(
                f"type_text on {self.serial}: no text field has focus, so nothing takes the text",
                hint="tap a text field first (a field that shows no keyboard takes no text)",
            )
        if code != -1:
            said = output.strip().splitlines()[-1] if output.strip() else "nothing"
            raise DeviceError(
                f"type_text on {self.serial}: AdbKeyboard did not take the text ({said[:200]})",
                hint="check that AdbKeyboard is the current input method: "
                "adb shell settings get secure default_input_method",
            )
        return True

    def _broadcast(self, payload: str) -> str:
        return self._shell("type_text", ["am", "broadcast", "-a", INPUT_TEXT, "--es", "text", payload])

    def _make_current(self) -> bool:
        """Enable and select AdbKeyboard, remembering the current input method; False when the
        phone does not have AdbKeyboard (call with the lock held)."""
        said = self._shell("type_text", ["ime", "enable", ADB_KEYBOARD]).strip()
        if not self._knows(said):
            return False
        previous = self._shell("type_text", ["settings", "get", "secure", "default_input_method"]).strip()
        said = self._shell("type_text", ["ime", "set", ADB_KEYBOARD]).strip()
        if not self._knows(said):
            return False
        log.info("type_text on %s: AdbKeyboard selected (was %s)", self.serial, previous or "unset")
        self._switched = True
        if previous and previous not in ("null", ADB_KEYBOARD):
            self._previous = previous
        return True

    def _knows(self, said: str) -> bool:
        """False (and remembered, logged once) when ``ime`` says it has no AdbKeyboard."""
        if not any(marker in said for marker in _UNKNOWN):
            return True
        self.installed = False
        log.warning(
            "type_text on %s: uiautomator2's input method AdbKeyboard is not installed (%s); typing "
            "through the clipboard (3 requests a call instead of 1). To %s",
            self.serial,
            said[:200],
            INSTALL_HINT.format(serial=self.serial),
        )
        return False

    def restore(self) -> None:
        """Select the input method that was current before AdbKeyboard (best effort)."""
        with self._lock:
            previous, self._previous = self._previous, None
            self._switched = False
        if previous is None:
            return
        try:
            self._shell("close", ["ime", "set", previous])
        except HarnessError as exc:
            log.info("could not restore the input method %s on %s: %s", previous, self.serial, exc)
