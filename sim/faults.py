"""Fault injection shared by the simulated device's protocol faces.

A face calls :meth:`FaultInjector.on_request` at the start of every request it serves. The
injector counts the request (per route and in total), sleeps the injected latency, and tells
the face what to do with it: answer normally, or misbehave in one of the ways real devices do.
Faults are set and cleared at run time from tests and benchmarks; every method is thread-safe.

A face also passes each answer it is about to send through :meth:`FaultInjector.rewritten`, which
leaves it as it is unless a test set a :data:`Rewrite` (the wire fuzz, ``tests/fuzz``: a reply's
fields missing, null or of another type, its body cut, an intermediary's HTML page in its place),
so the hostile answer goes out over the face's real protocol. Each face says what the bytes are:
an HTTP face the body and its status and content type, the adb face the whole reply of a host
service (``OKAY`` and the block) or a shell command's output.
"""

from __future__ import annotations

import enum
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..core.durations import check_seconds

__all__ = ["Answer", "Fault", "FaultInjector", "FaultPlan", "Rewrite"]


class Fault(enum.Enum):
    """What a face does with one request."""

    NONE = "none"  # answer normally
    HANG = "hang"  # never answer (until the fault is cleared or the face stops)
    DROP = "drop"  # close the connection without answering
    RESET = "reset"  # reset the connection (RST) without answering: a proxy closing it unread
    LOSE_SESSION = "lose_session"  # the automation session is gone (WDA/Appium: invalid session id)
    MALFORMED = "malformed"  # answer with bytes that are not what the protocol promises
    EMPTY = "empty"  # answer with an empty body / empty hierarchy
    DIE = "die"  # the server stops: this request and every later one are refused
    # The automation server's process crashes on this request (no answer) and can be started again:
    # uiautomator2's server exits (nothing listens on its port until app_process runs it again);
    # WebDriverAgent exits and its runner starts a fresh one (no session survives).
    CRASH = "crash"
    # The automation server crashes as it starts (uiautomator2 on a ROM without a library it links),
    # for as many starts as the plan's ``times``; on WebDriverAgent, that is a WDA that never comes up.
    CRASH_AT_START = "crash_at_start"


@dataclass(frozen=True)
class FaultPlan:
    """One fault, optionally limited to some routes and to requests after the first ``after``.

    ``routes`` empty means every route. ``times`` bounds how many requests it hits (None: all).
    """

    fault: Fault
    routes: frozenset[str] = frozenset()
    after: int = 0
    times: int | None = None


@dataclass(frozen=True)
class Answer:
    """One answer a face is about to send on ``route``: ``body`` and, over HTTP, its ``status`` and
    ``content_type`` (0 and "" on adb)."""

    route: str
    body: bytes
    status: int = 0
    content_type: str = ""


Rewrite = Callable[[Answer], Answer]


class FaultInjector:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plan: FaultPlan | None = None
        self._hits = 0
        self._seen_for_plan = 0
        self.latency = 0.0
        self.counts: Counter[str] = Counter()
        self.total = 0
        self._released = threading.Event()
        self._released.set()
        self.dead = False
        self._rewrite: Rewrite | None = None

    # --- configuration ----------------------------------------------------------------------

    def inject(
        self,
        fault: Fault,
        *,
        routes: frozenset[str] | set[str] | tuple[str, ...] = (),
        after: int = 0,
        times: int | None = None,
    ) -> None:
        with self._lock:
            self._plan = FaultPlan(fault, frozenset(routes), after, times)
            self._hits = 0
            self._seen_for_plan = 0
            if fault is Fault.HANG:
                self._released.clear()

    def clear(self) -> None:
        """Remove the fault and release any request held by ``HANG``."""
        with self._lock:
            self._plan = None
            self._released.set()

    def set_rewrite(self, rewrite: Rewrite | None) -> None:
        """Answers pass through ``rewrite`` from now on (None: sent as they are)."""
        with self._lock:
            self._rewrite = rewrite

    def rewritten(self, answer: Answer) -> Answer:
        """``answer`` as the rewrite set makes it (unchanged when none is set)."""
        rewrite = self._rewrite
        return answer if rewrite is None else rewrite(answer)

    def set_latency(self, seconds: float) -> None:
        """Seconds added to every request from now on (0 to an hour)."""
        self.latency = check_seconds(seconds, "latency", maximum=3600.0, error=ValueError)

    def reset_counts(self) -> None:
        with self._lock:
            self.counts.clear()
            self.total = 0

    def count(self, *routes: str) -> int:
        """Requests served on these routes (all routes when none given)."""
        with self._lock:
            if not routes:
                return self.total
            return sum(self.counts[r] for r in routes)

    # --- the face's side --------------------------------------------------------------------

    def on_request(self, route: str) -> Fault:
        """Count ``route``, apply latency, and return the fault to act out (``Fault.NONE`` mostly)."""
        with self._lock:
            self.counts[route] += 1
            self.total += 1
            plan = self._plan
            fault = Fault.NONE
            if self.dead:
                fault = Fault.DIE
            elif plan is not None and (not plan.routes or route in plan.routes):
                self._seen_for_plan += 1
                if self._seen_for_plan > plan.after and (plan.times is None or self._hits < plan.times):
                    self._hits += 1
                    fault = plan.fault
                    if fault is Fault.DIE:
                        self.dead = True
        if self.latency:
            time.sleep(self.latency)
        return fault

    def wait_released(self, timeout: float | None = None) -> bool:
        """Block a ``HANG``ed request until the fault is cleared (or ``timeout``)."""
        return self._released.wait(timeout)
