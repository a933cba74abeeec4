"""Rigs: one driver under contract, with the simulated device behind it.

Each backend registers a rig factory in a module named ``rig_<backend>.py`` in this folder,
exposing ``PLATFORMS`` (the platforms it drives) and ``make_rig(platform)``, a context manager
yielding a :class:`Rig`. The contract suite runs every test on every (rig, platform).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from amc.drivers.base import Driver
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector

__all__ = ["APPS", "Rig", "RigFactory", "all_rigs"]


@dataclass
class Rig:
    """A driver and the simulated device it drives. ``faults`` is None for in-process drivers."""

    name: str
    driver: Driver
    device: SimDevice
    faults: FaultInjector | None = None
    extras: dict[str, object] = field(default_factory=dict)


RigFactory = Callable[[str], AbstractContextManager[Rig]]

# Per platform: Settings, a second stock app, the demo login app, and a sub-page to open.
APPS: dict[str, dict[str, str]] = {
    "android": {
        "settings": "com.android.settings",
        "second": "com.android.deskclock",
        "demo": "com.example.amc.demo",
        "subpage": "Network & internet",
        "settings_title": "Settings",
    },
    "ios": {
        "settings": "com.apple.Preferences",
        "second": "com.apple.mobilesafari",
        "demo": "com.example.amc.demo",
        "subpage": "General",
        "settings_title": "Settings",
    },
}


def all_rigs() -> Iterator[tuple[str, str, RigFactory]]:
    """(rig name, platform, factory) for every registered rig module."""
    here = Path(__file__).parent
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if not info.name.startswith("rig_"):
            continue
        module = importlib.import_module(f"tests.contract.{info.name}")
        for platform in module.PLATFORMS:
            yield info.name[len("rig_") :], platform, module.make_rig
