"""WdaDriver under contract: the real facebook-wda client against the WebDriverAgent face."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from amc.drivers.wda import WdaDriver
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

from tests.contract.rigs import Rig

PLATFORMS = ("ios",)


@contextmanager
def make_rig(platform: str) -> Iterator[Rig]:
    device = SimDevice("ios")
    face = WdaFace(device).start()
    driver = WdaDriver.from_url(
        face.url, device_id=device.device_id, timeout=5.0, launch_timeout=2.0, on_close=face.stop
    )
    try:
        driver.connect()
        yield Rig("wda", driver, device, face.faults, extras={"face": face})
    finally:
        face.faults.clear()
        driver.close()
