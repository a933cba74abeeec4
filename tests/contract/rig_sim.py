"""The in-process SimDriver under contract."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from amc.core.models import Platform
from amc.drivers.simulated import SimDriver

from tests.contract.rigs import Rig

PLATFORMS = ("android", "ios")


@contextmanager
def make_rig(platform: str) -> Iterator[Rig]:
    plat: Platform = "android" if platform == "android" else "ios"
    driver = SimDriver(plat)
    try:
        yield Rig("sim", driver, driver.device)
    finally:
        driver.close()
