"""Running flows on devices for ``amc run``: the flow runner's (:mod:`amc.flows.run`), named here as
``amc run``'s modules have always named them. :func:`run_logging` writes its warnings to the
command's stderr."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..flows.run import LOG_FILE, NO_DEVICE, NOT_RUN_AFTER, NOT_STARTED, Device, FlowRun, Job, run_schedule
from ..flows.run import run_logging as _run_logging
from ..storage.redaction import Redactor
from .common import Streams

__all__ = [
    "LOG_FILE",
    "NOT_RUN_AFTER",
    "NOT_STARTED",
    "NO_DEVICE",
    "Device",
    "FlowRun",
    "Job",
    "run_logging",
    "run_schedule",
]


@contextmanager
def run_logging(
    redactor: Redactor, log_path: Path, io: Streams, *, this_thread: bool = False
) -> Iterator[None]:
    """INFO and up to ``log_path``, warnings to the command's stderr (:func:`amc.flows.run.run_logging`)."""
    with _run_logging(redactor, log_path, io.err, this_thread=this_thread):
        yield
