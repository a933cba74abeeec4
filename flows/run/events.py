"""What a flow run tells its listeners: five frozen events, in this order per run.

:class:`RunStarted` once (the flows are chosen and the devices connected), then per flow on a
device :class:`FlowStarted`, a :class:`StepDone` for each executed step (once the step is on disk
in the flow's timeline), :class:`FlowDone` (a flow that did not run, too: its outcome says why),
and :class:`RunDone` once, with every outcome. A :class:`RunListener` hears them in the order the
listeners were given, each event handed to every listener before the next event: a listener that
writes a file (the HTML report, the JUnit file) is given before one that names it (the console).
Flows on several devices run on a thread each, so a listener may be called from several threads
at once (never twice at once for the same flow); a listener that raises stops the run as a bug does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...core.models import Platform
from ..model import Flow
from .outcome import FlowOutcome

__all__ = [
    "FlowDone",
    "FlowStarted",
    "Listeners",
    "RunDevice",
    "RunDone",
    "RunEvent",
    "RunListener",
    "RunStarted",
    "StepDone",
]


@dataclass(frozen=True)
class RunDevice:
    """A device flows run on, as the run names it: its ``spec`` (``SPEC #2`` for the second of a spec
    given twice) and why it was chosen, with what the driver says it is."""

    spec: str
    reason: str
    device_id: str
    platform: Platform
    backend: str


@dataclass(frozen=True)
class RunStarted:
    """Every flow is checked and every given device connected; nothing has run yet. ``devices``:
    the given devices (none: each flow on a fresh simulated device); ``index``: the page listing
    the flows the reports link back to (several flows); ``notes``: what the workspaces set aside;
    ``left_out``: the flows the tags leave out."""

    out: Path
    index: Path | None
    devices: tuple[RunDevice, ...]
    flows: int
    notes: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class FlowStarted:
    """``flow`` starts on ``device``, writing into ``run_dir``; ``total``: its steps when they are
    known before it runs (None: conditions or retries decide them as it goes)."""

    flow: Flow
    device: RunDevice
    run_dir: Path
    total: int | None


@dataclass(frozen=True)
class StepDone:
    """A step of ``flow`` on ``device`` (its spec) ran; ``record`` is the step as its timeline holds it
    (``number``, ``status``, ``action``, ``target``, ``result`` …), already on disk."""

    flow: Flow
    device: str
    total: int | None
    record: Mapping[str, Any]


@dataclass(frozen=True)
class FlowDone:
    """A flow ended on a device, or was not run (``outcome.status`` ``skipped``, or ``device_error``
    with no run folder when no device could take it)."""

    outcome: FlowOutcome


@dataclass(frozen=True)
class RunDone:
    """Every flow has ended. ``outcomes`` in the order of the devices and their flows; ``interrupted``
    when a stop request (Ctrl-C) ended the run; ``index`` and ``junit``: the files the report and
    JUnit listeners write now (None: not written)."""

    outcomes: tuple[FlowOutcome, ...]
    interrupted: bool
    out: Path
    index: Path | None = None
    junit: Path | None = None


RunEvent = RunStarted | FlowStarted | StepDone | FlowDone | RunDone


class RunListener(Protocol):
    """Hears a run's events (see the module's docstring for their order and threads)."""

    def on_event(self, event: RunEvent) -> None: ...


class Listeners:
    """Several listeners as one: each event to each of them, in the order given."""

    def __init__(self, listeners: Sequence[RunListener]) -> None:
        self.listeners = tuple(listeners)

    def on_event(self, event: RunEvent) -> None:
        for listener in self.listeners:
            listener.on_event(event)
