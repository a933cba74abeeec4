"""The whole screen of the simulated device as a native node tree: :func:`build` chooses the
platform's layout (:mod:`sim.layout_android`, :mod:`sim.layout_ios`), which both place the device's
state with the geometry of :mod:`sim.layout`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .layout_android import android_screen
from .layout_ios import ios_screen
from .nodes import SimNode

if TYPE_CHECKING:
    from .device import SimDevice

__all__ = ["build"]


def build(device: SimDevice) -> SimNode:
    """The whole screen of ``device`` as a native node tree (call with the device lock held)."""
    if device.platform == "android":
        return android_screen(device)
    return ios_screen(device)
