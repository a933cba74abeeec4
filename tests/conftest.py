"""Test-wide safety: no real adb server, no network beyond 127.0.0.1."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

# adbutils starts its bundled adb daemon when no server answers; make that fail fast instead.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"
# Nothing in the tests may reach a real adb server on the default port.
os.environ.setdefault("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
os.environ.setdefault("ANDROID_ADB_SERVER_PORT", "1")
# The simulated device takes its time by default (as a phone does); these tests want instant screens
# unless they ask for `timing=realistic` (tests/flows/test_timing.py and the flows run on every face).
os.environ["AMC_SIM_TIMING"] = "instant"

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


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
