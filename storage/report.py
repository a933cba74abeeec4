"""The HTML report of a run: one self-contained page beside the run's timeline.

:func:`render_report` reads a run folder (:func:`storage.timeline.read_timeline`, so a run that
was killed still gets a report) and renders ``storage/templates/report.html.j2`` with Jinja2,
autoescaping on: text read from a device's UI cannot inject markup. The run's verdict comes
first (``passed`` or ``failed``, with the reason), then the failures, then every step with its
pictures (a thumbnail of each; on the screen a tap or typing acted on, the element outlined from
the bounds the step recorded), action, result, timing and world state; the failed step's screen
texts are shown open. Pictures and page sources are linked relatively (they sit in the same
folder), so no server is needed and the folder can be moved or zipped as a whole.
:mod:`storage.report_views` reads the timeline into what the page shows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2

from ..core.errors import ConfigError
from .files import write_atomic
from .redaction import Redactor
from .report_views import REPORT_FILE, StepView, run_verdict, step_views
from .timeline import Timeline, read_timeline

__all__ = [
    "INDEX_FILE",
    "REPORT_FILE",
    "StepView",
    "environment",
    "render_html",
    "render_report",
    "write_text_file",
]

INDEX_FILE = "index.html"
_TEMPLATE = "report.html.j2"


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _model(header: dict[str, Any], footer: dict[str, Any]) -> str | None:
    """The model an agent run planned with, and where (the run record's, else the end record's)."""
    model = _get(header, "model") or footer.get("model")
    if not isinstance(model, dict):
        return _text(model)
    name, url = _text(model.get("name")), _text(model.get("url"))
    return f"{name} at {url}" if name and url else name


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the run pages (autoescaping on, templates in storage/templates)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(__name__.rpartition(".")[0], "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(timeline: Timeline, *, index: str | None = None) -> str:
    """The report page for ``timeline`` as a string; ``index`` is a link back to a page listing
    many runs (relative to the run folder), shown when given."""
    header = dict(timeline.header or {})
    footer = dict(timeline.footer or {})
    device = _get(header, "device") or {}
    steps = step_views(timeline.run_dir, timeline.steps)
    failures = [s for s in steps if s.status == "failed"]
    warnings: list[str] = []
    if not timeline.finished:
        last = f"after step {steps[-1].number}" if steps else "before any step was recorded"
        warnings.append(
            f"This run did not finish: the timeline has no end record. The process stopped {last}; "
            "every step it had executed is shown."
        )
    warnings.extend(f"Timeline: {problem}." for problem in timeline.problems)
    device_text = " ".join(
        str(part)
        for part in (
            _get(device, "platform"),
            _get(device, "id"),
            f"via {_get(device, 'backend')}" if _get(device, "backend") else None,
            f"({_get(device, 'spec')})" if _get(device, "spec") else None,
        )
        if part
    )
    verdict, reason = run_verdict(timeline.status)
    goal = _text(header.get("goal"))
    duration = footer.get("duration")
    planned = header.get("planned_steps")
    run = {
        "flow": str(header.get("flow") or timeline.run_dir.name),
        "flow_file": None if header.get("flow_file") is None else str(header.get("flow_file")),
        "verdict": verdict,
        "reason": reason,
        "device": device_text or "unknown",
        "started_at": None if header.get("started_at") is None else str(header.get("started_at")),
        "ended_at": None if footer.get("ended_at") is None else str(footer.get("ended_at")),
        "duration": duration
        if isinstance(duration, int | float) and not isinstance(duration, bool)
        else None,
        "planned_steps": planned if isinstance(planned, int) and not isinstance(planned, bool) else None,
        "error": None if footer.get("error") is None else str(footer.get("error")),
        "error_kind": None if footer.get("error_kind") is None else str(footer.get("error_kind")),
        "index": index,
        "goal": goal if goal not in (header.get("flow"), f"flow {header.get('flow')}") else None,
        "model": _model(header, footer),
    }
    counts: dict[str, int] = {"passed": 0, "failed": 0, "skipped": 0}
    for s in steps:
        counts[s.status] = counts.get(s.status, 0) + 1
    noticed = [s for s in steps if s.status in ("warning", "retried")]
    # the run's recording: a screen recording kept, then every picture its steps kept, in order and
    # each once (a step's "before" picture is the previous step's own): a filmstrip
    frames: dict[str, dict[str, Any]] = {}
    for s in steps:
        for p in s.pictures:
            frames.setdefault(
                p.file, {"step": s.number, "status": s.status, "file": p.file, "video": p.video}
            )
    filmstrip = sorted(frames.values(), key=lambda frame: not frame["video"])
    template = environment().get_template(_TEMPLATE)
    return template.render(
        run=run,
        total=len(steps),
        counts=counts,
        warnings=warnings,
        failures=failures,
        noticed=noticed,
        steps=steps,
        filmstrip=filmstrip,
    )


def render_report(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    index: str | os.PathLike[str] | None = None,
    redactor: Redactor | None = None,
) -> Path:
    """Render the report of the run in ``run_dir`` to ``out`` (default ``run_dir/report.html``),
    the ``redactor``'s secrets hidden in the page as written (the timeline it reads has them hidden
    already; a run that is still going knows them).

    ``index`` is the page listing many runs that the report links back to; by default the
    ``index.html`` in the folder above the run folder, when there is one.
    """
    timeline = read_timeline(run_dir)
    target = Path(out) if out is not None else timeline.run_dir / REPORT_FILE
    page = Path(index) if index is not None else timeline.run_dir.parent / INDEX_FILE
    if target.is_dir():
        raise ConfigError(
            f"--out {target} is a folder, not a file",
            hint=f"give a file name, e.g. {target / REPORT_FILE}",
        )
    link = None
    if index is not None or page.is_file():
        link = Path(os.path.relpath(page.resolve(), target.resolve().parent)).as_posix()
    html = render_html(timeline, index=link)
    write_text_file(target, redactor.text(html) if redactor is not None else html, what="the report")
    return target


def write_text_file(target: Path, text: str, *, what: str) -> None:
    """Write ``text`` to ``target`` atomically (:func:`amc.storage.files.write_atomic`: a unique
    temporary file beside it, never through a link); a ``ConfigError`` naming the path when it
    cannot be written (under a file, in /proc, no room …)."""
    write_atomic(target, text.encode("utf-8"), what=what)
