"""A WebDriverAgent face over a fresh simulated iPhone per test, and a WdaDriver connected to it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from amc.drivers.wda import WdaDriver
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

# Small enough that every hang-type fault test proves the call gives up in time.
TIMEOUT = 1.0


@pytest.fixture
def device() -> SimDevice:
    return SimDevice("ios")


@pytest.fixture
def face(device: SimDevice) -> Iterator[WdaFace]:
    with WdaFace(device) as started:
        yield started


@pytest.fixture
def driver(face: WdaFace) -> Iterator[WdaDriver]:
    drv = WdaDriver.from_url(face.url, device_id=face.device.device_id, timeout=TIMEOUT, launch_timeout=1.0)
    drv.connect()
    face.faults.reset_counts()
    try:
        yield drv
    finally:
        face.faults.clear()
        drv.close()
