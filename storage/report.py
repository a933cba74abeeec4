"""The HTML report of a run: one self-contained page beside the run's timeline.

:func:`render_report` reads a run folder (:func:`storage.timeline.read_timeline`, so a run that
was killed still gets a report) and renders ``storage/templates/report.html.j2`` with Jinja2,
autoescaping on: text read from a device's UI cannot inject markup. Failures come first, then
every step with its screenshot, action, result, timing and world state. Screenshots and page
sources are linked relatively (they sit in the same folder), so no server is needed and the
folder can be moved or zipped as a whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from ..core.errors import ConfigError
from .timeline import Timeline, read_timeline

__all__ = ["REPORT_FILE", "StepView", "environment", "render_html", "render_report", "write_text_file"]

REPORT_FILE = "report.html"
_TEMPLATE = "report.html.j2"
# A step file named in a timeline is only linked when it is a plain file name of ours.
_SAFE_NAME = re.compile(r"step-\d{3,}[A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class StepView:
    """One step as the report shows it."""

    number: int
    status: str
    action: str
    target: str
    duration_ms: float
    attempts: int
    error: str | None
    error_kind: str | None
    app: str | None
    page: str | None
    expected: str | None
    rationale: str | None
    texts: tuple[str, ...]
    world: str | None
    output: str | None
    screenshot: str | None
    source: str | None


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _file(run_dir: Path, name: Any) -> str | None:
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or not (run_dir / name).is_file():
        return None
    return name


def _number(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _step_view(run_dir: Path, record: Mapping[str, Any]) -> StepView:
    result = _get(record, "result") or {}
    output = _get(result, "output")
    world = _get(record, "world")
    texts = _get(record, "scene", "texts")
    return StepView(
        number=int(_number(_get(record, "number"))),
        status=str(record.get("status", "unknown")),
        action=str(record.get("action", "?")),
        target=str(record.get("target", "")),
        duration_ms=_number(_get(result, "duration")) * 1000,
        attempts=int(_number(_get(result, "attempts"), 1)),
        error=_str(_get(result, "error")),
        error_kind=_str(_get(result, "error_kind")),
        app=_str(record.get("foreground_app")),
        page=_str(record.get("page")),
        expected=_str(_get(record, "step", "expected_outcome")),
        rationale=_str(_get(record, "step", "rationale")),
        texts=tuple(str(t) for t in texts) if isinstance(texts, list) else (),
        world=json.dumps(world, indent=2, ensure_ascii=False) if world is not None else None,
        output=None if output is None else json.dumps(output, indent=2, ensure_ascii=False),
        screenshot=_file(run_dir, _get(record, "files", "screenshot")),
        source=_file(run_dir, _get(record, "files", "source")),
    )


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(__name__.rpartition(".")[0], "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(timeline: Timeline) -> str:
    """The report page for ``timeline`` as a string."""
    header = timeline.header or {}
    footer = timeline.footer or {}
    device = _get(header, "device") or {}
    steps = [_step_view(timeline.run_dir, record) for record in timeline.steps]
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
    run = {
        "flow": str(header.get("flow") or timeline.run_dir.name),
        "flow_file": _str(header.get("flow_file")),
        "status": timeline.status,
        "device": device_text or "unknown",
        "started_at": _str(header.get("started_at")),
        "ended_at": _str(footer.get("ended_at")),
        "duration": footer.get("duration") if isinstance(footer.get("duration"), int | float) else None,
        "planned_steps": header.get("planned_steps")
        if isinstance(header.get("planned_steps"), int)
        else None,
        "error": _str(footer.get("error")),
        "error_kind": _str(footer.get("error_kind")),
    }
    counts = {
        "total": len(steps),
        "passed": sum(s.status == "passed" for s in steps),
        "failed": len(failures),
        "skipped": sum(s.status == "skipped" for s in steps),
        "warning": sum(s.status == "warning" for s in steps),
        "retried": sum(s.status == "retried" for s in steps),
    }
    template = environment().get_template(_TEMPLATE)
    noticed = [s for s in steps if s.status in ("warning", "retried")]
    return template.render(
        run=run, counts=counts, warnings=warnings, failures=failures, noticed=noticed, steps=steps
    )


def render_report(run_dir: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Render the report of the run in ``run_dir`` to ``out`` (default ``run_dir/report.html``)."""
    timeline = read_timeline(run_dir)
    target = Path(out) if out is not None else timeline.run_dir / REPORT_FILE
    if target.is_dir():
        raise ConfigError(
            f"--out {target} is a folder, not a file",
            hint=f"give a file name, e.g. {target / REPORT_FILE}",
        )
    write_text_file(target, render_html(timeline), what="the report")
    return target


def write_text_file(target: Path, text: str, *, what: str) -> None:
    """Write ``text`` to ``target`` through a temporary file beside it (its folder made if missing);
    a ``ConfigError`` naming the path when it cannot be written (under a file, in /proc, no room …)."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ConfigError(
            f"cannot write {what} to {target}: {exc.strerror or exc}",
            hint="choose a path in a folder you can write to",
        ) from exc
