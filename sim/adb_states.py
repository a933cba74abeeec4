"""What adb says about a phone in each connection state, for the adb face (:mod:`sim.adb_face`).

The states are adb.cpp's ``to_string(ConnectionState)``; which of them refuse a transport, and in
what words, is transport.cpp's ``acquire_one_transport`` (AOSP packages/modules/adb, read in the
GrapheneOS mirror at 4d73d56); the ``no permissions`` texts are diagnose_usb.cpp's (short in the
listing, long as the refusal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

from ..core.errors import ConfigError

__all__ = ["ADB_STATES", "UNAUTHORIZED", "check_state", "pick"]


class _Listed(Protocol):
    @property
    def serial(self) -> str: ...

    state: str
    transport_id: int


P = TypeVar("P", bound=_Listed)

# The connection states adb names (adb.cpp to_string(ConnectionState)), besides "no permissions …".
ADB_STATES: tuple[str, ...] = (
    "device",
    "offline",
    "unauthorized",
    "authorizing",
    "connecting",
    "bootloader",
    "host",
    "recovery",
    "rescue",
    "sideload",
    "detached",
)
# States adb refuses a transport in, and what it says (transport.cpp acquire_one_transport).
_REFUSED: dict[str, str] = {
    "connecting": "device still connecting",
    "authorizing": "device still authorizing",
    "offline": "device offline",
}
_NO_PERMISSIONS = re.compile(r"no permissions(?: \((?P<reason>.*)\))?; see \[(?P<url>[^\]]*)\]")
UNAUTHORIZED = (
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
    "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device."
)


def check_state(state: str) -> str:
    """``state`` if adb can list a phone in it (a name of :data:`ADB_STATES`, or the short
    ``no permissions (REASON); see [URL]`` text of diagnose_usb.cpp); else a ``ConfigError``."""
    if state in ADB_STATES or (isinstance(state, str) and _NO_PERMISSIONS.fullmatch(state)):
        return state
    raise ConfigError(
        f"adb state must be one of {', '.join(ADB_STATES)} or 'no permissions (…); see […]', got {state!r}"
    )


def _no_permissions_error(state: str) -> str | None:
    """adb's long help text for a phone it lists as ``no permissions …`` (diagnose_usb.cpp)."""
    match = _NO_PERMISSIONS.fullmatch(state)
    if match is None:
        return None
    reason = match.group("reason")
    header = "insufficient permissions for device" + (f": {reason}" if reason else "")
    return f"{header}\nSee [{match.group('url')}] for more information"


def pick(phones: Iterable[P], serial: str | None, transport_id: int | None) -> tuple[P | None, str]:
    """The phone a transport request picks, or adb's error text, as transport.cpp's
    acquire_one_transport chooses: a ``no permissions`` phone is skipped (its long help text is the
    error if nothing else matches), more than one match is ambiguous, and a phone refused in its
    state is named in adb's words."""
    error = (
        f"device '{serial}' not found"
        if serial is not None
        else f"no device with transport id '{transport_id}'"
        if transport_id is not None
        else "no devices/emulators found"
    )
    found: list[P] = []
    for phone in phones:
        refusal = _no_permissions_error(phone.state)
        if refusal is not None:  # adb skips such a phone, and says why if nothing else matches
            error = refusal
            continue
        if serial is not None and phone.serial != serial:
            continue
        if transport_id is not None and phone.transport_id != transport_id:
            continue
        found.append(phone)
    if len(found) > 1:
        return None, "more than one device/emulator"
    if not found:
        return None, error
    phone = found[0]
    if phone.state == "unauthorized":
        return None, UNAUTHORIZED
    if phone.state in _REFUSED:
        return None, _REFUSED[phone.state]
    return phone, ""
