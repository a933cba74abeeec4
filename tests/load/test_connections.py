"""TCP connections per flow, counted where the phone's server accepts them (the faces): counts only.

Over WebDriverAgent the harness keeps one HTTP/1.1 connection alive for every request, where
facebook-wda opens one per request; over adb every shell command and uiautomator2 RPC is its own
adb connection (adb serves one service per connection), and nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import wda
from amc.core.errors import DriverUnavailable
from amc.core.models import PlannedStep
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

from .support import SCREENS

pytestmark = pytest.mark.timeout(120)
STEPS = 20


def _plan(platform: str) -> list[PlannedStep]:
    _, forward, back = SCREENS[platform]
    return [forward if k % 2 == 0 else back for k in range(STEPS)]


@pytest.fixture
def wda_face() -> Iterator[tuple[WdaFace, SimDevice]]:
    device = SimDevice("ios")
    device.launch(SCREENS["ios"][0])
    with WdaFace(device) as face:
        yield face, device


def test_a_20_step_flow_over_wda_uses_one_kept_alive_connection(wda_face: tuple[WdaFace, SimDevice]) -> None:
    face, device = wda_face
    driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=10.0).connect()
    try:
        config = TaskRunnerConfig(max_steps=STEPS)
        result = TaskRunner(driver, ScriptedPlanner(_plan("ios")), config=config).run("twenty steps")
        assert result.succeeded and len(result.steps) == STEPS, result.error
        assert face.faults.count() >= 1 + 2 * STEPS  # every request reached the face...
        assert face.connections == 1  # ...on the one connection connect() opened
    finally:
        driver.close()


def test_facebook_wda_opens_a_connection_per_request(wda_face: tuple[WdaFace, SimDevice]) -> None:
    face, _ = wda_face
    client = wda.Client(face.url)
    for _ in range(3):
        client.status()
    assert face.faults.count() == 3 and face.connections == 3


def test_a_connection_the_server_closed_while_idle_is_replaced(wda_face: tuple[WdaFace, SimDevice]) -> None:
    face, device = wda_face
    driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=10.0).connect()
    try:
        driver.observe()
        server = face._server.server
        assert server is not None
        server.close_connections()  # WDA (or a proxy in front of it) dropped the idle connection
        assert driver.current_app() == SCREENS["ios"][0]  # no error: a new connection
        assert face.connections == 2
    finally:
        driver.close()


def test_a_stopped_wda_answers_nothing_on_a_kept_connection(wda_face: tuple[WdaFace, SimDevice]) -> None:
    face, device = wda_face
    driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=5.0).connect()
    try:
        driver.observe()
        face.stop()
        with pytest.raises(DriverUnavailable, match="nothing answers"):
            driver.observe()  # the kept connection was closed with the face: a refused new one
    finally:
        driver.close()


def test_a_20_step_flow_over_adb_opens_one_connection_per_request() -> None:
    device = SimDevice("android")
    device.launch(SCREENS["android"][0])
    with AdbFace([device]) as face:
        driver = U2Driver(device.device_id, U2Config(adb_host=face.host, adb_port=face.port)).connect()
        try:
            face.faults.reset_counts()
            before = face.connections
            config = TaskRunnerConfig(max_steps=STEPS)
            result = TaskRunner(driver, ScriptedPlanner(_plan("android")), config=config).run("twenty")
            assert result.succeeded and len(result.steps) == STEPS, result.error
            requests = face.requests("rpc:") + face.requests("adb:shell")
            # the first look, then per step a tap, its look, and one more that finds it settled
            assert requests == 1 + 3 * STEPS
            # one adb connection per RPC (host:transport, then tcp:9008 on it): no host:version
            # or device listing per command
            assert face.connections - before == requests
            assert face.requests("adb:host:version") == 0
        finally:
            driver.close()
