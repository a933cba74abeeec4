"""The simulated device: a phone's state machine, and ways to drive it without hardware."""

from .catalog import ANDROID_LAUNCHER, DEMO_APP, DEMO_PASSWORD, DEMO_USER, IOS_SPRINGBOARD
from .device import SimDevice
from .driver import SimDriver

__all__ = [
    "ANDROID_LAUNCHER",
    "DEMO_APP",
    "DEMO_PASSWORD",
    "DEMO_USER",
    "IOS_SPRINGBOARD",
    "SimDevice",
    "SimDriver",
]
