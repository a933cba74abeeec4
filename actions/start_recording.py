"""``start_recording``: start recording the screen (Maestro's ``startRecording``); the recording
is kept in the run folder when ``stop_recording`` ends it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Text
from .recording import RECORDING_UNSUPPORTED


def _start(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.start_recording()
    return {"recording": args.get("name") or "recording"}


ACTION = Action(
    "start_recording",
    "start recording the screen",
    _start,
    params=(Param("name", Text(max_length=200), "a name for the recording (Maestro's path)"),),
    looks_after=False,
    flow=FlowForm("start_recording", short="name", bare=True),
    maestro=(
        MaestroForm(
            "startRecording",
            short="name",
            options={"path": "name"},
            note="the recording is kept in the run folder beside the step that stops it",
        ),
    ),
    unsupported=RECORDING_UNSUPPORTED,
    offered=False,
)
