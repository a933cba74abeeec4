"""Where a script context's engine runs: a process of its own, which the harness ends at the limit.

The engine (QuickJS-ng through jsbox) holds Python's interpreter lock for a whole evaluation and
checks its time limit between bytecodes only, so one native built-in (``'a'.repeat(2e5).indexOf(
...)``, a ``BigInt`` power, a regular expression that backtracks) would hold the whole harness,
its signal handlers and its other devices' flows with it, past every limit. So the engine runs in a
child process (:mod:`amc.flows.js._child`) and the harness only waits for its answer, in
``select`` calls of at most :data:`POLL` seconds, so that:

- at the evaluation's time limit plus its grace the child is killed (SIGKILL), whatever it runs;
- when the run's stop request is set (Ctrl-C: ``stop``), or the waiting thread gets a
  ``KeyboardInterrupt``, the child is killed within :data:`POLL` s and the caller gets
  ``Interrupted`` (or the ``KeyboardInterrupt``);
- nothing else of the process waits: the interpreter lock is free while a script runs.

A killed child takes the context's ``output`` with it: the context is given up (its next call
says so). The child's environment is empty but for what Python needs to find jsbox
(``PYTHONPATH``, ``SYSTEMROOT``), and it is in a session of its own, so a terminal's Ctrl-C
reaches the harness, which decides.

To keep a flow's first ``${...}`` cheap, one **spare** child is kept started (Python and jsbox
imported, no runtime yet; it says ``{"ready": true}`` once they are): a context takes it and a new
spare starts at once, in the background.
A process that never runs JavaScript starts none. POSIX only (``select`` on pipes).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ._frames import FrameError, read_frame, write_frame

__all__ = ["POLL", "Died", "ProcessHost", "Stop", "Stopped", "Stuck", "spare_ready"]

POLL = 0.1  # seconds between two looks at the stop request while a script runs
CHILD = str(Path(__file__).with_name("_child.py"))
_KEPT_ENV = ("PYTHONPATH", "SYSTEMROOT")


class Stop(Protocol):
    """The run's stop request (a :class:`~amc.runtime.cancel.Cancel` or a ``threading.Event``)."""

    def is_set(self) -> bool: ...


class Stuck(Exception):
    """The answer did not come within its wait; the child was killed."""


class Stopped(Exception):
    """The run's stop request was set while the child worked; the child was killed."""


