"""Failure evidence: what the device showed and what the test's tasks did when a device test failed.

:func:`capture` writes into one folder per test: ``screenshot.png`` (or ``.jpg``), ``scene.json``
(the observed Scene as a tree), ``source.xml``/``source.json`` (the backend's raw UI dump, when the
Scene kept it), ``steps.json`` (every task step with the world state after it) and, when the device
could not give something, ``capture-errors.txt``. Capturing never raises: a broken device must not
hide the test's own failure.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..drivers.base import Driver
from ..storage.files import write_atomic

__all__ = ["capture", "evidence_dir"]

log = logging.getLogger(__name__)


def evidence_dir(root: Path, nodeid: str) -> Path:
    """The folder for one test's evidence: a readable, file-system-safe name, unique per test id."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("_")[:120]
    digest = hashlib.sha1(nodeid.encode()).hexdigest()[:8]
    return root / f"{readable}-{digest}"


def _image_suffix(data: bytes) -> str:
    return ".jpg" if data.startswith(b"\xff\xd8") else ".png"


def _source_suffix(source: str) -> str:
    head = source.lstrip()[:1]
    return ".xml" if head == "<" else ".json" if head in "{[" else ".txt"


def capture(driver: Driver, dest: Path, steps: Sequence[dict[str, Any]]) -> list[Path]:
    """Write the evidence into ``dest``; returns the files written (two device requests)."""
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    problems: list[str] = []

    def write(name: str, data: bytes | str) -> None:
        path = dest / name
        write_atomic(path, data if isinstance(data, bytes) else data.encode("utf-8"), what="the evidence")
        written.append(path)

    try:
        image = driver.screenshot()
        write("screenshot" + _image_suffix(image), image)
    except Exception as exc:
        log.warning("evidence: screenshot of %s failed", driver.device_id, exc_info=True)
        problems.append(f"screenshot: {type(exc).__name__}: {exc}")
    try:
        scene = driver.observe()
        write("scene.json", json.dumps(scene.to_dict(), indent=2, ensure_ascii=False))
        if scene.source:
            write("source" + _source_suffix(scene.source), scene.source)
    except Exception as exc:
        log.warning("evidence: observing %s failed", driver.device_id, exc_info=True)
        problems.append(f"scene: {type(exc).__name__}: {exc}")
    write("steps.json", json.dumps(list(steps), indent=2, ensure_ascii=False, default=str))
    if problems:
        write("capture-errors.txt", "\n".join(problems) + "\n")
    return written
