"""The loopback guard every test process installs: a socket may connect to 127.0.0.0/8, ::1 or a
local (AF_UNIX) address only; anything else raises ``OSError`` naming the address."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

__all__ = ["loopback_only"]

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _allowed(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX and friends: no network
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not _allowed(address):
        raise OSError(f"test network guard: connection to {address!r} refused (tests only reach 127.0.0.1)")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not _allowed(address):
        raise OSError(f"test network guard: connection to {address!r} refused (tests only reach 127.0.0.1)")
    return _real_connect_ex(self, address)


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """Refuse every connection that leaves the machine while the block runs."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
