"""A running app's state on the simulated device (its screen stack, what the user entered, its dialog)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .catalog import Alert, AppSpec, Screen, Widget

__all__ = ["AppRun"]

_LOADING = (Widget("progress", "loading", label="Loading"),)


@dataclass
class AppRun:
    """A running app's state: its screen stack and what the user has entered."""

    spec: AppSpec
    stack: list[str]
    values: dict[str, str] = field(default_factory=dict)
    switches: dict[str, bool] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    focused: str | None = None
    alert: tuple[str, str] | None = None  # (title, message) of the app's dialog, if one is up
    alert_buttons: tuple[str, ...] = ("OK",)  # that dialog's buttons, left to right
    user: str | None = None
    prompt: str | None = None  # a system permission prompt over the app ("notifications")
    rows_at: dict[str, float] = field(default_factory=dict)  # loads_late screen -> when its rows show
    arguments: tuple[str, ...] = ()  # what its process was launched with (argv after the program)
    environment: dict[str, str] = field(default_factory=dict)  # and the environment added to it
    extras: dict[str, object] = field(default_factory=dict)  # Android: its launch intent's extras
    clock: Callable[[], float] = time.monotonic

    @property
    def screen(self) -> Screen:
        screen = self.spec.screen(self.stack[-1])
        if screen.loads_late and self.rows_at.get(screen.name, 0.0) > self.clock():
            return dataclasses.replace(screen, widgets=_LOADING)
        return screen

    def previous_title(self) -> str | None:
        if len(self.stack) < 2:
            return None
        return self.spec.screen(self.stack[-2]).title

    def switch_on(self, widget: Widget) -> bool:
        return self.switches.get(widget.key, widget.on)

    def show(self, alert: Alert) -> None:
        """Put ``alert`` up over the app (the field in focus loses it)."""
        self.alert, self.alert_buttons, self.focused = (alert.title, alert.message), alert.buttons, None
