"""The adb ``sync:`` service of a simulated phone: enough of it for a client to push a file.

After ``sync:`` is accepted, requests are a 4-byte verb and a little-endian 32-bit length
followed by that many bytes. Served here: ``STAT path`` (mode, size, mtime), ``SEND path,mode``
followed by ``DATA`` chunks and ``DONE mtime`` (answered ``OKAY``), ``LIST`` (answered with
an empty listing) and ``QUIT``. Files are kept as their md5 and size
(:class:`~sim.adb_shell.FileEntry`), which is what ``md5sum`` reports later.
"""

from __future__ import annotations

import hashlib
import socket
import struct

from .adb_shell import FileEntry

__all__ = ["recv_exact", "serve_sync"]

_MAX_PATH = 1024
_MAX_CHUNK = 64 * 1024
_MTIME = 1700000000
_DIRECTORIES = ("/data/local/tmp", "/sdcard")


def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    """Exactly ``n`` bytes from ``sock``, or None when the peer closes first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + struct.pack("<I", len(data)) + data


def serve_sync(sock: socket.socket, files: dict[str, FileEntry]) -> None:
    """Serve sync requests on ``sock`` until QUIT, a close or a request it cannot take."""
    while True:
        head = recv_exact(sock, 8)
        if head is None:
            return
        verb, length = head[:4], struct.unpack("<I", head[4:])[0]
        if verb == b"QUIT" or length > _MAX_PATH:
            return
        raw = recv_exact(sock, length) if length else b""
        if raw is None:
            return
        path = raw.decode("utf-8", errors="replace")
        if verb == b"STAT":
            entry = files.get(path)
            if entry is not None:
                sock.sendall(b"STAT" + struct.pack("<III", entry.mode, entry.size, _MTIME))
            elif path.rstrip("/") in _DIRECTORIES:
                sock.sendall(b"STAT" + struct.pack("<III", 0o40771, 4096, _MTIME))
            else:
                sock.sendall(b"STAT" + struct.pack("<III", 0, 0, 0))
        elif verb == b"SEND":
            if not _receive_file(sock, files, path):
                return
        elif verb == b"LIST":
            sock.sendall(b"DONE" + b"\x00" * 16)
        else:
            sock.sendall(_fail(f"unsupported sync request {verb!r}"))
            return


def _receive_file(sock: socket.socket, files: dict[str, FileEntry], spec: str) -> bool:
    path, _, mode_text = spec.rpartition(",")
    digest, size = hashlib.md5(), 0
    while True:
        head = recv_exact(sock, 8)
        if head is None:
            return False
        verb, length = head[:4], struct.unpack("<I", head[4:])[0]
        if verb == b"DONE":
            break
        if verb != b"DATA" or length > _MAX_CHUNK:
            sock.sendall(_fail("bad sync data"))
            return False
        chunk = recv_exact(sock, length)
        if chunk is None:
            return False
        digest.update(chunk)
        size += len(chunk)
    mode = int(mode_text) if mode_text.isdigit() else 0o100644
    files[path or spec] = FileEntry(digest.hexdigest(), size, mode)
    sock.sendall(b"OKAY" + b"\x00" * 4)
    return True
