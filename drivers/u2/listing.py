"""What the adb server lists (``adb devices`` / ``adb devices -l``), read as adb writes it.

adb's transport.cpp (``append_transport``) writes a short line as ``SERIAL\\tSTATE`` and a long one as
``"%-22s %s"`` (the serial padded to 22, a space, the state) then `` DEVPATH``, `` product:…``,
`` model:…`` (non-alphanumerics made ``_``), `` device:…`` and, last, `` transport_id:N`` ("so that
anyone parsing the output here can always find it by scanning backwards"). A serial may hold spaces
(a wireless-debugging phone found by mDNS: ``adb-R5CT20ABCDE-Xy12Zq (2)._adb-tls-connect._tcp``),
and so may a state (``no permissions (user in plugdev group; are your udev rules wrong?); see
[…]``): splitting a line on white space cuts both (adbutils' ``list()`` does). So the serial and
state are read from the short listing, where a tab ends the serial, and the long listing only adds
the details of a line that starts with a serial so read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from ...core.errors import DeviceError
from ..base import DeviceInfo
from .adb import HarnessAdbClient, adb_address

log = logging.getLogger(__name__)

__all__ = ["Listed", "discover_android", "parse_listing", "read_listing"]

_KEYS = re.compile(r"(?:^| )(product|model|device|transport_id):")


@dataclass(frozen=True)
class Listed:
    """One device the adb server lists: its serial and state as adb wrote them, and the details of
    the long listing (``product``, ``model``, ``device``, ``transport_id``, ``devpath``)."""

    serial: str
    state: str
    details: dict[str, str] = field(default_factory=dict, hash=False)

    def describe(self) -> str:
        return " ".join(f"{k}:{self.details[k]}" for k in ("model", "product", "device") if k in self.details)


def _details(rest: str) -> dict[str, str]:
    """``DEVPATH product:P model:M device:D transport_id:N`` (each part optional) as a dict."""
    found = list(_KEYS.finditer(rest))
    details: dict[str, str] = {}
    devpath = rest[: found[0].start()].strip() if found else rest.strip()
    if devpath:
        details["devpath"] = devpath
    for index, match in enumerate(found):  # each value runs to the next key, the last to the end
        end = found[index + 1].start() if index + 1 < len(found) else len(rest)
        details[match.group(1)] = rest[match.end() : end].strip()
    return details


def parse_listing(short: str, long: str = "") -> list[Listed]:
    """The devices of a short listing (``host:devices``), with the details of the long one
    (``host:devices-l``) for each line of it that starts with a listed serial and its state."""
    listed: list[tuple[str, str]] = []
    for line in short.splitlines():
        serial, tab, state = line.partition("\t")
        if tab and serial:
            listed.append((serial, state.strip()))
    details: dict[str, dict[str, str]] = {}
    # the longest serial first, so that a serial that begins another is not taken for it
    for serial, state in sorted(listed, key=lambda item: -len(item[0])):
        for line in long.splitlines():
            if not line.startswith(serial + " ") or serial in details:
                continue
            rest = line[len(serial) :].lstrip(" ")
            if rest == state or rest.startswith(state + " "):
                details[serial] = _details(rest[len(state) :])
    return [Listed(serial, state, details.get(serial, {})) for serial, state in listed]


def _ask(client: Any, service: str) -> str:
    with client.make_connection() as conn:
        conn.send_command(service)
        conn.check_okay()
        return str(conn.read_string_block())


def read_listing(client: Any) -> list[Listed]:
    """Ask the adb server behind ``client`` (an ``adbutils.AdbClient``) for both listings; a server
    that does not know the long one (``unknown host service``) is read from the short one alone."""
    short = _ask(client, "host:devices")
    try:
        long = _ask(client, "host:devices-l")
    except AdbError as exc:
        if "unknown host service" not in str(exc):
            raise
        log.info("the adb server has no long listing (%s); reading the short one", exc)
        long = ""
    return parse_listing(short, long)


def discover_android(environ: Mapping[str, str]) -> list[DeviceInfo]:
    """Every device the adb server lists, with its state; [] at once when no adb server answers."""
    host, port = adb_address(environ)
    client = HarnessAdbClient(host, port, timeout=3.0)
    try:
        listed = read_listing(client)
    except (AdbConnectionError, AdbTimeout) as exc:
        log.info("no adb server at %s:%s (%s)", host, port, exc)
        return []
    except AdbError as exc:
        raise DeviceError(f"the adb server at {host}:{port} could not list devices: {exc}") from exc
    return [
        DeviceInfo(
            spec=f"android:{info.serial}",
            platform="android",
            backend="u2",
            state=info.state,
            description=info.describe(),
        )
        for info in listed
    ]
