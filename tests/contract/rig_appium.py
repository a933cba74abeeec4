"""AppiumDriver under contract: the real Appium-Python-Client against the simulated Appium face."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from amc.core.models import Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice

from tests.contract.rigs import Rig

PLATFORMS = ("android", "ios")


@contextmanager
def make_rig(platform: str) -> Iterator[Rig]:
    plat: Platform = "android" if platform == "android" else "ios"
    device = SimDevice(plat)
    face = AppiumFace(device).start()
    driver = AppiumDriver(
        face.url,
        options_for(plat, udid=device.device_id),
        timeout=5.0,
        launch_timeout=2.0,
        on_close=face.stop,
    )
    try:
        yield Rig("appium", driver, device, face.faults, extras={"face": face})
    finally:
        driver.close()
