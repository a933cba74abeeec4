"""A run's stop request: how the loop learns, on any thread, that it should stop (Ctrl-C).

A :class:`Cancel` is set once, from anywhere: the command line's SIGINT handler sets it (Python
runs signal handlers on the main thread only, while flows run on threads of their own, so a
``KeyboardInterrupt`` would never reach them). The loop checks it before each step and each look,
and every wait of the loop (the pause between two polls of a waiting step) waits on it instead of
sleeping, so a step in progress ends at its next poll, not at its timeout, by raising
:class:`~amc.core.errors.Interrupted`. While a session runs a step or asks its planner, the token is
also the thread's :mod:`amc.core.stop` request: a device call, a script or a model request in flight
is given up within :data:`~amc.core.stop.POLL` seconds of Ctrl-C and the step is recorded
``interrupted`` (it may have reached the device, so it is never sent again).
"""

from __future__ import annotations

import threading

from ..core.errors import Interrupted

__all__ = ["Cancel"]

_DEFAULT_REASON = "the run was interrupted (Ctrl-C)"


class Cancel:
    """A stop request for one run (its flows, on every device): unset until :meth:`set`."""

    __slots__ = ("_event", "_reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = _DEFAULT_REASON

    def set(self, reason: str = _DEFAULT_REASON) -> None:
        """Ask every wait and every check of this run to stop (the first reason given is kept)."""
        if not self._event.is_set():
            self._reason = reason
            self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the stop request; True once it is set (``core.stop.Stop``)."""
        return self._event.wait(seconds) if seconds > 0 else self._event.is_set()

    @property
    def reason(self) -> str:
        return self._reason

    def check(self, where: str) -> None:
        """Raise ``Interrupted`` (saying ``where`` it stopped) when the run was asked to stop."""
        if self._event.is_set():
            raise Interrupted(f"{self._reason} {where}")

    def pause(self, seconds: float, where: str = "while waiting for the screen") -> None:
        """Wait up to ``seconds``; raise ``Interrupted`` as soon as the run is asked to stop."""
        if seconds > 0:
            self._event.wait(seconds)
        self.check(where)

    def __repr__(self) -> str:
        return f"Cancel({'set: ' + self._reason if self.is_set() else 'unset'})"
