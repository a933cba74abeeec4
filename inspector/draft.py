"""The flow the inspector records: a ``launch_app`` first, then every action taken from its page.

:class:`FlowDraft` keeps the steps as flow mappings (``{"tap": {"id": "sign_in"}}``) and writes
the whole file after each one, so a stopped inspector leaves a flow that `amc run` replays. The
file is claimed when the draft opens: a path that exists is refused unless ``overwrite`` is
asked for, and a path that is not a regular file (a folder, a link, a device, a pipe) is refused
always; each later write goes to a temporary file beside it that then replaces it, so a reader
never sees half a flow. Strings are written with ``${`` as ``$${`` (the loader reads ``${NAME}``
as a variable); text typed into a password field is written with ``secret: true``.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..storage.files import write_atomic
from .selectors import flow_yaml

__all__ = ["MAX_DRAFT_STEPS", "FlowDraft", "check_path", "claim_path"]

MAX_DRAFT_STEPS = 1000


def check_path(path: str | os.PathLike[str], *, overwrite: bool) -> Path:
    """Whether the draft may be written at ``path``: a ``ConfigError`` naming the problem if not.
    Touches nothing."""
    target = Path(path)
    where = os.fspath(path)
    if not target.name or target.name in (".", ".."):
        raise ConfigError(f"--record {where} is not a file name", hint="e.g. --record recorded.yaml")
    folder = target.parent
    if not folder.is_dir():
        raise ConfigError(f"--record {where}: the folder {folder} does not exist", hint="create it first")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ConfigError(f"--record {where} cannot be checked: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(f"--record {where} is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"--record {where} exists and is not a regular file")
    if not overwrite:
        raise ConfigError(
            f"--record {where} already exists", hint="pass --overwrite to replace it, or choose a new name"
        )
    return target


def claim_path(path: str | os.PathLike[str], *, overwrite: bool) -> Path:
    """:func:`check_path`, then create the file (empty; emptied with ``overwrite``), refusing to
    follow a link or to replace a file that appeared since unless ``overwrite``."""
    target = check_path(path, overwrite=overwrite)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    flags |= os.O_TRUNC if overwrite else os.O_EXCL
    try:
        fd = os.open(target, flags, 0o644)
    except OSError as exc:
        raise ConfigError(f"--record {os.fspath(path)} cannot be written: {exc.strerror or exc}") from exc
    os.close(fd)
    return target


class FlowDraft:
    """A recorded flow, written to ``path`` (when given) after every step."""

    def __init__(
        self,
        app_id: str,
        *,
        platform: str,
        name: str,
        path: Path | None = None,
        device: str | None = None,
    ) -> None:
        self.app_id = app_id
        self.platform = platform
        self.name = name
        self.path = path
        self.device = device
        self.started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        self._lock = threading.Lock()
        self._steps: list[dict[str, Any]] = [{"launch_app": app_id}]

    @property
    def steps(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(step) for step in self._steps]

    def add(self, command: str, value: Any) -> None:
        """Append ``command: value`` (a flow mapping, written as given) and save the file."""
        with self._lock:
            if len(self._steps) >= MAX_DRAFT_STEPS:
                raise ConfigError(
                    f"the recording has {MAX_DRAFT_STEPS} steps, the most one draft keeps",
                    hint="stop the inspector and start a new recording",
                )
            self._steps.append({command: value})
            if self.path is not None:
                self._write(self._text())

    def text(self, *, shown: bool = False) -> str:
        """The flow file; ``shown`` hides the text of secret steps (for the page, not the file)."""
        with self._lock:
            return self._text(shown=shown)

    def _text(self, *, shown: bool = False) -> str:
        lines = [
            f"# Recorded with `amc inspect --serve --record`{f' on {self.device}' if self.device else ''}, "
            f"{self.started}.",
            f"name: {flow_yaml(self.name)}",
            f"platform: {flow_yaml(self.platform)}",
            "steps:",
        ]
        for step in self._steps:
            ((command, value),) = step.items()
            if shown and isinstance(value, Mapping) and value.get("secret") is True:
                value = {**value, "text": "***"}
            lines.append(f"  - {command}: {flow_yaml(value)}")
        return "\n".join(lines) + "\n"

    def save(self) -> None:
        """Write the file as it stands (the ``launch_app`` alone right after opening)."""
        with self._lock:
            if self.path is not None:
                self._write(self._text())

    def _write(self, text: str) -> None:
        assert self.path is not None
        write_atomic(self.path, text.encode("utf-8"), what="the recording")
