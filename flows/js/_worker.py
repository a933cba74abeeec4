"""The engine in the harness's own process, on a thread per context: the engine before issue 40.

Not what a flow run uses (:mod:`amc.flows.js._process` is): here a script's native built-ins hold
the interpreter lock, and so the whole process, for as long as they run. Kept as
``ScriptContext(isolation="thread")`` for the benchmark that measures what the process costs
(``benchmarks/js_flow.py``) and for hosts that cannot start processes. What follows is how it works.

jsbox binds a runtime to its thread (a call from another one is refused), and a flow run may move
between threads (a device pool's workers, an MCP server's). So each context keeps one thread of its
own, started on its first evaluation, and every call into the engine is a job for that thread; the
caller waits for it, at most as long as the job is allowed plus a grace. A job that outlives that
(one long native operation the engine can only interrupt when it returns) leaves the thread behind:
the caller gets its answer now, the context is given up. The job obeys the caller's
:mod:`amc.core.stop` request (Ctrl-C gives up a script's HTTP call), and so does the caller's wait;
but while the engine itself computes it holds Python's lock (jsbox releases it only in host calls), so
a script that only computes is stopped by its own time limit, not by Ctrl-C.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from ...core import stop as core_stop
from . import _process
from ._session import Session

__all__ = ["Stuck", "ThreadHost", "Worker"]

T = TypeVar("T")
_Job = tuple[Callable[[], object], "Future[object]"]


class Stuck(Exception):
    """The job did not finish within its wait; the worker's thread may still be running it."""


class Worker(Generic[T]):
    """Runs jobs one at a time on its own thread; the thread's state (``T``) is made there by
    ``setup`` on the first job and kept. No thread before the first job, none after :meth:`close`."""

    def __init__(self, name: str, setup: Callable[[], T]) -> None:
        self._name = name
        self._setup = setup
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._state: T | None = None
        self._lock = threading.Lock()  # one job in flight: callers from several threads queue here
        self._closed = False

    def run(self, job: Callable[[T], object], wait: float) -> object:
        """``job(state)`` on the worker's thread; its result or its exception. ``Stuck`` past ``wait`` s."""
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self._name} is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()
            future: Future[object] = Future()
            caller = core_stop.current()  # the job obeys the caller's stop request (a script's http call)

            def run() -> object:
                with core_stop.stoppable(caller):
                    return job(self._ready())

            self._jobs.put((run, future))
            try:
                return core_stop.result(future, "while a script ran (it was given up)", wait)
            except TimeoutError:
                raise Stuck(f"{self._name} did not finish within {wait:.1f} s") from None

    def close(self) -> None:
        """Stop the thread once its job is done (a daemon: a stuck one dies with the process)."""
        with self._lock:
            self._closed = True
            if self._thread is not None:
                self._jobs.put(None)

    def _ready(self) -> T:
        if self._state is None:
            self._state = self._setup()
        return self._state

    def _serve(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                self._state = None
                return
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = job()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, who re-raises it
                _drop_locals(exc)
                future.set_exception(exc)
            else:
                future.set_result(result)
            del item, job, future


def _drop_locals(error: BaseException) -> None:
    """Clear the local variables of the frames an exception (and those it chains) went through, so no
    object of this thread (the engine's runtime: it must die here) leaves with it."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        pending += [current.__cause__, current.__context__]


class ThreadHost:
    """:class:`~amc.flows.js._process.ProcessHost`'s calls, answered by a :class:`Worker` thread of
    this process; ``stop`` is looked at only between calls (a running script is not interrupted)."""

    def __init__(self, name: str, serve: Callable[[list[Any]], Any]) -> None:
        self._worker: Worker[Session] = Worker(name, lambda: Session(serve))
        self.pid = None

    def call(self, message: dict[str, Any], wait: float, stop: _process.Stop | None) -> dict[str, Any]:
        if stop is not None and stop.is_set():
            raise _process.Stopped()
        try:
            answer = self._worker.run(lambda session: session.handle(message), wait)
        except Stuck as stuck:
            self._worker.close()
            raise _process.Stuck(str(stuck)) from None
        assert isinstance(answer, dict)
        return answer

    def close(self) -> None:
        self._worker.close()
