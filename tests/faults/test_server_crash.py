"""The automation server crashes (``Fault.CRASH``, ``Fault.CRASH_AT_START``): uiautomator2's server
mid-run and at start, WebDriverAgent mid-run, through the real clients and the drivers."""

from __future__ import annotations

import adbutils
import pytest
import uiautomator2
from amc.core.errors import DriverUnavailable, HarnessError
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import Fault
from amc.sim.wda_face import WdaFace

SERIAL = "emulator-5554"


def _config(face: AdbFace) -> U2Config:
    return U2Config(
        adb_host=face.host,
        adb_port=face.port,
        timeout=2.0,
        launch_timeout=1.0,
        launch_poll=0.05,
        server_start_timeout=2.0,
    )


def test_a_uiautomator2_server_that_crashes_mid_run_is_started_again_for_a_read() -> None:
    with AdbFace([SimDevice("android", SERIAL)]) as face:
        driver = U2Driver(SERIAL, _config(face)).connect()
        try:
            driver.observe()
            u2 = face.phone(SERIAL).u2
            launches = u2.launches
            face.faults.inject(Fault.CRASH, routes={"rpc:dumpWindowHierarchy"}, times=1)
            assert driver.observe().texts()  # the read is answered: the server was started again
            assert u2.launches == launches + 1 and u2.running  # started once more, and serving
        finally:
            driver.close()


def test_a_crash_mid_run_closes_the_server_port_until_it_is_started_again() -> None:
    with AdbFace([SimDevice("android", SERIAL)]) as face:
        face.faults.inject(Fault.CRASH, routes={"rpc:deviceInfo"}, times=1)
        u2 = face.phone(SERIAL).u2
        assert u2.running
        dev = uiautomator2.Device(adbutils.AdbClient(host=face.host, port=face.port).device(serial=SERIAL))
        with pytest.raises(Exception):  # noqa: B017 - the client's error for a server that vanished
            dev.jsonrpc.deviceInfo(http_timeout=2)
        assert not u2.running and not u2.dead  # exited, not dead for good: a launch brings it back


def test_a_uiautomator2_server_that_crashes_at_start_says_why() -> None:
    with AdbFace([SimDevice("android", SERIAL)], u2_running=False) as face:
        face.faults.inject(Fault.CRASH_AT_START, routes={"adb:shell:app_process"})
        shell = adbutils.AdbClient(host=face.host, port=face.port).device(serial=SERIAL).shell
        output = shell("CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main", timeout=5)
        assert "java.lang.UnsatisfiedLinkError" in output
        with pytest.raises(HarnessError):
            U2Driver(SERIAL, _config(face)).connect().observe()
        assert not face.phone(SERIAL).u2.running


def test_a_webdriveragent_that_crashes_is_reached_again_with_a_new_session() -> None:
    with WdaFace(SimDevice("ios")) as face:
        driver = WdaDriver.from_url(face.url, device_id="SIM-IPHONE-15").connect()
        try:
            driver.observe()
            old = face.session_id
            face.faults.inject(Fault.CRASH, routes={"source"}, times=1)
            with pytest.raises(DriverUnavailable, match="may have crashed"):
                driver.observe()  # the request that crashed it is not answered
            assert old is not None and face.session_id is None  # the new WDA knows no session
            assert driver.observe().texts()  # and answers the next read
        finally:
            driver.close()


def test_a_webdriveragent_that_never_comes_up_refuses_every_request() -> None:
    face = WdaFace(SimDevice("ios")).start()
    try:
        face.faults.inject(Fault.CRASH_AT_START)
        with pytest.raises(HarnessError):
            WdaDriver.from_url(face.url, device_id="SIM-IPHONE-15", timeout=2.0).connect().observe()
        assert not face.running
    finally:
        face.stop()
