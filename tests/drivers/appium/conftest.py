"""An Appium face over a fresh simulated device per test, and an AppiumDriver connected to it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from amc.core.models import Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.profiles import IosProfile

# Small enough that every hang-type fault test proves the call gives up in time.
TIMEOUT = 1.0


@pytest.fixture(params=["android", "ios"])
def platform(request: pytest.FixtureRequest) -> Platform:
    return "android" if request.param == "android" else "ios"


@pytest.fixture
def profile() -> IosProfile | None:
    """The iOS profile the face plays (None: the default); a test overrides it to play an older WDA."""
    return None


@pytest.fixture
def device(platform: Platform, profile: IosProfile | None) -> SimDevice:
    return SimDevice(platform, profile=profile if platform == "ios" else None)


@pytest.fixture
def face(device: SimDevice) -> Iterator[AppiumFace]:
    with AppiumFace(device) as started:
        yield started


@pytest.fixture
def driver(face: AppiumFace) -> Iterator[AppiumDriver]:
    """Connected (its session made), with the face's counters reset so tests count only their calls."""
    drv = AppiumDriver(
        face.url,
        options_for(face.platform, udid=face.device.device_id),
        timeout=TIMEOUT,
        launch_timeout=1.0,
    )
    drv.connect()
    face.faults.reset_counts()
    try:
        yield drv
    finally:
        face.faults.clear()
        drv.close()
