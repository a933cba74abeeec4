"""Real outputs played back by the faces: what a real phone or server answered, byte for byte.

A :class:`Reply` is one answer the face gives instead of its own: for the adb face the output and
exit code of a shell command (keyed by the command line as the client sends it), for the HTTP
faces an HTTP status and body (keyed by the face's route name, e.g. ``apps.launch`` or
``mobile: activateApp``). The faces still speak their real protocol around it, so the real client
libraries read a real device's answer exactly as they would over a cable; the tests use this to
replay the outputs in ``tests/fixtures/real``. ``hang=True`` answers nothing at all until the client
gives up or the face stops (what WebDriverAgent before 5.1.1 does when asked to launch an app that
is not installed).
"""

from __future__ import annotations

import select
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Reply", "hold", "reset"]


@dataclass(frozen=True)
class Reply:
    """One played-back answer: ``body`` (bytes as the device sent them), ``status`` (HTTP), ``code``
    (a shell command's exit status), ``hang`` (answer nothing)."""

    body: bytes = b""
    status: int = 200
    code: int = 0
    hang: bool = False
    content_type: str = "application/json;charset=UTF-8"

    @classmethod
    def text(cls, text: str, *, code: int = 0) -> Reply:
        return cls(text.encode("utf-8"), code=code)


def hold(sock: socket.socket, serving: Callable[[], bool], *, limit: float = 600.0) -> None:
    """Answer nothing: wait until the client closes the connection, the face stops serving, or
    ``limit`` seconds pass (so a test that forgets a hang leaks no thread for long)."""
    deadline = time.monotonic() + limit
    while serving() and time.monotonic() < deadline:
        try:
            readable, _, _ = select.select([sock], [], [], 0.1)
            if readable and not sock.recv(1, socket.MSG_PEEK):
                return  # the client gave up (its timeout) and closed the socket
        except (OSError, ValueError):
            return


def reset(sock: socket.socket) -> None:
    """Close ``sock`` with a reset (RST) instead of a FIN: SO_LINGER on with a zero timeout, as the
    kernel does for a socket closed with data still unread (a proxy dropping a request)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        return
