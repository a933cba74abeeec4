"""How long the simulated phone takes to change its screen (see :mod:`amc.sim.device`).

:data:`REALISTIC` is what ``amc.drivers.connect`` builds by default (flows and device tests);
:data:`INSTANT` is every change at once (the state machine's own default, for unit tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["INPUT_DELAY", "INSTANT", "REALISTIC", "TIMINGS", "Timing"]

# How long the screen before a change keeps showing, unmoved, before the new one starts to slide in:
# the touch reaching the app. Shorter than any settle interval that makes sense (the default is
# 0.2 s, the unit tests' 0.01 s), so two looks that agree are never both of a page being left.
INPUT_DELAY = 0.005


@dataclass(frozen=True)
class Timing:
    """How long the simulated phone takes: ``transition`` (seconds, drawn per change from this
    range) for a new screen or app, ``sign_in`` for the demo app's sign-in, ``list_rows`` for the
    rows of a ``loads_late`` screen. All zero is an instant device. ``gestures``: a press, drag or
    swipe lasts the time it asks for (a server answers once it is over), as on a phone."""

    transition: tuple[float, float] = (0.1, 0.4)
    sign_in: float = 1.0
    list_rows: float = 0.6
    gestures: bool = True
    # How long Android's screen must have been still for its idle signal: uiautomator's
    # UiAutomatorBridge / QueryController wait with QUIET_TIME_TO_BE_CONSIDERD_IDLE_STATE = 500 ms
    # (UiAutomation.waitForIdle(500, timeout): no accessibility event for 500 ms). An instant
    # device is idle at once.
    android_idle_quiet: float = 0.5

    @property
    def instant(self) -> bool:
        return max(self.transition) <= 0 and self.sign_in <= 0 and self.list_rows <= 0


INSTANT = Timing((0.0, 0.0), 0.0, 0.0, gestures=False, android_idle_quiet=0.0)
REALISTIC = Timing()
TIMINGS: Mapping[str, Timing] = {"instant": INSTANT, "realistic": REALISTIC}
