"""One rig per adapter column of the fault matrix: a face, a simulated device, and the real adapter.

Every rig is built the same way the per-adapter suites build theirs (tests/drivers/*/conftest.py),
with the short request timeout the hang cells need, and knows the names its face counts a tap and
an observation under, and how to take its server away or change the phone's adb state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from amc.core.models import Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.base import Driver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.sim.adb_face import AdbFace, AdbState
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.wda_face import WdaFace

__all__ = ["ADAPTERS", "APPS", "TIMEOUT", "FaultRig", "make_rig"]

# Every request's timeout: small, so a hang proves the call gives up by itself.
TIMEOUT = 1.0
ADAPTERS: tuple[str, ...] = ("wda", "u2", "appium-android", "appium-ios")
# Per platform: the app launched first, and the text of the row the second step taps.
APPS: dict[Platform, tuple[str, str]] = {
    "android": ("com.android.settings", "Network & internet"),
    "ios": ("com.apple.Preferences", "General"),
}


@dataclass
class FaultRig:
    """A connected adapter over a face. ``routes`` maps ``"tap"`` / ``"observe"`` to the face's route
    names for them; ``stop`` takes the whole server away; ``set_state`` (adb only) sets the phone's
    adb state."""

    adapter: str
    driver: Driver
    device: SimDevice
    faults: FaultInjector
    routes: dict[str, str]
    stop: Callable[[], None]
    set_state: Callable[[AdbState], None] | None = None

    @property
    def platform(self) -> Platform:
        return self.device.platform


@contextmanager
def _wda() -> Iterator[FaultRig]:
    face = WdaFace(SimDevice("ios")).start()
    driver = WdaDriver.from_url(
        face.url, device_id=face.device.device_id, timeout=TIMEOUT, launch_timeout=2.0
    )
    try:
        driver.connect()
        yield FaultRig(
            "wda", driver, face.device, face.faults, {"tap": "tap", "observe": "source"}, face.stop
        )
    finally:
        face.faults.clear()
        driver.close()
        face.stop()


@contextmanager
def _u2() -> Iterator[FaultRig]:
    device = SimDevice("android")
    face = AdbFace([device]).start()
    config = U2Config(
        adb_host=face.host,
        adb_port=face.port,
        timeout=TIMEOUT,
        launch_timeout=2.0,
        launch_poll=0.05,
        server_start_timeout=2.0,
    )
    driver = U2Driver(device.device_id, config)
    routes = {"tap": "rpc:click", "observe": "rpc:dumpWindowHierarchy"}

    def set_state(state: AdbState) -> None:
        face.set_state(device.device_id, state)

    try:
        driver.connect()
        yield FaultRig("u2", driver, device, face.faults, routes, face.stop, set_state)
    finally:
        face.faults.clear()
        driver.close()
        face.stop()


@contextmanager
def _appium(platform: Platform) -> Iterator[FaultRig]:
    face = AppiumFace(SimDevice(platform)).start()
    driver = AppiumDriver(
        face.url, options_for(platform, udid=face.device.device_id), timeout=TIMEOUT, launch_timeout=2.0
    )
    try:
        driver.connect()
        routes = {"tap": "actions", "observe": "source"}
        yield FaultRig(f"appium-{platform}", driver, face.device, face.faults, routes, face.stop)
    finally:
        face.faults.clear()
        driver.close()
        face.stop()


def make_rig(adapter: str) -> AbstractContextManager[FaultRig]:
    """The rig for one column of the matrix (see :data:`ADAPTERS`)."""
    if adapter == "wda":
        return _wda()
    if adapter == "u2":
        return _u2()
    if adapter in ("appium-android", "appium-ios"):
        return _appium("android" if adapter == "appium-android" else "ios")
    raise ValueError(f"no rig for {adapter!r}")
