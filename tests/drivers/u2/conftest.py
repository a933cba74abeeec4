"""Fixtures: a simulated phone behind the adb face, and the clients that talk to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import adbutils
import pytest
import uiautomator2
from amc.drivers.u2 import U2Config, U2Driver
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice

SERIAL = "emulator-5554"


@pytest.fixture
def device() -> SimDevice:
    return SimDevice("android", SERIAL)


@pytest.fixture
def face(device: SimDevice) -> Iterator[AdbFace]:
    with AdbFace([device]) as running:
        yield running


@pytest.fixture
def adb(face: AdbFace) -> adbutils.AdbClient:
    """The real adbutils client, pointed at the face."""
    return adbutils.AdbClient(host=face.host, port=face.port)


@pytest.fixture
def u2(adb: adbutils.AdbClient, face: AdbFace) -> Iterator[uiautomator2.Device]:
    """The real uiautomator2 client, built the way the adapter builds it (no device listing)."""
    dev = uiautomator2.Device(adb.device(serial=SERIAL))
    yield dev
    dev.stop_uiautomator(wait=False)


DriverFactory = Callable[..., U2Driver]


@pytest.fixture
def make_driver(face: AdbFace) -> Iterator[DriverFactory]:
    """Build U2Drivers on the face with small timeouts (overridable); all are closed afterwards."""
    made: list[U2Driver] = []

    def build(serial: str = SERIAL, **overrides: float) -> U2Driver:
        settings = {"timeout": 2.0, "launch_timeout": 1.0, "launch_poll": 0.05, "server_start_timeout": 2.0}
        settings.update(overrides)
        config = U2Config(adb_host=face.host, adb_port=face.port, **settings)  # type: ignore[arg-type]
        driver = U2Driver(serial, config)
        made.append(driver)
        return driver

    yield build
    for driver in made:
        driver.close()


@pytest.fixture
def driver(make_driver: DriverFactory) -> U2Driver:
    return make_driver()
