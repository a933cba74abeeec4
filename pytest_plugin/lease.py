"""Device leases: an exclusive, cross-process hold on one device, as a lock file.

Two pytest-xdist workers (or two pytest runs) that name the same device never drive it at the
same time: each test takes the device's lease before its first device call and gives it back after
its reset. The lock is an OS file lock (``flock`` / ``msvcrt.locking``), so a worker that dies
drops its leases with its file descriptors. Waiting for a lease is an explicit, bounded poll; the
lock file holds who has the lease, so a waiter that gives up can say who it waited for.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from ..core.errors import LeaseTimeout

__all__ = ["DeviceLease", "read_lease_log"]

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class DeviceLease:
    """The lease on one device: ``<lock_dir>/<key>.lock``.

    ``holder`` describes the taker (worker, test, pid) and is written into the lock file while the
    lease is held; ``log`` (optional) gets one JSON line per acquire and release, so a run can show
    which worker drove which device when. The constructor does no I/O.
    """

    def __init__(
        self, lock_dir: Path, key: str, *, holder: Mapping[str, Any], log: Path | None = None
    ) -> None:
        self.path = lock_dir / f"{key}.lock"
        self.key = key
        self.holder = dict(holder)
        self.log = log
        self._fd: int | None = None
        self._since = 0.0

    @property
    def held(self) -> bool:
        return self._fd is not None

    def current_holder(self) -> str | None:
        """Who holds the lease now, as written in the lock file (None when unknown)."""
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return text or None

    def acquire(self, timeout: float, *, poll: float = 0.05) -> float:
        """Take the lease, waiting at most ``timeout`` seconds; returns how long it waited.

        :class:`~core.errors.LeaseTimeout` (naming the holder) when it is still taken after ``timeout``.
        """
        if self._fd is not None:
            raise RuntimeError(f"lease {self.key} is already held by this process")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        started = time.monotonic()
        deadline = started + timeout
        interval = poll
        while not _try_lock(fd):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.close(fd)
                holder = self.current_holder()
                raise LeaseTimeout(
                    f"device {self.key} stayed leased for more than {timeout:g} s "
                    f"(held by {holder or 'an unknown process'})",
                    holder=holder,
                )
            time.sleep(min(interval, remaining))
            interval = min(interval * 2, 0.5)
        waited = time.monotonic() - started
        self._fd = fd
        self._since = time.time()
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps({**self.holder, "since": self._since}).encode())
        self._log("acquire", waited=round(waited, 3))
        return waited

    def release(self) -> None:
        """Give the lease back (a no-op when not held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
            _unlock(fd)
        finally:
            os.close(fd)
        self._log("release", held=round(time.time() - self._since, 3))

    def _log(self, event: str, **extra: Any) -> None:
        if self.log is None:
            return
        line = json.dumps({"event": event, "key": self.key, "time": time.time(), **self.holder, **extra})
        self.log.parent.mkdir(parents=True, exist_ok=True)
        # One short line per write with O_APPEND: lines from several workers do not interleave.
        fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def __enter__(self) -> DeviceLease:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def read_lease_log(path: Path) -> list[dict[str, Any]]:
    """The events a lease log holds, oldest first ([] when there is no log)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines if line.strip()]
