"""Persistence of runs: the crash-safe run timeline, secret redaction and the HTML report."""

from storage.redaction import RedactingFormatter, Redactor
from storage.report import REPORT_FILE, render_html, render_report
from storage.timeline import (
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
