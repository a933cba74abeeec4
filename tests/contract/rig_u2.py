"""U2Driver under contract: the real uiautomator2 + adbutils clients against the adb face."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from amc.drivers.u2 import U2Config, U2Driver
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice

from tests.contract.rigs import Rig

PLATFORMS = ("android",)


@contextmanager
def make_rig(platform: str) -> Iterator[Rig]:
    device = SimDevice("android")
    face = AdbFace([device]).start()
    config = U2Config(
        adb_host=face.host, adb_port=face.port, timeout=5.0, launch_timeout=2.0, server_start_timeout=2.0
    )
    driver = U2Driver(device.device_id, config, on_close=face.stop)
    try:
        yield Rig("u2", driver, device, face.faults, extras={"face": face})
    finally:
        driver.close()
