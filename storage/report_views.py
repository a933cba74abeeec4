"""What the HTML report shows of a run, read from its timeline: one verdict word, step cards with
their pictures, and the outline of the element a step acted on.

Every value comes from a timeline that may have been tampered with: file names are linked only
when they are plain step files of the run folder that exist, numbers only when they are finite,
and an outline only when its bounds lie in a window of positive size.

The words are the same everywhere: a step is ``passed``, ``failed`` or ``skipped`` (as the
timeline records it), and so is a run: ``passed`` when its task succeeded, else ``failed`` with
the reason in a few words (a device error, the step limit, an interruption, a run that did not
finish). :func:`summarize` gives one run's line for a page listing many runs.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .timeline import Timeline, read_timeline

__all__ = [
    "REPORT_FILE",
    "Outline",
    "Picture",
    "RunSummary",
    "StepView",
    "acted_on",
    "run_verdict",
    "step_views",
    "summarize",
]

REPORT_FILE = "report.html"
# A step file named in a timeline is only linked when it is a plain file name in the run folder
# (``step-004.png``, a screenshot step's ``login_page.png``): no folder, no scheme, no leading dot.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
# The task's ending -> the reason a run that did not pass gives.
_REASONS: dict[str, str | None] = {
    "failed": None,
    "device_error": "device error",
    "infrastructure_error": "infrastructure error",
    "max_steps": "step limit reached",
    "interrupted": "interrupted",
    "unfinished": "did not finish",
}


def run_verdict(status: str) -> tuple[str, str | None]:
    """A run's task status as the report words it: ``("passed", None)`` or ``("failed", reason)``."""
    if status == "succeeded":
        return "passed", None
    return "failed", _REASONS.get(status, status)


@dataclass(frozen=True)
class Outline:
    """A rectangle on a picture, in percent of its width and height."""

    left: float
    top: float
    width: float
    height: float

    @property
    def style(self) -> str:
        return f"left:{self.left:.3f}%;top:{self.top:.3f}%;width:{self.width:.3f}%;height:{self.height:.3f}%"


@dataclass(frozen=True)
class Picture:
    """A screenshot of the run folder shown on a step's card."""

    file: str
    caption: str
    outline: Outline | None = None
    video: bool = False  # an MP4 recording, shown as a video


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
    overlay: str | None  # the dialog the world model saw covering the app (world.overlay)
    expected: str | None
    rationale: str | None
    verified: bool | None  # the loop's check of the expectation (None: nothing to check)
    saw: str | None  # what that check saw
    changed: bool | None  # whether the screen changed at all
    texts: tuple[str, ...]
    world: str | None
    output: str | None
    pictures: tuple[Picture, ...]
    source: str | None


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


def _file(run_dir: Path, name: Any) -> str | None:
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or not (run_dir / name).is_file():
        return None
    return name


def acted_on(output: Any) -> Outline | None:
    """The outline of the element a step acted on, from the ``bounds`` and ``window`` its result
    recorded (device units), or None when it recorded none or nonsense."""
    bounds, window = _get(output, "bounds"), _get(output, "window")
    if not isinstance(bounds, Mapping) or not isinstance(window, list) or len(window) != 2:
        return None
    width, height = (_number(v, -1) for v in window)
    edges = [_number(bounds.get(k), math.nan) for k in ("left", "top", "right", "bottom")]
    if width <= 0 or height <= 0 or any(math.isnan(e) for e in edges):
        return None
    left, top = max(0.0, edges[0]), max(0.0, edges[1])
    right, bottom = min(width, edges[2]), min(height, edges[3])
    if right <= left or bottom <= top:
        return None
    return Outline(
        100 * left / width, 100 * top / height, 100 * (right - left) / width, 100 * (bottom - top) / height
    )


def _pictures(own: str | None, before: str | None, outline: Outline | None) -> tuple[Picture, ...]:
    """A step's pictures: the screen it acted on with the element outlined (the previous step's
    picture, taken right after the look the step's selector was resolved on), then its own."""
    shown: list[Picture] = []
    if outline is not None and before is not None:
        shown.append(Picture(before, "before: the element it acted on", outline))
        outline = None
    if own is not None:
        caption = "after the step" if outline is None else "after the step; outlined: where it acted"
        shown.append(Picture(own, caption, outline))
    return tuple(shown)


