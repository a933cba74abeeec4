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
  Then, once per driver, the previous input method is read (``settings get secure
  default_input_method``), AdbKeyboard enabled and selected (``ime enable``, ``ime set``; "Unknown
  input method … cannot be …" means it is not installed: :class:`~core.errors.DeviceError`) and
  the broadcast sent again, at most :data:`ATTEMPTS` times while the new keyboard starts and binds
  to the focused field (a broadcast nobody received, or received without an input connection,
  typed nothing, so repeating it cannot type twice). ``restore()`` (on
  close) selects the previous input method again, as uiautomator2 does not;
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

__all__ = ["ADB_KEYBOARD", "ATTEMPTS", "AdbKeyboard", "broadcast_result"]

log = logging.getLogger(__name__)

ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"
INPUT_TEXT = "ADB_KEYBOARD_INPUT_TEXT"
ATTEMPTS = 5  # broadcasts right after selecting AdbKeyboard, POLL seconds apart
POLL = 0.2
_RESULT = re.compile(r'Broadcast completed: result=(-?\d+)(?:, data="(.*?)")?')
_INSTALL_HINT = (
    "install it with uiautomator2 (it ships in its app-uiautomator.apk): "
    "python -c \"import uiautomator2; uiautomator2.connect('{serial}').set_input_ime()\""
)

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

    def type_text(self, text: str) -> None:
        payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
        with self._lock:
            output = self._broadcast(payload)
            code, data = broadcast_result(output)
            if code != -1 and data is None and not self._switched:
                self._make_current()
                for attempt in range(self._attempts):
                    if attempt:
                        time.sleep(self._poll)
                    output = self._broadcast(payload)
                    code, data = broadcast_result(output)
                    if (code == -1 and data != INPUT_TEXT) or (data or "").startswith("error:"):
                        break  # typed, or failed: answered either way
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

    def _broadcast(self, payload: str) -> str:
        return self._shell("type_text", ["am", "broadcast", "-a", INPUT_TEXT, "--es", "text", payload])

    def _make_current(self) -> None:
        previous = self._shell("type_text", ["settings", "get", "secure", "default_input_method"]).strip()
        for verb in ("enable", "set"):
            said = self._shell("type_text", ["ime", verb, ADB_KEYBOARD]).strip()
            if said.startswith("Unknown input method"):
                raise DeviceError(
                    f"type_text on {self.serial}: uiautomator2's input method AdbKeyboard "
                    f"({ADB_KEYBOARD}) is not installed: {said[:200]}",
                    hint=_INSTALL_HINT.format(serial=self.serial),
                )
        log.info("type_text on %s: AdbKeyboard selected (was %s)", self.serial, previous or "unset")
        self._switched = True
        if previous and previous not in ("null", ADB_KEYBOARD):
            self._previous = previous

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
