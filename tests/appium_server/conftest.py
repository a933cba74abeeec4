"""A real Appium 3 server with the fake driver, started once per test session on 127.0.0.1.

Skipped, with how to install the tools, where Node or the npm packages are missing; CI exports
``AMC_REQUIRE_NODE_TOOLS=1`` so that there they fail instead of skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.drivers.appium import AppiumDriver
from appium.options.common import AppiumOptions

from tests.appium_server.servers import (
    HOST,
    NodeTools,
    ServerProcess,
    find_node_tools,
    free_port,
    get_json,
    wait_until,
)

APP_XML = Path(__file__).with_name("fake_app.xml")
APPIUM_START_TIMEOUT = 60.0
CALL_TIMEOUT = 10.0


@pytest.fixture(scope="session")
def node_tools() -> NodeTools:
    found = find_node_tools()
    if isinstance(found, str):
        if os.environ.get("AMC_REQUIRE_NODE_TOOLS") == "1":
            pytest.fail(f"AMC_REQUIRE_NODE_TOOLS=1 but {found}")
        pytest.skip(found)
    return found


def start_appium(tools: NodeTools, log_dir: Path, name: str) -> tuple[ServerProcess, int]:
    """An Appium 3 server with only the fake driver on a free loopback port (not waited for)."""
    port = free_port()
    argv = [tools.node, str(tools.appium_js), "server", "--address", HOST, "--port", str(port)]
    argv += ["--use-drivers", "fake", "--log-level", "warn"]
    env = {**os.environ, "APPIUM_HOME": str(tools.root)}
    return ServerProcess(name, argv, log_dir / f"{name}.log", env).start(), port


def appium_ready(port: int) -> bool:
    return get_json(port, "/status")["value"]["ready"] is True


@pytest.fixture(scope="session")
def appium_server(node_tools: NodeTools, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, port = start_appium(node_tools, tmp_path_factory.mktemp("appium"), "appium")
    try:
        wait_until(
            f"Appium on port {port}",
            lambda: appium_ready(port),
            timeout=APPIUM_START_TIMEOUT,
            processes=[process],
        )
        yield f"http://{HOST}:{port}"
    finally:
        process.stop()
    assert process.exited, "the Appium server outlived its fixture"


def fake_options(device_name: str = "fake-phone") -> AppiumOptions:
    """Capabilities for Appium's fake driver and the app description in this folder."""
    options = AppiumOptions()
    options.set_capability("platformName", "Fake")
    options.set_capability("appium:automationName", "Fake")
    options.set_capability("appium:deviceName", device_name)
    options.set_capability("appium:app", str(APP_XML))
    return options


def fake_driver_for(url: str, device_name: str = "fake-phone") -> AppiumDriver:
    # The fake driver's source is <AppiumAUT><app>…: drivers.hierarchy reads <AppiumAUT> documents
    # as the XCUITest format, so the Scene is an iOS one.
    return AppiumDriver(
        url, fake_options(device_name), platform="ios", timeout=CALL_TIMEOUT, launch_timeout=2.0
    )


@pytest.fixture
def fake_driver(appium_server: str) -> Iterator[AppiumDriver]:
    driver = fake_driver_for(appium_server).connect()
    try:
        yield driver
    finally:
        driver.close()
