"""Persistence of runs: the crash-safe run timeline, secret redaction and the HTML report."""

from .redaction import RedactingFormatter, Redactor
from .report import INDEX_FILE, REPORT_FILE, render_html, render_report
from .report_views import RunSummary, run_verdict, summarize
from .timeline import (
    TIMELINE_FILE,
    RunInfo,
    Timeline,
    TimelineWriter,
    new_run_dir,
    read_timeline,
    step_status,
)

__all__ = [
    "INDEX_FILE",
    "REPORT_FILE",
    "TIMELINE_FILE",
    "RedactingFormatter",
    "Redactor",
    "RunInfo",
    "RunSummary",
    "Timeline",
    "TimelineWriter",
    "new_run_dir",
    "read_timeline",
    "render_html",
    "render_report",
    "run_verdict",
    "step_status",
    "summarize",
]
