"""How the harness and a script engine's process talk: length-prefixed JSON frames over pipes.

A frame is 4 bytes of length (big-endian) and that many bytes of JSON (ASCII: strings that are no
valid UTF-8, such as a lone surrogate a script made, travel as ``\\u`` escapes). JSON and not
pickle: what comes from the engine's process is read as data, never run, whatever happened there.
Imported by both sides (the engine's process imports it as a top-level module), so it imports only
the standard library.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

__all__ = ["FrameError", "read_frame", "write_frame"]

_HEADER = struct.Struct(">I")


class FrameError(Exception):
    """The other side closed the pipe, or sent what is not a frame within the size allowed."""


def write_frame(fd: int, value: Any) -> None:
    data = json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise FrameError("the other side closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, max_bytes: int) -> Any:
    """The next frame's value; ``FrameError`` on end of file or a frame over ``max_bytes``."""
    (size,) = _HEADER.unpack(_exactly(fd, _HEADER.size))
    if size > max_bytes:
        raise FrameError(f"a frame of {size:,} bytes, over the {max_bytes:,} allowed")
    try:
        return json.loads(_exactly(fd, size))
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"a frame that is not JSON: {type(exc).__name__}") from None
