"""The adb smart-socket protocol's framing: a request is 4 hex digits of length and the text; an
answer is ``OKAY`` or ``FAIL``, each optionally followed by a block (4 hex digits of length and
the text), as adb's ``SendOkay``/``SendFail`` write them."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .adb_sync import recv_exact

if TYPE_CHECKING:
    from .adb_face import Phone

__all__ = [
    "MAX_REQUEST",
    "block",
    "device_listing",
    "fail",
    "okay",
    "read_request",
    "shell_v2_exit",
]

MAX_REQUEST = 0xFFFF


def read_request(sock: socket.socket) -> str | None:
    head = recv_exact(sock, 4)
    if head is None:
        return None
    try:
        length = int(head.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        return None
    if not 0 < length <= MAX_REQUEST:
        return None
    body = recv_exact(sock, length)
    return None if body is None else body.decode("utf-8", errors="replace")


def block(text: str) -> bytes:
    data = text.encode("utf-8")
    return f"{len(data):04x}".encode("ascii") + data


def okay(text: str | None = None) -> bytes:
    return b"OKAY" + (block(text) if text is not None else b"")


def fail(text: str) -> bytes:
    return b"FAIL" + block(text)


def device_listing(phones: Iterable[Phone], *, long: bool, transport_id: bool = True) -> str:
    """What ``host:devices`` (or, ``long``, ``host:devices-l``) answers for ``phones``; a server
    before ADB_SERVER_VERSION 40 prints no ``transport_id`` (``transport_id`` False)."""
    lines = []
    for phone in phones:
        if not long:
            lines.append(f"{phone.serial}\t{phone.state}\n")
            continue
        extra = ""
        if phone.state == "device":
            model = "".join(c if c.isalnum() else "_" for c in phone.device.model)
            extra = f" product:{phone.device.model} model:{model} device:emu64x"
        tail = f" transport_id:{phone.transport_id}" if transport_id else ""
        lines.append(f"{phone.serial:<22} {phone.state}{extra}{tail}\n")
    return "".join(lines)


def shell_v2_exit(output: bytes, code: int) -> bytes:
    """Shell protocol v2 packets: stdout (id 1, when there is any), then the exit code (id 3)."""
    packets = b""
    if output:
        packets += b"\x01" + struct.pack("<I", len(output)) + output
    return packets + b"\x03" + struct.pack("<I", 1) + bytes([code & 0xFF])
