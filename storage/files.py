"""Writing a whole file so that no reader sees half of it and no link is followed: :func:`write_atomic`.

The text goes to a new temporary file in the target's own folder, named uniquely by
``tempfile.mkstemp`` (created with ``O_CREAT | O_EXCL``, so it is never an existing file or a link
someone placed there, and two writers of the same target never share one), is flushed to disk,
and then replaces the target with ``os.replace``: a rename, which replaces a link at the target's
name rather than writing through it. Ten runs writing the same ``index.html`` at once each rename
a whole file of their own; the last one wins.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..core.errors import ConfigError

__all__ = ["FILE_MODE", "write_atomic"]

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
