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
    rows of a ``loads_late`` screen. All zero is an instant device."""

    transition: tuple[float, float] = (0.1, 0.4)
    sign_in: float = 1.0
    list_rows: float = 0.6

    @property
    def instant(self) -> bool:
        return max(self.transition) <= 0 and self.sign_in <= 0 and self.list_rows <= 0


INSTANT = Timing((0.0, 0.0), 0.0, 0.0)
REALISTIC = Timing()
TIMINGS: Mapping[str, Timing] = {"instant": INSTANT, "realistic": REALISTIC}
