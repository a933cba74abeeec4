"""Rigs: one driver under contract, with the simulated device behind it, on one version profile.

Each backend registers a rig in a module named ``rig_<backend>.py`` in this folder, exposing
``PLATFORMS`` (the platforms it drives) and ``SCHEME`` (its ``connect()`` scheme: ``sim``,
``sim+adb`` …). Every rig is built the way a user builds a driver, by
``amc.drivers.connect.connect(spec)`` with the profile in the spec's query
(``sim+adb:android?api=29``), so the contract runs through the real client library over the real
protocol on every profile of :data:`PROFILES`. A rig may also expose ``PROFILES`` (fewer than
:data:`PROFILES`) and ``build(device, faults, options)``, a context manager yielding the connected
driver of a stack it starts itself (``rig_appium_u2``: a real Appium server and adb client).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import ANDROID_APIS, AndroidProfile, IosProfile

__all__ = ["APPS", "PROFILES", "Rig", "RigSpec", "all_rigs", "build_rig"]

# Every Android release, and every iOS version and WebDriverAgent generation at least once.
PROFILES: dict[str, tuple[AndroidProfile | IosProfile, ...]] = {
    "android": tuple(AndroidProfile(api) for api in ANDROID_APIS),
    "ios": (IosProfile("15", "4"), IosProfile("17", "5"), IosProfile("18", "9"), IosProfile("18", "10")),
}


@dataclass
class Rig:
    """A driver and the simulated device it drives. ``faults`` is None for in-process drivers."""

    name: str
    driver: Driver
    device: SimDevice
    faults: FaultInjector | None = None
    extras: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class RigSpec:
    """One rig to build: the backend's scheme, the platform and the profile."""

    name: str
    scheme: str
    platform: str
    profile: AndroidProfile | IosProfile

    @property
    def spec(self) -> str:
        return f"{self.scheme}:{self.platform}?{self.profile.label}"

    @property
    def id(self) -> str:
        return f"{self.name}-{self.platform}-{self.profile.label.replace('&', ',')}"


# Per platform: Settings, a second stock app, the demo login app, and a sub-page to open.
APPS: dict[str, dict[str, str]] = {
    "android": {
        "settings": "com.android.settings",
        "second": "com.android.deskclock",
        "demo": "com.example.amc.demo",
        "notes": "com.example.amc.notes",
        "subpage": "Network & internet",
        "settings_title": "Settings",
    },
    "ios": {
        "settings": "com.apple.Preferences",
        "second": "com.apple.mobilesafari",
        "demo": "com.example.amc.demo",
        "notes": "com.example.amc.notes",
        "subpage": "General",
        "settings_title": "Settings",
    },
}


@contextmanager
def build_rig(rig: RigSpec, **options: Any) -> Iterator[Rig]:
    """Connect ``rig.spec`` with a fresh simulated device (and, over a face, a fresh fault injector)."""
    device = SimDevice("android" if rig.platform == "android" else "ios", profile=rig.profile)
    own = getattr(importlib.import_module(f"tests.contract.rig_{rig.name}"), "build", None)
    if own is not None:  # a rig that starts its own stack (rig_appium_u2: real Appium + adb)
        faults = FaultInjector()
        options = {"timeout": 10.0, "launch_timeout": 2.0, **options}
        with own(device, faults, options) as driver:
            try:
                yield Rig(rig.name, driver, device, faults)
            finally:
                faults.clear()
        return
    if rig.scheme == "sim":
        driver = connect(rig.spec, **options)
        device = driver.device  # type: ignore[attr-defined]
        faults = None
    else:
        faults = FaultInjector()
        options = {"timeout": 5.0, "launch_timeout": 2.0, **options}
        driver = connect(rig.spec, device=device, faults=faults, **options)
    try:
        yield Rig(rig.name, driver, device, faults)
    finally:
        if faults is not None:
            faults.clear()
        driver.close()


def all_rigs() -> Iterator[RigSpec]:
    """Every registered rig on every profile of its platforms."""
    here = Path(__file__).parent
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if not info.name.startswith("rig_"):
            continue
        module = importlib.import_module(f"tests.contract.{info.name}")
        for platform in module.PLATFORMS:
            # a rig may play fewer profiles (its own PROFILES), where each costs a real stack's time
            for profile in getattr(module, "PROFILES", PROFILES)[platform]:
                yield RigSpec(info.name[len("rig_") :], module.SCHEME, platform, profile)
