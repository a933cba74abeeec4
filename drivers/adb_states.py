"""The connection states adb lists a phone in, and the fix for each: spelled once for the driver's
errors, ``amc doctor`` and the pytest plugin's skip reasons.

The states are adb's own (AOSP packages/modules/adb ``adb.cpp`` ``to_string(ConnectionState)``):
``device`` (usable), ``offline``, ``unauthorized``, ``authorizing``, ``connecting``, ``bootloader``,
``host``, ``recovery``, ``rescue``, ``sideload``, ``detached``, and ``no permissions (REASON); see
[URL]`` (``diagnose_usb.cpp``, whose REASON says whether the user is outside the plugdev group or the
udev rules are wrong). Importing this module imports no backend.
"""

from __future__ import annotations

import re

__all__ = [
    "HINT_OFFLINE",
    "HINT_UNAUTHORIZED",
    "STATE_FIXES",
    "no_permissions_fix",
    "state_fix",
    "state_name",
]

HINT_UNAUTHORIZED = (
    "unlock the phone and accept the 'Allow USB debugging?' prompt (check 'Always allow'; if none shows, "
    "revoke USB debugging authorizations in Developer options and reconnect)"
)
HINT_OFFLINE = (
    "reconnect the cable or run `adb reconnect` (for Wi-Fi: `adb connect HOST:PORT`; an emulator: restart it)"
)
_REBOOT = "the phone is not running Android: reboot it into Android (`adb -s {serial} reboot`)"
_USB_ACCESS = (
    "give your user access to the phone's USB device: on Linux a udev rule for its vendor id "
    "(see developer.android.com/tools/device), then unplug and plug it in again"
)

# Every state but "device", with what to do about a phone in it ({serial} stands for its serial).
STATE_FIXES: dict[str, str] = {
    "offline": HINT_OFFLINE,
    "unauthorized": HINT_UNAUTHORIZED,
    "authorizing": HINT_UNAUTHORIZED + "; adb is still exchanging keys with the phone",
    "connecting": "the phone is still connecting: wait a moment (`adb -s {serial} wait-for-device`)",
    "no permissions": _USB_ACCESS,
    "recovery": _REBOOT,
    "sideload": _REBOOT,
    "rescue": _REBOOT,
    "bootloader": _REBOOT,
    "host": "this serial is another computer's adb server, not a phone: check the serial (`adb devices -l`)",
    "detached": "adb detached the phone: `adb -s {serial} attach`",
    "unknown": "check its state with `adb devices -l`, then reconnect it",
}

_PLUGDEV = re.compile(r"user (\S+) is not in the plugdev group")


def state_name(state: str) -> str:
    """The state's name: ``no permissions`` for adb's ``no permissions (…); see […]``."""
    return "no permissions" if state.startswith("no permissions") else state


def no_permissions_fix(text: str) -> str:
    """The fix diagnose_usb.cpp's reason points at: join plugdev, fix the udev rules, or either."""
    member = _PLUGDEV.search(text)
    if member is not None:
        user = member.group(1)
        return (
            f"add {user} to the plugdev group (`sudo usermod -aG plugdev {user}`), log in again, "
            "then unplug and plug the phone in again"
        )
    if "udev rules wrong" in text:
        return (
            "add a udev rule for the phone's USB vendor id (/etc/udev/rules.d/51-android.rules, see "
            "developer.android.com/tools/device), reload the rules, then unplug and plug it in again"
        )
    return _USB_ACCESS


def state_fix(state: str, serial: str = "SERIAL", *, said: str | None = None) -> str:
    """What to do about a phone adb lists in ``state`` (``said``: adb's own words, when they say
    more, as its long "insufficient permissions" text does)."""
    name = state_name(state)
    if name == "no permissions":
        return no_permissions_fix(said or state)
    return STATE_FIXES.get(name, STATE_FIXES["unknown"]).format(serial=serial)