class Died(Exception):
    """The child ended (or sent what is not a frame) before it answered; ``code`` is its exit
    status (negative: the signal that ended it), when known."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def _spawn() -> subprocess.Popen[bytes]:
    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    return subprocess.Popen(
        [sys.executable, "-B", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
        close_fds=True,
        bufsize=0,
    )


class _Spare:
    """The one child kept started for the next context (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._owner = os.getpid()
        self._filled = threading.Event()  # set once the next spare is started (or none is coming)
        atexit.register(self.drop)

    def take(self) -> subprocess.Popen[bytes]:
        """The spare (or a new child when there is none), and the next spare started in the
        background: the caller does not wait for a fork."""
        with self._lock:
            child = self._child if self._owner == os.getpid() else None
            self._owner = os.getpid()
            self._child = None
            self._filled.clear()
        threading.Thread(target=self._fill, name="amc-js-spare", daemon=True).start()
        if child is None or child.poll() is not None:
            return _spawn()
        return child

    def _fill(self) -> None:
        try:
            spare = _spawn()
        except OSError:
            self._filled.set()
            return
        with self._lock:
            old, self._child = self._child, spare
        if old is not None:
            _end(old)
        self._filled.set()

    def ready(self, timeout: float) -> bool:
        """Whether the spare has said it is ready (Python and jsbox imported) within ``timeout`` s
        (for measuring: a flow's device steps usually leave it that time)."""
        deadline = time.monotonic() + timeout
        self._filled.wait(timeout)
        with self._lock:
            child = self._child
        if child is None or child.stdout is None:
            return False
        left = max(deadline - time.monotonic(), 0.0)
        readable, _, _ = select.select([child.stdout.fileno()], [], [], left)
        return bool(readable)

    def drop(self) -> None:
        with self._lock:
            child, self._child = self._child, None
        if child is not None and self._owner == os.getpid():
            _end(child)


_SPARE = _Spare()
spare_ready = _SPARE.ready


def _end(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        with contextlib.suppress(OSError):
            child.kill()
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(5)


class ProcessHost:
    """One engine child for one context: messages in, answers out, ``http`` calls served between.

    ``serve`` answers the child's ``http`` calls (the engine's ``_Http``); it runs on a thread of
    its own per call, so a handler that hangs is waited for only until the evaluation's deadline.
    ``max_answer``: bytes of one frame from the child. Made without I/O: the child is taken on the
    first :meth:`call`."""

    def __init__(self, serve: Callable[[list[Any]], Any], max_answer: int) -> None:
        self._serve = serve
        self._max_answer = max_answer
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()  # one call in flight: callers from several threads queue here
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (for tests)."""
        return self._child.pid if self._child is not None and self._child.poll() is None else None

    def call(self, message: dict[str, Any], wait: float, stop: Stop | None) -> dict[str, Any]:
        """The child's answer to ``message`` within ``wait`` s; ``Stuck``, ``Stopped``, ``Died``
        (the child killed in each case, and a ``KeyboardInterrupt`` kills it too)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this script engine is closed")
            if self._child is None:
                self._child = _SPARE.take()
            child = self._child
            assert child.stdin is not None and child.stdout is not None
            deadline = time.monotonic() + wait
            try:
                write_frame(child.stdin.fileno(), message)
                while True:
                    answer = self._next(child.stdout.fileno(), deadline, stop, wait)
                    if answer == {"ready": True}:  # the child's first word, once it imported jsbox
                        continue
                    if isinstance(answer, dict) and "http" in answer and len(answer) == 1:
                        write_frame(
                            child.stdin.fileno(), self._host_call(answer["http"], deadline, stop, wait)
                        )
                        continue
                    if not isinstance(answer, dict):
                        raise Died("the engine's process answered with what is not a message")
                    return answer
            except BaseException as exc:
                code = self._kill()
                if isinstance(exc, (FrameError, OSError)):
                    raise Died(_ended(code), code) from None
                raise

    def close(self) -> None:
        """End the child (the context cannot be used after)."""
        with self._lock:
            self._closed = True
            self._kill()

    def _kill(self) -> int | None:
        child, self._child = self._child, None
        if child is None:
            return None
        _end(child)
        return child.returncode

    def _next(self, fd: int, deadline: float, stop: Stop | None, wait: float) -> Any:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Stuck(f"no answer within {wait:.1f} s")
            if stop is not None and stop.is_set():
                raise Stopped()
            ready, _, _ = select.select([fd], [], [], min(left, POLL))
            if ready:
                return read_frame(fd, self._max_answer)

    def _host_call(self, args: object, deadline: float, stop: Stop | None, wait: float) -> Any:
        """One ``http`` call of the script, served on a thread of its own within the deadline."""
        done = threading.Event()
        box: list[Any] = []

        def serve() -> None:
            try:
                box.append(self._serve(args if isinstance(args, list) else []))
            except Exception as exc:  # noqa: BLE001 - the script gets an Error saying it
                box.append({"error": f"{type(exc).__name__}: {exc}"[:4096]})
            finally:
                done.set()

        threading.Thread(target=serve, name="amc-js-http", daemon=True).start()
        while not done.wait(max(min(deadline - time.monotonic(), POLL), 0)):
            if time.monotonic() >= deadline:
                raise Stuck(f"no answer within {wait:.1f} s (an HTTP call did not return)")
            if stop is not None and stop.is_set():
                raise Stopped()
        return box[0]


def _ended(code: int | None) -> str:
    if code is None:
        return "the engine's process ended"
    if code < 0:
        try:
            import signal

            return f"the engine's process ended by {signal.Signals(-code).name}"
        except ValueError:
            return f"the engine's process ended by signal {-code}"
    return f"the engine's process ended with exit status {code}"
