"""Persistence of runs: the crash-safe run timeline, secret redaction and the HTML report."""

from .redaction import RedactingFormatter, Redactor
from .report import REPORT_FILE, render_html, render_report
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
    "REPORT_FILE",
    "TIMELINE_FILE",
    "RedactingFormatter",
    "Redactor",
    "RunInfo",
    "Timeline",
    "TimelineWriter",
    "new_run_dir",
    "read_timeline",
    "render_html",
    "render_report",
    "step_status",
]
