"""What the adb server says about a phone, read into harness errors: the connection states adb lists
and the refusals it answers a transport request with.

The texts are adb's own (AOSP packages/modules/adb: ``adb.cpp`` ``to_string(ConnectionState)``,
``transport.cpp`` ``acquire_one_transport``, ``sockets.cpp``; the ``no permissions`` texts are
``diagnose_usb.cpp``'s; the older wordings are system/core ``adb/transport.c``'s), all listed with
where they come from in ``tests/fixtures/backend_errors/adb.yaml``.

- :func:`state_error` builds the ``DeviceOffline`` for a phone in a state other than ``device``,
  with the fix :mod:`drivers.adb_states` gives for it.
- :data:`REFUSALS` lists adb's refusals, in order, each a pattern and the state it means;
  :func:`refusal` finds the one a message holds. The uiautomator2 table (:mod:`drivers.u2.errors`)
  turns each kind into its row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...core.errors import DeviceOffline
from ..adb_states import HINT_OFFLINE, HINT_UNAUTHORIZED, STATE_FIXES, state_fix, state_name

__all__ = [
    "HINT_NO_SERVER",
    "HINT_OFFLINE",
    "HINT_UNAUTHORIZED",
    "REFUSALS",
    "STATE_FIXES",
    "Refusal",
    "refusal",
    "state_error",
]

HINT_NO_SERVER = (
    "start it with `adb start-server`, or point ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT at it"
)


def state_error(serial: str, state: str, *, said: str | None = None) -> DeviceOffline:
    """A phone adb knows but that cannot be driven in ``state`` (what ``adb devices`` shows for it;
    ``said`` is adb's own words, quoted when they add to the state)."""
    name = state_name(state)
    hint = state_fix(state, serial, said=said)
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
