"""The flow the inspector records: a ``launch_app`` first, then every action taken from its page.

:class:`FlowDraft` keeps the steps as flow mappings (``{"tap": {"id": "sign_in"}}``) and writes
the whole file after each one, so a stopped inspector leaves a flow that `amc run` replays. The
file is claimed when the draft opens: a path that exists is refused unless ``overwrite`` is
asked for, and a path that is not a regular file (a folder, a link, a device, a pipe) is refused
always; each later write goes to a temporary file beside it that then replaces it, so a reader
never sees half a flow. It is written in the project's flow format or in Maestro's
(:func:`amc.flows.recorded.write_flow`); strings are written with ``${`` as ``$${`` (the loader
reads ``${NAME}`` as a variable), and text typed into a password field is never written: the step
reads a ``${VARIABLE}`` named after the field (``${PASSWORD}``), with ``secret: true``, and the
file's header says to give it (``amc run FILE --env PASSWORD=...``).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..flows.recorded import (
    FORMATS,
    RecordedFlow,
    RecordedStep,
    Variable,
    check_path,
    claim_path,
    step_of,
    variable_name,
    write_flow,
)
from ..storage.files import write_atomic

__all__ = ["MAX_DRAFT_STEPS", "FlowDraft", "check_path", "claim_path"]

MAX_DRAFT_STEPS = 1000


class FlowDraft:
    """A recorded flow, written to ``path`` (when given) after every step, in ``format`` (``amc``,
    the project's flows, or ``maestro``)."""

    def __init__(
        self,
        app_id: str,
        *,
        platform: str,
        name: str,
        path: Path | None = None,
        device: str | None = None,
        format: str = "amc",
    ) -> None:
        if format not in FORMATS:
            raise ConfigError(f"a recording is written as one of {', '.join(FORMATS)}, not {format!r}")
        self.app_id = app_id
        self.platform = platform
        self.name = name
        self.path = path
        self.device = device
        self.format = format
        self.started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        self._lock = threading.Lock()
        self._steps: list[RecordedStep] = [step_of("launch_app", app_id)]
        self._names: list[str] = []

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The steps so far, each as ``{action: arguments}`` (a secret as its ``${VARIABLE}``)."""
        with self._lock:
            return [{step.action: dict(step.args)} for step in self._steps]

    def add(self, command: str, value: Any) -> None:
        """Append ``command: value`` (a step in the project's flow format, as the inspector ran it)
        and save the file. Text typed with ``secret: true`` is recorded as a ``${VARIABLE}`` named
        after its field, never as the text."""
        step = step_of(command, value)
        with self._lock:
            if len(self._steps) >= MAX_DRAFT_STEPS:
                raise ConfigError(
                    f"the recording has {MAX_DRAFT_STEPS} steps, the most one draft keeps",
                    hint="stop the inspector and start a new recording",
                )
            if step.action == "type_text" and step.args.get("secret") is True:
                target = step.args.get("target") or {}
                hint = next(
                    (target[k] for k in ("id", "label", "text") if isinstance(target.get(k), str)), None
                )
                self._names.append(variable_name(hint, self._names))
                step = RecordedStep(step.action, {**step.args, "text": Variable(self._names[-1])})
            self._steps.append(step)
            if self.path is not None:
                self._write(self._text())

    def text(self, *, shown: bool = False) -> str:
        """The flow file (``shown``: for the page; a secret is never in it either way)."""
        with self._lock:
            return self._text()

    def _text(self) -> str:
        where = f" on {self.device}" if self.device else ""
        flow = RecordedFlow(
            name=self.name,
            platform=self.platform,
            steps=tuple(self._steps),
            app_id=self.app_id,
            header=(f"Recorded with `amc inspect --serve --record`{where}, {self.started}.",),
        )
        return write_flow(flow, self.format)

    def save(self) -> None:
        """Write the file as it stands (the ``launch_app`` alone right after opening)."""
        with self._lock:
            if self.path is not None:
                self._write(self._text())

    def _write(self, text: str) -> None:
        assert self.path is not None
        write_atomic(self.path, text.encode("utf-8"), what="the recording")
