"""What the adb server says about a phone, read into harness errors: the connection states adb lists
and the refusals it answers a transport request with.

The texts are adb's own (AOSP packages/modules/adb: ``adb.cpp`` ``to_string(ConnectionState)``,
``transport.cpp`` ``acquire_one_transport``, ``sockets.cpp``; the ``no permissions`` texts are
``diagnose_usb.cpp``'s; the older wordings are system/core ``adb/transport.c``'s), all listed with
where they come from in ``tests/fixtures/backend_errors/adb.yaml``.

- :data:`STATE_HINTS` maps every state adb names to the fix a user needs; :func:`state_error` builds
  the ``DeviceOffline`` for a phone in a state other than ``device``.
- :data:`REFUSALS` lists adb's refusals, in order, each a pattern and the state it means;
  :func:`refusal` finds the one a message holds. The uiautomator2 table (:mod:`drivers.u2.errors`)
  turns each kind into its row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...core.errors import DeviceOffline

__all__ = [
    "HINT_NO_SERVER",
    "HINT_OFFLINE",
    "HINT_UNAUTHORIZED",
    "REFUSALS",
    "STATE_HINTS",
    "Refusal",
    "no_permissions_hint",
    "refusal",
    "state_error",
]

HINT_UNAUTHORIZED = "unlock the phone and accept the USB debugging prompt (check 'Always allow')"
HINT_OFFLINE = "reconnect the cable, or run `adb reconnect` (for Wi-Fi: `adb connect HOST:PORT`)"
HINT_NO_SERVER = (
    "start it with `adb start-server`, or point ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT at it"
)
_HINT_REBOOT = "the phone is not running Android: reboot it into Android (`adb -s {serial} reboot`)"
_HINT_USB_ACCESS = (
    "give your user access to the phone's USB device: on Linux a udev rule for its vendor id "
    "(see developer.android.com/tools/device), then unplug and plug it in again"
)

# Every connection state adb lists (adb.cpp to_string), with what to do about a phone in it.
STATE_HINTS: dict[str, str] = {
    "offline": HINT_OFFLINE,
    "unauthorized": HINT_UNAUTHORIZED,
    "authorizing": HINT_UNAUTHORIZED + "; adb is still exchanging keys with the phone",
    "connecting": "the phone is still connecting: wait a moment (`adb -s {serial} wait-for-device`)",
    "no permissions": _HINT_USB_ACCESS,
    "recovery": _HINT_REBOOT,
    "sideload": _HINT_REBOOT,
    "rescue": _HINT_REBOOT,
    "bootloader": _HINT_REBOOT,
    "host": "this serial is another computer's adb server, not a phone: check the serial (`adb devices -l`)",
    "detached": "adb detached the phone: `adb -s {serial} attach`",
    "unknown": "check its state with `adb devices -l`, then reconnect it",
}

_PLUGDEV = re.compile(r"user (\S+) is not in the plugdev group")


def no_permissions_hint(text: str) -> str:
    """The fix diagnose_usb.cpp's reason points at: join plugdev, fix the udev rules, or either."""
    member = _PLUGDEV.search(text)
    if member is not None:
        return (
            f"add {member.group(1)} to the plugdev group (`sudo usermod -aG plugdev {member.group(1)}`), "
            "log in again, then unplug and plug the phone in again"
        )
    if "udev rules wrong" in text:
        return (
            "add a udev rule for the phone's USB vendor id (/etc/udev/rules.d/51-android.rules, see "
            "developer.android.com/tools/device), reload the rules, then unplug and plug it in again"
        )
    return _HINT_USB_ACCESS


def _state_name(state: str) -> str:
    return "no permissions" if state.startswith("no permissions") else state


def state_error(serial: str, state: str, *, said: str | None = None) -> DeviceOffline:
    """A phone adb knows but that cannot be driven in ``state`` (what ``adb devices`` shows for it;
    ``said`` is adb's own words, quoted when they add to the state)."""
    name = _state_name(state)
    if name == "no permissions":
        hint = no_permissions_hint(said or state)
    else:
        hint = STATE_HINTS.get(name, STATE_HINTS["unknown"]).format(serial=serial)
    detail = f" (adb: {' '.join(said.split())[:300]})" if said and said.strip() != name else ""
    return DeviceOffline(f"{serial} is {name}{detail}", state=name, hint=hint)


Kind = Literal[
    "unauthorized",
    "authorizing",
    "connecting",
    "no permissions",
    "offline",
    "invalid state",
    "not found",
    "more than one",
    "unknown service",
]


@dataclass(frozen=True)
class Refusal:
    """One of adb's refusals: its kind and the pattern of its text."""

    kind: Kind
    pattern: re.Pattern[str]

    def said_by(self, text: str) -> bool:
        return self.pattern.search(text) is not None


# adb's refusals, the more specific first ("device unauthorized" before "device offline" …).
_PATTERNS: tuple[tuple[Kind, str], ...] = (
    ("unauthorized", r"\bunauthorized\b"),
    ("authorizing", r"\bauthorizing\b"),
    ("connecting", r"\bstill connecting\b"),
    ("no permissions", r"insufficient permissions for device|\bno permissions\b"),
    ("offline", r"\boffline\b"),
    ("invalid state", r"\binvalid device state\b"),
    (
        "not found",
        r"device '[^']*' not found|^device not found|no devices?/emulators found|no (?:devices|emulators)"
        r" found|no device with transport id",
    ),
    ("more than one", r"^more than one\b"),
    ("unknown service", r"^unknown host service\b"),
)
REFUSALS: tuple[Refusal, ...] = tuple(Refusal(kind, re.compile(pattern)) for kind, pattern in _PATTERNS)


def refusal(text: str) -> Refusal | None:
    """The refusal adb's message ``text`` is, or None."""
    return next((r for r in REFUSALS if r.said_by(text)), None)
