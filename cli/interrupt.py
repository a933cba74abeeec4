"""Ctrl-C for the commands that run the loop: the first asks the run to stop, the second quits.

While :func:`stop_on_ctrl_c` is in force, the first SIGINT sets the run's
:class:`~amc.runtime.cancel.Cancel` and says so on stderr: every flow, on whichever thread it runs
(one per device), ends its step in progress at its next poll, recorded ``interrupted``, and the
command finishes what it writes (timelines, reports, the index, JUnit) and exits 130. The second
SIGINT ends the process at once, exit 130: each timeline keeps every step written so far (a line is
synced to disk as it is written), nothing more is written and no device is asked anything more.

Python runs signal handlers on the main thread only, so this is installed there (elsewhere, and
in a process started with SIGINT ignored, such as a background job of a non-interactive shell,
signals are left as they are). The handler only sets the token and writes one line: the waiting,
the stopping and the writing happen in the threads that run the loop.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from ..runtime.cancel import Cancel
from .common import EXIT_INTERRUPTED

__all__ = ["QUIT_NOTE", "stop_on_ctrl_c"]

QUIT_NOTE = "amc: interrupted again: quitting now (the timelines keep every step written so far)\n"


@contextmanager
def stop_on_ctrl_c(cancel: Cancel, err: TextIO, note: str) -> Iterator[None]:
    """While in the block: the first SIGINT sets ``cancel`` and writes ``note`` (a line) to ``err``;
    the second ends the process at once with exit 130. The previous handler is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:  # the parent asked this process not to be interrupted
        yield
        return
    presses = 0

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            os.write(2, QUIT_NOTE.encode())  # not through err: its lock may be held by this thread
            os._exit(EXIT_INTERRUPTED)
        cancel.set()
        try:
            err.write(note + "\n")
            err.flush()
        except (OSError, ValueError, RuntimeError):  # closed, or written to when the signal came
            pass

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
