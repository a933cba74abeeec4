"""The index of a run of several flows: one page beside their run folders, linking each report.

``index.html`` lists each flow with its device, status, duration and first failure, and links the
flow's ``report.html`` relatively (the folder can be moved or zipped as a whole). Rendered with the
report's Jinja2 environment (autoescaping on: flow names and failure texts cannot inject markup).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .report import INDEX_FILE, environment, write_text_file

__all__ = ["INDEX_FILE", "IndexRow", "render_index", "write_index"]


@dataclass(frozen=True)
class IndexRow:
    """One flow on one device; ``report`` is None for a flow that did not run (``status`` skipped)."""

    flow: str
    file: str
    device: str
    status: str
    duration: float
    first_failure: str | None = None
    report: Path | None = None


def render_index(rows: Sequence[IndexRow], folder: Path, *, title: str = "amc run") -> str:
    """The index page for ``rows``, with report links relative to ``folder``."""
    shown = []
    for row in rows:
        link = None
        if row.report is not None:
            link = Path(os.path.relpath(row.report, folder)).as_posix()
        shown.append({"row": row, "link": link})
    counts = {
        status: sum(r.status == status for r in rows)
        for status in ("succeeded", "failed", "device_error", "skipped", "interrupted")
    }
    template = environment().get_template("index.html.j2")
    return template.render(title=title, rows=shown, counts=counts, total=len(rows))


def write_index(folder: str | os.PathLike[str], rows: Sequence[IndexRow]) -> Path:
    """Write ``folder/index.html`` for ``rows``; a ``ConfigError`` when it cannot be written."""
    base = Path(folder)
    target = base / INDEX_FILE
    write_text_file(target, render_index(rows, base), what="the index page")
    return target
