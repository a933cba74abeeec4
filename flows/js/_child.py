"""The process a script context's engine runs in: ``python _child.py``, frames on stdin and stdout.

Started by :mod:`amc.flows.js._process`, which ends it (SIGKILL) when a script outlives its time
limit and grace, when the run is interrupted, or when the context closes. It runs as a script, so
its directory is on ``sys.path`` and it imports its two neighbours as top-level modules, and
nothing of the harness. Before anything else it:

- moves the frames' pipes off file descriptors 0 and 1 (a stray print cannot corrupt a frame);
- on Linux, asks to be killed when its parent dies (``PR_SET_PDEATHSIG``): a harness killed by
  SIGKILL does not leave an engine spinning in a native loop behind it;
- after ``start``, caps its own address space (``RLIMIT_AS``) at what it has plus the message's
  ``address_space`` bytes, a backstop under the engine's own heap limit: an allocation no limit of
  the engine counts ends this process, not the harness.

Every message gets one answer (:class:`_session.Session`); while an ``eval`` runs, the prelude's
``http`` calls go to the harness as ``{"http": [method, url, params]}`` frames, each answered by
one frame, and the evaluation goes on.
"""

from __future__ import annotations

import os
import sys
from typing import Any

MAX_FRAME = 64 * 1024 * 1024  # what the harness may send: a source and its variables are far smaller


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent was already gone before the request took hold
        os._exit(0)


def _cap_address_space(extra: int) -> None:
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as status:
            size = int(status.read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))
    except (ImportError, OSError, ValueError, IndexError):
        return  # no /proc (macOS): the engine's own limit is the only one


def main() -> None:
    import importlib

    frames = importlib.import_module("_frames")  # this file's neighbours, as top-level modules
    session = importlib.import_module("_session").Session(lambda args: ask(args))
    read_frame, write_frame, frame_error = frames.read_frame, frames.write_frame, frames.FrameError

    reader, writer = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    _die_with_parent()
    importlib.import_module("jsbox")  # the costly part of a start, done before any context needs it
    write_frame(writer, {"ready": True})

    def ask(args: list[Any]) -> Any:
        write_frame(writer, {"http": args})
        return read_frame(reader, MAX_FRAME)

    while True:
        try:
            message = read_frame(reader, MAX_FRAME)
        except frame_error:
            return
        if not isinstance(message, dict):
            message = {}
        answer = session.handle(message)
        if message.get("op") == "start" and message.get("address_space"):
            _cap_address_space(int(message["address_space"]))
        try:
            write_frame(writer, answer)
        except Exception as exc:  # noqa: BLE001 - an answer that cannot be written is told as one
            write_frame(
                writer,
                {"error": {"kind": "other", "type": type(exc).__name__, "text": str(exc)[:4096]}, "logs": []},
            )


if __name__ == "__main__":
    main()
