"""The simulated device: a phone's state machine, its apps and screens, and the servers that speak
each backend's real protocol for it (the faces). The in-process adapter is
``amc.connect.simulated.SimDriver``; the others reach a face over the wire."""

from .catalog import ANDROID_LAUNCHER, DEMO_APP, DEMO_PASSWORD, DEMO_USER
from .device import SimDevice

__all__ = [
    "ANDROID_LAUNCHER",
    "DEMO_APP",
    "DEMO_PASSWORD",
    "DEMO_USER",
    "SimDevice",
]
