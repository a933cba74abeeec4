"""AppiumDriver under contract through the real Appium stack: a real Appium 3 server with its real
UiAutomator2 driver (npm ``appium-uiautomator2-driver``) and Debian's ``adb`` client, against the
simulated phone's adb face and its UiAutomator2 server face (``tests/appium_server/u2_stack.py``).

The device spec is what a user writes for their own Appium server with an adb server on another
port: ``appium:http://127.0.0.1:PORT?platform=android&udid=SERIAL&adbPort=ADB&systemPort=FREE``.
One Appium server per test process (started on first use, stopped by the contract suite's
session fixture); a fresh adb face and phone per test. Skipped where the tools are missing, failed
there under ``AMC_REQUIRE_NODE_TOOLS=1`` (CI).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from amc.drivers.appium import AppiumDriver
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import AndroidProfile

from tests.appium_server.u2_stack import LEFT_UNKNOWN, shared_stack

PLATFORMS = ("android",)
SCHEME = "appium"
# Each test costs a real session (the driver sets the phone up over adb: 1.1 s, 1.9 s a test under
# load): the default release only; every release gets a session in tests/appium_server.
# Measured: 64 of 64 pass on API 29 and 34 (122 s serially, 2 loaded cores).
PROFILES = {"android": (AndroidProfile(34),)}
SESSION_TIMEOUT = 90.0


@contextmanager
def build(device: SimDevice, faults: FaultInjector, options: dict[str, Any]) -> Iterator[Driver]:
    server = shared_stack()
    face = AdbFace([device], faults=faults).start()
    opened: list[str | None] | str = LEFT_UNKNOWN  # until connect answers, a session may be open
    try:
        try:
            driver = connect(server.spec(face, device.device_id), session_timeout=SESSION_TIMEOUT, **options)
        except Exception as exc:
            raise AssertionError(f"no session through the real stack: {exc}\n{server.log_tail()}") from exc
        assert isinstance(driver, AppiumDriver)
        try:
            yield driver
        finally:
            opened = [driver.session_id]
            driver.close()  # the driver's own teardown runs adb against the face: it is still up
    finally:
        server.release(face, opened)
        server.check_no_stray_adb()
