"""The stop request a thread obeys while it waits on something outside (a device, a model server).

The loop's :class:`~amc.runtime.cancel.Cancel` is set by Ctrl-C on the main thread; the thread that
runs a step is then often not in the loop's own code but deep in a client library, waiting for a
device's or a model server's reply. :func:`stoppable` hands that thread's stop request down to the
layers that do the waiting, without a parameter through every client library: while it is in force
the drivers' bounded sockets (:mod:`amc.drivers.bounded`), the simulated device's latency, a flow's
script and the model planner's request each wait in slices of at most :data:`POLL` seconds and end
with :class:`~amc.core.errors.Interrupted` once the request is set. A request abandoned that way may
have reached the device: it is recorded as interrupted and never sent again.

The request is the calling thread's own (a ``threading.local``): flows on several devices each run
on a thread of their own, and tests in one process each have their own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Protocol, TypeVar

from .errors import Interrupted

__all__ = ["POLL", "Stop", "check", "current", "result", "sleep", "stoppable"]

# The longest a stoppable wait goes without looking at its stop request: Ctrl-C ends it within this.
POLL = 0.05

T = TypeVar("T")


class Stop(Protocol):
    """What a wait needs of a stop request (``amc.runtime.cancel.Cancel`` is one)."""

    @property
    def reason(self) -> str: ...

    def is_set(self) -> bool: ...

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the request; True once it is set."""
        ...


_local = threading.local()


@contextmanager
def stoppable(stop: Stop | None) -> Iterator[None]:
    """While in the block, the calling thread's waits obey ``stop`` (None: they obey nothing)."""
    previous = getattr(_local, "stop", None)
    _local.stop = stop
    try:
        yield
    finally:
        _local.stop = previous


def current() -> Stop | None:
    """The calling thread's stop request, if one is in force."""
    stop: Stop | None = getattr(_local, "stop", None)
    return stop


def _interrupted(stop: Stop, where: str) -> Interrupted:
    return Interrupted(f"{stop.reason} {where}")


def check(where: str) -> None:
    """``Interrupted`` (saying ``where``) when the calling thread's stop request is set."""
    stop = current()
    if stop is not None and stop.is_set():
        raise _interrupted(stop, where)


def sleep(seconds: float, where: str) -> None:
    """``time.sleep(seconds)`` that ends with ``Interrupted`` as soon as the stop request is set."""
    stop = current()
    if stop is None:
        if seconds > 0:
            time.sleep(seconds)
        return
    if seconds > 0 and stop.wait(seconds):
        raise _interrupted(stop, where)
    check(where)


def result(future: Future[T], where: str, timeout: float | None = None) -> T:
    """``future.result(timeout)``, given up with ``Interrupted`` as soon as the stop request is set
    (the work behind it goes on, abandoned: its thread must be one nobody waits for)."""
    request = current()
    if request is None:
        return future.result(timeout)
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        left = POLL if end is None else min(POLL, end - time.monotonic())
        try:
            return future.result(timeout=max(0.0, left))
        except FutureTimeout:
            if request.is_set():
                raise _interrupted(request, where) from None
            if end is not None and time.monotonic() >= end:
                raise
