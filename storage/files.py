"""Files a run writes and reads: written whole without following a link (:func:`write_atomic`), read
within a bound (:func:`read_bounded`).

The text goes to a new temporary file in the target's own folder, named uniquely by
``tempfile.mkstemp`` (created with ``O_CREAT | O_EXCL``, so it is never an existing file or a link
someone placed there, and two writers of the same target never share one), is flushed to disk,
and then replaces the target with ``os.replace``: a rename, which replaces a link at the target's
name rather than writing through it. Ten runs writing the same ``index.html`` at once each rename
a whole file of their own; the last one wins.

A file the harness reads back (a run's timeline, for ``amc report``) may have been put there by
anyone: :func:`read_bounded` reads only a regular file (never a FIFO or a device such as
``/dev/zero``, which would never end), of at most the size it is given, and names that limit when
the file is larger.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from ..core.errors import ConfigError

__all__ = ["FILE_MODE", "read_bounded", "write_atomic"]

FILE_MODE = 0o644  # what a report, an index page or a JUnit file is readable as


def write_atomic(target: Path, data: bytes, *, what: str) -> None:
    """Write ``data`` to ``target`` as described in the module docstring (its folder made if
    missing); a ``ConfigError`` naming ``what`` and the path when it cannot be written."""
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), FILE_MODE)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise ConfigError(
            f"cannot write {what} to {target}: {exc.strerror or exc}",
            hint="choose a path in a folder you can write to",
        ) from exc


def read_bounded(path: Path, limit: int, *, what: str, hint: str | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; a ``ConfigError``
    naming ``what``, the path and the problem (not readable, not a regular file, over ``limit``)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}", hint=hint
        ) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{what} {path} is not a regular file", hint=hint)
        if info.st_size > limit:
            raise ConfigError(f"{what} {path} is {info.st_size} bytes; the limit is {limit}", hint=hint)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"{what} {path} is over {limit} bytes, the limit", hint=hint)
    return data
