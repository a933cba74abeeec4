"""``stop_recording``: stop the screen recording (Maestro's ``stopRecording``); the step's output is
the video (an MP4 from a phone, an animated PNG of its frames from the simulated device), which the
run keeps in its folder and the report shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen
from .recording import RECORDING_UNSUPPORTED


def _stop(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return driver.stop_recording()


ACTION = Action(
    "stop_recording",
    "stop the screen recording and keep it",
    _stop,
    looks_after=False,
    flow=FlowForm("stop_recording", bare=True),
    maestro=(MaestroForm("stopRecording", bare=True),),
    unsupported=RECORDING_UNSUPPORTED,
    offered=False,
)
