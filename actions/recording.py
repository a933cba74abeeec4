"""What the recording actions share: where a backend cannot record the screen."""

from __future__ import annotations

from .base import Unsupported

__all__ = ["RECORDING_UNSUPPORTED"]

RECORDING_UNSUPPORTED = (
    Unsupported(
        "WebDriverAgent records the screen on the phone (/wda/video/start) but has no route to fetch "
        "the video: run the flow over Appium (its startRecordingScreen) or on the simulated device",
        backends=frozenset({"wda"}),
    ),
)