def _recording(run_dir: Path, record: Mapping[str, Any]) -> tuple[Picture, ...]:
    """The screen recording a ``stop_recording`` step kept, if any."""
    name = _file(run_dir, _get(record, "files", "recording"))
    if name is None:
        return ()
    return (Picture(name, "the screen recording", video=name.endswith(".mp4")),)


def step_views(run_dir: Path, records: Sequence[Mapping[str, Any]]) -> list[StepView]:
    """Every step record as a card, in order."""
    views: list[StepView] = []
    previous: tuple[int, str | None] | None = None
    for record in records:
        result = _get(record, "result") or {}
        output = _get(result, "output")
        world = _get(record, "world")
        texts = _get(record, "scene", "texts")
        number = int(_number(_get(record, "number")))
        own = _file(run_dir, _get(record, "files", "screenshot"))
        before = previous[1] if previous is not None and previous[0] == number - 1 else None
        views.append(
            StepView(
                number=number,
                status=str(record.get("status", "unknown")),
                action=str(record.get("action", "?")),
                target=str(record.get("target", "")),
                duration_ms=_number(_get(result, "duration")) * 1000,
                attempts=int(_number(_get(result, "attempts"), 1)),
                error=_str(_get(result, "error")),
                error_kind=_str(_get(result, "error_kind")),
                app=_str(record.get("foreground_app")),
                page=_str(record.get("page")),
                overlay=_str(_get(world, "overlay")),
                expected=_str(_get(record, "step", "expected_outcome")),
                rationale=_str(_get(record, "step", "rationale")),
                verified=_flag(_get(result, "verification", "verified")),
                saw=_str(_get(result, "verification", "saw")),
                changed=_flag(_get(result, "verification", "changed")),
                texts=tuple(str(t) for t in texts) if isinstance(texts, list) else (),
                world=json.dumps(world, indent=2, ensure_ascii=False) if world is not None else None,
                output=None if output is None else json.dumps(output, indent=2, ensure_ascii=False),
                pictures=_pictures(own, before, acted_on(output)) + _recording(run_dir, record),
                source=_file(run_dir, _get(record, "files", "source")),
            )
        )
        previous = (number, own)
    return views


@dataclass(frozen=True)
class RunSummary:
    """One run as a page listing many runs shows it, with the link to its report."""

    flow: str
    verdict: str
    reason: str | None
    counts: Mapping[str, int]
    steps: int
    planned_steps: int | None
    failure: str | None
    picture: str | None
    report: str


def summarize(run_dir: str | os.PathLike[str], *, relative_to: str | os.PathLike[str]) -> RunSummary:
    """The line for the run in ``run_dir`` on a page in ``relative_to`` (links relative to it)."""
    timeline: Timeline = read_timeline(run_dir)
    header = timeline.header or {}
    views = step_views(timeline.run_dir, timeline.steps)
    verdict, reason = run_verdict(timeline.status)
    counts: dict[str, int] = {}
    for view in views:
        counts[view.status] = counts.get(view.status, 0) + 1
    failed = next((v for v in views if v.status == "failed"), None)
    folder = Path(os.path.relpath(timeline.run_dir, relative_to))
    picture = failed.pictures[-1].file if failed is not None and failed.pictures else None
    planned = header.get("planned_steps")
    return RunSummary(
        flow=str(header.get("flow") or timeline.run_dir.name),
        verdict=verdict,
        reason=reason,
        counts=counts,
        steps=len(views),
        planned_steps=planned if isinstance(planned, int) and not isinstance(planned, bool) else None,
        failure=None
        if failed is None
        else f"step {failed.number} {failed.action}: {failed.error_kind}: {failed.error}",
        picture=(folder / picture).as_posix() if picture is not None else None,
        report=(folder / REPORT_FILE).as_posix(),
    )
