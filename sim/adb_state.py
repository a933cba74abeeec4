"""The simulated Android phone's shell commands for its own settings (:mod:`sim.device_state`):
rotation, airplane mode, night mode and the media scanner, each answered as the real command
answers on an emulator of API 28 or later.

- ``settings put system user_rotation N`` turns the screen (0 portrait, 1 landscape, 2 upside
  down, 3 the other landscape: ``Surface.ROTATION_*``), as Maestro's AndroidDriver turns it after
  ``settings put system accelerometer_rotation 0``; ``settings get`` answers the current values
  (``user_rotation``, ``accelerometer_rotation``, ``global airplane_mode_on``, ``secure
  ui_night_mode``: 1 no, 2 yes, as ``UiModeManager.MODE_NIGHT_*``).
- ``cmd connectivity airplane-mode`` prints ``enabled`` or ``disabled`` and ``… enable|disable``
  prints nothing (ConnectivityService's shell command; a real reply, "adb shell cmd connectivity
  airplane-mode" → "disabled", is quoted in Maestro's AndroidDriver, which reads these two words).
- ``cmd uimode night`` prints ``Night mode: yes|no``, also after ``night yes|no`` sets it
  (``UiModeManagerService.Shell.handleNightMode`` prints the current mode in both cases); another
  word is its error ``Error: mode must be 'yes', 'no', or 'auto'`` with exit code 255 (-1).
- ``am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://PATH`` adds the pushed
  file at PATH to the gallery and prints am's two lines (``Broadcasting: Intent { … }``,
  ``Broadcast completed: result=0``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .adb_result import ShellResult

if TYPE_CHECKING:
    from .adb_shell import AndroidShell

__all__ = ["SCAN_FILE", "state_am", "state_cmd", "state_settings"]

SCAN_FILE = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"
_ORIENTATION_BY_ROTATION = ("portrait", "landscape_left", "upside_down", "landscape_right")


def _ok(text: str, code: int = 0) -> ShellResult:
    return ShellResult(text.encode("utf-8"), code)


def state_settings(shell: AndroidShell, argv: list[str]) -> ShellResult | None:
    """``settings get|put`` of the keys the device keeps itself; None for any other."""
    device = shell.device
    if len(argv) < 4 or argv[1] not in ("get", "put"):
        return None
    key = (argv[2], argv[3])
    values = {
        ("system", "user_rotation"): str(device.rotation),
        ("system", "accelerometer_rotation"): "0",
        ("global", "airplane_mode_on"): "1" if device.airplane else "0",
        ("secure", "ui_night_mode"): "2" if device.dark else "1",
    }
    if key not in values:
        return None
    if argv[1] == "get":
        return _ok(values[key] + "\n")
    if len(argv) < 5:
        return _ok("")
    value = argv[4]
    if key == ("system", "user_rotation") and value in ("0", "1", "2", "3"):
        device.set_orientation(_ORIENTATION_BY_ROTATION[int(value)])
    elif key == ("global", "airplane_mode_on") and value in ("0", "1"):
        device.set_airplane_mode(value == "1")  # on API < 28 the AIRPLANE_MODE broadcast applies it
    elif key == ("secure", "ui_night_mode") and value in ("1", "2"):
        device.set_dark_mode(value == "2")
    return _ok("")


def state_cmd(shell: AndroidShell, argv: list[str]) -> ShellResult | None:
    """``cmd connectivity airplane-mode [enable|disable]`` and ``cmd uimode night [yes|no]``."""
    device = shell.device
    if argv[1:3] == ["connectivity", "airplane-mode"]:
        if len(argv) == 3:
            return _ok("enabled\n" if device.airplane else "disabled\n")
        if argv[3] in ("enable", "disable"):
            device.set_airplane_mode(argv[3] == "enable")
            return _ok("")
        return _ok(f"Error: unknown argument '{argv[3]}'\n", 255)  # no capture found: the wording is ours
    if argv[1:3] == ["uimode", "night"]:
        if len(argv) > 3:
            if argv[3] not in ("yes", "no", "auto"):
                return _ok("Error: mode must be 'yes', 'no', or 'auto'\n", 255)
            device.set_dark_mode(argv[3] == "yes")
        return _ok(f"Night mode: {'yes' if device.dark else 'no'}\n")
    return None


def state_am(shell: AndroidShell, argv: list[str]) -> ShellResult | None:
    """``am broadcast -a MEDIA_SCANNER_SCAN_FILE -d file://PATH``: the file joins the gallery."""
    if argv[1:2] != ["broadcast"] or SCAN_FILE not in argv or "-d" not in argv:
        return None
    data = argv[argv.index("-d") + 1] if argv.index("-d") + 1 < len(argv) else ""
    path = data.removeprefix("file://")
    entry = shell.files.get(path)
    if entry is not None and entry.data is not None:
        shell.device.add_media(path, entry.data)
    return _ok(
        f"Broadcasting: Intent {{ act={SCAN_FILE} dat={data} flg=0x400000 }}\nBroadcast completed: result=0\n"
    )
