"""The crash-safe run timeline: one folder per run, one JSON line per executed step.

A run folder holds ``timeline.jsonl`` and, beside it, each step's page source
(``step-003-source.xml``, or ``.json`` when the Scene has no raw source: a dump of its tree) and
screenshot (``step-003.png``: the picture whoever runs the loop took, for example when a step
failed; a ``screenshot`` step's own picture under the step's name, ``login_page.png``). The
first line is a ``run`` record (flow, device, start), then one ``step`` record per executed step
(the planned step, its result, a Scene summary and the world state), and an ``end`` record
(status, end time) when the run finishes.

Every file is written, flushed and ``os.fsync``-ed, the folder synced, and only then the step's
record appended and synced, all before the task loop starts the next step: a killed process
loses nothing it had executed, and no record points at a missing file. :func:`read_timeline`
returns the complete records and reports a last line cut off mid-write.

Secrets never reach the disk: every string goes through the run's :class:`Redactor`. This module
only writes and reads files: it takes values from ``amc.core`` and asks no device for anything.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ..core.errors import ConfigError
from ..core.models import Scene
from ..core.steps import StepRecord, describe_step, step_status
from .files import read_bounded
from .redaction import Redactor

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")  # what a screenshot's name may not hold in its file name

__all__ = [
    "FORMAT_VERSION",
    "MAX_TIMELINE_BYTES",
    "TIMELINE_FILE",
    "RunInfo",
    "Timeline",
    "TimelineWriter",
    "new_run_dir",
    "read_timeline",
    "step_status",
]

TIMELINE_FILE = "timeline.jsonl"
FORMAT_VERSION = 1
MAX_TIMELINE_BYTES = 512 * 1024 * 1024  # what `amc report` reads of a timeline (100,000 steps: ~200 MB)
MAX_TEXTS = 60
MAX_TEXT = 200


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:60] or "run"


def new_run_dir(out: str | os.PathLike[str], name: str) -> Path:
    """A new, empty folder ``out/<UTC time>-<name>`` (``-2``, ``-3`` … appended if taken)."""
    base = Path(out)
    base.mkdir(parents=True, exist_ok=True)
    stem = f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{_slug(name)}"
    for n in range(1, 1000):
        candidate = base / (stem if n == 1 else f"{stem}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise ConfigError(f"could not create a new run folder under {base}", hint="clean up old runs")


@dataclass(frozen=True)
class RunInfo:
    """What the ``run`` record says: which flow, on which device, since when."""

    flow: str
    goal: str
    device_id: str
    platform: str
    backend: str
    device_spec: str | None = None
    flow_file: str | None = None
    planned_steps: int | None = None
    started_at: str = field(default_factory=_now)
    model: Mapping[str, str] | None = None  # an agent run's model: {"name", "url"}

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "run",
            "version": FORMAT_VERSION,
            "flow": self.flow,
            "flow_file": self.flow_file,
            "goal": self.goal,
            "device": {
                "id": self.device_id,
                "platform": self.platform,
                "backend": self.backend,
                "spec": self.device_spec,
            },
            "planned_steps": self.planned_steps,
            "started_at": self.started_at,
            **({"model": dict(self.model)} if self.model is not None else {}),
        }


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _image_suffix(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return ".png"
    if data.startswith(b"\xff\xd8"):
        return ".jpg"
    return ".img"


def _video_suffix(data: bytes) -> str:
    """A recording's file suffix by its first bytes: an MP4's ``ftyp`` box (ISO/IEC 14496-12), a
    PNG (the simulated device's animated PNG), a GIF."""
    if data[4:8] == b"ftyp":
        return ".mp4"
    if data.startswith(b"GIF8"):
        return ".gif"
    return _image_suffix(data) if data.startswith(b"\x89PNG") else ".bin"


def _source_suffix(text: str) -> str:
    head = text.lstrip()[:1]
    return ".xml" if head == "<" else ".json" if head in ("{", "[") else ".txt"


def scene_summary(scene: Scene | None, page: str | None) -> dict[str, Any] | None:
    """What a record keeps of a Scene: where the device was and the first visible texts."""
    if scene is None:
        return None
    texts = [t if len(t) <= MAX_TEXT else t[:MAX_TEXT] + "…" for t in scene.texts()[:MAX_TEXTS]]
    return {
        "foreground_app": scene.foreground_app,
        "activity": scene.activity,
        "page": page,
        "window_size": list(scene.window_size),
        "backend": scene.backend,
        "element_count": len(scene),
        "capture_duration": round(scene.capture_duration, 6),
        "texts": texts,
    }


class TimelineWriter:
    """Writes one run folder. Nothing is touched before ``start``."""

    def __init__(self, run_dir: str | os.PathLike[str], *, redactor: Redactor | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.redactor = redactor if redactor is not None else Redactor()  # an empty one is falsy
        self.steps_written = 0
        self._recording: str | None = None  # the name the last start_recording gave (Maestro's path)
        self._file: IO[bytes] | None = None

    @property
    def path(self) -> Path:
        return self.run_dir / TIMELINE_FILE

    def _append(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Append one record (secrets scrubbed), flushed and synced; returns it as written."""
        if self._file is None:
            raise ConfigError(f"the timeline in {self.run_dir} is not open", hint="call start() first")
        written: dict[str, Any] = self.redactor.value(record)
        line = json.dumps(written, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())
        return written

    def start(self, info: RunInfo) -> None:
        """Create the folder and the timeline, and write the ``run`` record."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab")  # noqa: SIM115 - kept open for the run, closed by finish()
        _fsync_dir(self.run_dir)
        self._append(info.to_dict())

    def _picture_name(self, name: object) -> str | None:
        """A ``screenshot`` step's own name (or the name ``start_recording`` gave a recording) as
        its file's stem (``takeScreenshot: login_page`` is ``login_page.png``, as Maestro names it
        after its path), kept in the run folder: its folders and anything but letters, digits,
        ``.``, ``_`` and ``-`` become ``_``; a name taken already in this run gets ``-2``, ``-3`` …
        (Maestro would write over it; a run keeps every picture)."""
        if not isinstance(name, str) or not name.strip():
            return None
        safe = _UNSAFE.sub("_", self.redactor.text(name.strip())).strip(".") or None
        if safe is None or safe.startswith("step-"):  # never a step's own picture's name
            return None
        taken = {p.stem for p in self.run_dir.iterdir()}
        stem, n = safe, 1
        while stem in taken:
            n += 1
            stem = f"{safe}-{n}"
        return stem

    def _files(
        self, number: int, record: StepRecord, screenshot: bytes | None, screenshot_error: str | None
    ) -> dict[str, str]:
        files: dict[str, str] = {}
        stem = f"step-{number:03d}"
        scene = record.scene
        if scene is not None:
            text = scene.source
            if text is None:
                text = json.dumps(scene.root.to_dict(), ensure_ascii=False, indent=1)
            name = f"{stem}-source{_source_suffix(text)}"
            _write_file(self.run_dir / name, self.redactor.text(text).encode("utf-8"))
            files["source"] = name
        image = record.result.output if record.step.action == "screenshot" else None
        own = isinstance(image, bytes | bytearray) and bool(image)  # the step's own picture
        if not own:
            image = screenshot
        if screenshot_error is not None:
            files["screenshot_error"] = self.redactor.text(screenshot_error)
        if isinstance(image, bytes | bytearray) and image:
            named = self._picture_name(record.step.args.get("name")) if own else None
            name = f"{named or stem}{_image_suffix(bytes(image))}"
            _write_file(self.run_dir / name, bytes(image))
            files["screenshot"] = name
        if record.step.action == "start_recording" and record.result.success:
            self._recording = record.step.args.get("name")
        video = record.result.output if record.step.action == "stop_recording" else None
        if isinstance(video, bytes | bytearray) and video:  # a screen recording: MP4, or an APNG
            named, self._recording = self._picture_name(self._recording), None
            name = f"{named or stem + '-recording'}{_video_suffix(bytes(video))}"
            _write_file(self.run_dir / name, bytes(video))
            files["recording"] = name
        if files:
            _fsync_dir(self.run_dir)
        return files

    def write_step(
        self,
        record: StepRecord,
        *,
        world: Mapping[str, Any] | None = None,
        screenshot: bytes | None = None,
        screenshot_error: str | None = None,
    ) -> dict[str, Any]:
        """Write one executed step (files first, then its line) and return the record as written.

        ``world`` is the world state as ``WorldState.to_dict()`` gives it (its history is left out:
        the timeline itself is the history); ``screenshot`` is a picture to keep with the step when
        it is not a ``screenshot`` step, and ``screenshot_error`` why one could not be taken.
        """
        number = record.index + 1
        step, result = record.step, record.result
        if world is not None:
            world = {k: v for k, v in world.items() if k != "history"}
        data: dict[str, Any] = {
            "type": "step",
            "index": record.index,
            "number": number,
            "time": _now(),
            "status": record.status,
            "action": step.action,
            "target": describe_step(step.action, step.args),
            "step": self.redactor.step(step),
            "result": result.to_dict(),
            "page": record.page,
            "foreground_app": record.foreground_app,
            "scene": scene_summary(record.scene, record.page),
            "world": world,
            "files": self._files(number, record, screenshot, screenshot_error),
        }
        if record.settled is not None:  # the screen changed: how long it took to settle, in looks
            data["settle"] = {"looks": record.settle_looks, "settled": record.settled}
            if record.settle_idle is not None:  # the device's idle signal said so (actions/settle.py)
                data["settle"]["idle"] = record.settle_idle
        written = self._append(data)
        self.steps_written += 1
        return written

    def write_note(self, event: str, message: str, **data: Any) -> dict[str, Any]:
        """Write one thing the run did besides its steps (``event``: ``model_retry``, the model
        server asked again) and return the record as written."""
        return self._append({"type": "note", "event": event, "time": _now(), "message": message, **data})

    def finish(
        self,
        status: str,
        *,
        duration: float | None = None,
        error: str | None = None,
        error_kind: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Write the ``end`` record and close the file."""
        try:
            self._append(
                {
                    "type": "end",
                    "status": status,
                    "ended_at": _now(),
                    "duration": None if duration is None else round(duration, 6),
                    "steps": self.steps_written,
                    "error": error,
                    "error_kind": error_kind,
                    **(extra or {}),
                }
            )
        finally:
            self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass(frozen=True)
class Timeline:
    """A run folder as read back. ``truncated`` is set when the last line was cut off mid-write
    (the process died while writing it); ``problems`` names any line that could not be read."""

    run_dir: Path
    header: Mapping[str, Any] | None
    steps: tuple[Mapping[str, Any], ...]
    footer: Mapping[str, Any] | None
    truncated: bool = False
    problems: tuple[str, ...] = ()
    notes: tuple[Mapping[str, Any], ...] = ()  # what the run did besides its steps (write_note)

    @property
    def finished(self) -> bool:
        return self.footer is not None

    @property
    def status(self) -> str:
        """The run's status from its ``end`` record, or ``unfinished`` when it has none."""
        if self.footer is None:
            return "unfinished"
        return str(self.footer.get("status", "unknown"))


def read_timeline(run_dir: str | os.PathLike[str]) -> Timeline:
    """Read a run folder's timeline; a ``ConfigError`` when there is none."""
    folder = Path(run_dir)
    path = folder / TIMELINE_FILE
    hint = "pass a folder that `amc run --out DIR` created (DIR/<time>-<flow>)"
    if not path.exists():
        raise ConfigError(f"{folder} is not a run folder: it has no {TIMELINE_FILE}", hint=hint)
    data = read_bounded(path, MAX_TIMELINE_BYTES, what="the run timeline", hint=hint)
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" when the file ends cleanly
    header: Mapping[str, Any] | None = None
    footer: Mapping[str, Any] | None = None
    steps: list[Mapping[str, Any]] = []
    notes: list[Mapping[str, Any]] = []
    problems: list[str] = []
    truncated = bool(tail.strip())
    if truncated:
        problems.append(f"line {len(lines) + 1} was cut off mid-write ({len(tail)} bytes) and is ignored")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"line {number} is not a JSON record ({exc}) and is ignored")
            continue
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "run" and header is None:
            header = record
        elif kind == "step":
            steps.append(record)
        elif kind == "end":
            footer = record
        elif kind == "note":
            notes.append(record)
        else:
            problems.append(f"line {number} is not a run, step, note or end record and is ignored")
    return Timeline(folder, header, tuple(steps), footer, truncated, tuple(problems), tuple(notes))
