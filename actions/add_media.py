"""``add_media``: put pictures and videos into the device's gallery (Maestro's ``addMedia``; a
Maestro flow's files are found beside the flow, inside its project, when the flow is read)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import StepArgumentError
from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen, Unsupported

MAX_FILES = 50
MAX_MEDIA_BYTES = 256 * 1024 * 1024  # one file
# The kinds Maestro adds (its AndroidDriver / LocalSimulatorUtils media types).
EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".mp4"})


@dataclass(frozen=True)
class Files:
    """A non-empty list of at most :data:`MAX_FILES` paths of pictures or videos."""

    def check(self, value: Any, name: str) -> Any:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not items or len(items) > MAX_FILES:
            raise StepArgumentError(
                f"argument {name!r} must be a list of 1 to {MAX_FILES} file paths", argument=name
            )
        for item in items:
            if not isinstance(item, str) or not item.strip():
                raise StepArgumentError(f"argument {name!r} holds {item!r:.80}, not a path", argument=name)
            if os.path.splitext(item)[1].lower() not in EXTENSIONS:
                raise StepArgumentError(
                    f"{item!r:.120} is not a picture or video ({', '.join(sorted(EXTENSIONS))})",
                    argument=name,
                )
        return list(items)

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_FILES}


def _read(path: str) -> bytes:
    try:
        size = os.stat(path).st_size
        if size > MAX_MEDIA_BYTES:
            raise StepArgumentError(f"{path} is {size} bytes; a media file may be {MAX_MEDIA_BYTES}")
        with open(path, "rb") as handle:
            return handle.read(MAX_MEDIA_BYTES + 1)
    except OSError as exc:
        raise StepArgumentError(f"Media File Not Found: {path} ({exc.strerror or exc})") from None


def _add(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    added = []
    for path in args["files"]:
        driver.add_media(os.path.basename(path), _read(path))
        added.append(os.path.basename(path))
    return {"added": added}


ACTION = Action(
    "add_media",
    "put pictures and videos into the device's gallery",
    _add,
    params=(Param("files", Files(), "the files (png, jpg, jpeg, gif, mp4)", required=True),),
    looks_after=False,
    flow=FlowForm("add_media", short="files"),
    maestro=(MaestroForm("addMedia", short="files", options={"files": "files"}),),
    unsupported=(
        Unsupported(
            "WebDriverAgent cannot add media to an iPhone's photo library (on a Simulator, "
            "`xcrun simctl addmedia` does): run the flow over Appium (its pushFile) or on the "
            "simulated device",
            backends=frozenset({"wda"}),
        ),
    ),
    offered=False,
)
