"""The adb ``sync:`` service of a simulated phone (adb's ``daemon/file_sync_service.cpp``).

After ``sync:`` is accepted, requests are a 4-byte verb and a little-endian 32-bit length
followed by that many bytes. Served here: ``STAT path`` (mode, size, mtime; all zero when
nothing is there), ``LIST path`` (a ``DENT`` per entry, then ``DONE``), ``SEND path,mode``
followed by ``DATA`` chunks and ``DONE mtime`` (answered ``OKAY``, or ``FAIL`` with the reason),
``RECV path`` (``DATA`` chunks of at most 64 KiB, then ``DONE``; ``FAIL`` "No such file or
directory" when there is no such file) and ``QUIT``. The files are :class:`~sim.adb_files.PhoneFiles`.
"""

from __future__ import annotations

import socket
import struct

from .adb_files import PhoneFiles, entry_for

__all__ = ["MAX_FILE", "recv_exact", "serve_sync"]

_MAX_PATH = 1024
_MAX_CHUNK = 64 * 1024
MAX_FILE = 64 * 1024 * 1024  # bytes one pushed file may have here


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


def serve_sync(sock: socket.socket, files: PhoneFiles) -> None:
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
            sock.sendall(b"STAT" + struct.pack("<III", *files.stat(path)))
        elif verb == b"SEND":
            if not _receive_file(sock, files, path):
                return
        elif verb == b"LIST":
            for name, mode, size, mtime in files.listdir(path) or []:
                data = name.encode()
                sock.sendall(b"DENT" + struct.pack("<IIII", mode, size, mtime, len(data)) + data)
            sock.sendall(b"DONE" + b"\x00" * 16)
        elif verb == b"RECV":
            entry = files.get(path)
            if entry is None or entry.data is None:
                sock.sendall(_fail(f"open failed: No such file or directory: {path}"))
                continue
            for start in range(0, len(entry.data), _MAX_CHUNK):
                chunk = entry.data[start : start + _MAX_CHUNK]
                sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
            sock.sendall(b"DONE" + b"\x00" * 4)
        else:
            sock.sendall(_fail(f"unsupported sync request {verb!r}"))
            return


def _receive_file(sock: socket.socket, files: PhoneFiles, spec: str) -> bool:
    path, _, mode_text = spec.rpartition(",")
    chunks: list[bytes] = []
    size = 0
    while True:
        head = recv_exact(sock, 8)
        if head is None:
            return False
        verb, length = head[:4], struct.unpack("<I", head[4:])[0]
        if verb == b"DONE":
            mtime = length
            break
        if verb != b"DATA" or length > _MAX_CHUNK:
            sock.sendall(_fail("bad sync data"))
            return False
        chunk = recv_exact(sock, length)
        if chunk is None:
            return False
        size += len(chunk)
        if size > MAX_FILE:
            sock.sendall(_fail(f"couldn't write file: File too large: {path}"))
            return False
        chunks.append(chunk)
    mode = int(mode_text) if mode_text.isdigit() else 0o100644
    error = files.write_entry(path or spec, entry_for(b"".join(chunks), mode | 0o100000, mtime or 1700000000))
    sock.sendall(_fail(error) if error else b"OKAY" + b"\x00" * 4)
    return True
