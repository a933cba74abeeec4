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

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import AndroidProfile

from tests.appium_server.servers import free_port
from tests.appium_server.u2_stack import U2Stack, find_u2_tools

PLATFORMS = ("android",)
SCHEME = "appium"
# Each test costs a real session (the driver's adb setup, ~1 s): the oldest and the default release.
PROFILES = {"android": (AndroidProfile(29), AndroidProfile(34))}
SESSION_TIMEOUT = 90.0

_stack: list[U2Stack] = []


def stack() -> U2Stack:
    """This process's Appium server (started once)."""
    if not _stack:
        found = find_u2_tools()
        if isinstance(found, str):
            if os.environ.get("AMC_REQUIRE_NODE_TOOLS") == "1":
                pytest.fail(f"AMC_REQUIRE_NODE_TOOLS=1 but {found}")
            pytest.skip(found)
        _stack.append(U2Stack(found, Path(tempfile.mkdtemp(prefix="amc-appium-u2-"))).start())
    return _stack[0]


def stop_stack() -> None:
    while _stack:
        _stack.pop().stop()


@contextmanager
def build(device: SimDevice, faults: FaultInjector, options: dict[str, Any]) -> Iterator[Driver]:
    server = stack()
    face = AdbFace([device], faults=faults).start()
    try:
        spec = (
            f"appium:{server.url}?platform=android&udid={device.device_id}"
            f"&adbPort={face.port}&systemPort={free_port()}"
        )
        try:
            driver = connect(spec, session_timeout=SESSION_TIMEOUT, **options)
        except Exception as exc:
            raise AssertionError(f"no session through the real stack: {exc}\n{server.log_tail()}") from exc
        try:
            yield driver
        finally:
            driver.close()  # the driver's own teardown runs adb against the face: it is still up
    finally:
        face.stop()
        server.check_no_stray_adb()
