"""The index of a run of several flows: one page beside their run folders, linking each report.

``index.html`` lists each flow with its device, verdict, duration, step counts and first failure
(with the failed screen's picture when one was kept), and links the flow's ``report.html``
relatively (the folder can be moved or zipped as a whole). Each run's line is
:func:`~amc.storage.report_views.summarize`'s, the same words its report uses. Rendered with the
report's Jinja2 environment (autoescaping on: flow names and failure texts cannot inject markup).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .redaction import Redactor
from .report import INDEX_FILE, environment, write_text_file
from .report_views import summarize

__all__ = ["INDEX_FILE", "IndexRow", "render_index", "write_index"]


@dataclass(frozen=True)
class IndexRow:
    """One flow on one device; ``run_dir`` is None for a flow that did not run (``why`` says why).
    ``first_failure`` (with the step's file:line:column) is shown when given, else the report's."""

    flow: str
    file: str
    device: str
    duration: float
    run_dir: Path | None = None
    first_failure: str | None = None
    why: str | None = None


def render_index(rows: Sequence[IndexRow], folder: Path, *, title: str = "amc run") -> str:
    """The index page for ``rows``, with links relative to ``folder``."""
    shown = []
    counts = {"passed": 0, "failed": 0, "not run": 0}
    for row in rows:
        summary = summarize(row.run_dir, relative_to=folder) if row.run_dir is not None else None
        verdict = summary.verdict if summary is not None else "not run"
        counts[verdict] = counts.get(verdict, 0) + 1
        steps = ", ".join(f"{n} {status}" for status, n in summary.counts.items()) if summary else ""
        shown.append(
            {
                "row": row,
                "verdict": verdict,
                "reason": summary.reason if summary is not None else row.why,
                "steps": steps,
                "failure": row.first_failure or (summary.failure if summary is not None else None),
                "picture": summary.picture if summary is not None else None,
                "link": summary.report if summary is not None else None,
            }
        )
    template = environment().get_template("index.html.j2")
    return template.render(title=title, rows=shown, counts=counts, total=len(rows))


def write_index(
    folder: str | os.PathLike[str], rows: Sequence[IndexRow], *, redactor: Redactor | None = None
) -> Path:
    """Write ``folder/index.html`` for ``rows``, the ``redactor``'s secrets hidden in the page as
    written; a ``ConfigError`` when it cannot be written."""
    base = Path(folder)
    target = base / INDEX_FILE
    page = render_index(rows, base)
    write_text_file(target, redactor.text(page) if redactor is not None else page, what="the index page")
    return target
