"""AppiumDriver against a real Appium 3 server running @appium/fake-driver with fake_app.xml.

The fake driver speaks real W3C WebDriver through the real Appium server; it has no ``mobile:``
commands (no app lifecycle, no current package, no keys) and no active element, which must come
back as a clear typed error, never a hang.
"""

from __future__ import annotations

import http.client
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from amc.core.errors import DeviceError, SessionLost, TargetNotFound
from amc.core.models import Bounds
from amc.drivers.appium import AppiumDriver

pytestmark = pytest.mark.timeout(60)

MOCK_TYPES = {"MockNavBar", "MockListView", "MockListItem", "MockInputField", "MockButton"}


def _port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def _actions_log(driver: AppiumDriver) -> list[Any]:
    """What the fake driver recorded from W3C actions (one entry per actions request)."""
    log: list[Any] = list(driver.client.get_log("actions"))
    return log


def test_observe_is_one_page_source_request_read_into_a_scene(fake_driver: AppiumDriver) -> None:
    before = fake_driver.requests
    scene = fake_driver.observe()
    assert fake_driver.requests - before == 1
    assert {el.type for el in scene} >= MOCK_TYPES
    assert scene.window_size == (1080, 1920)  # the <app width height>
    assert (scene.backend, scene.foreground_app) == ("appium", None)
    assert scene.source is not None and scene.source.startswith("<AppiumAUT><app")
    assert (
        len(scene) == scene.source.count("<") - scene.source.count("</") - 1
    )  # every element but the wrapper


def test_elements_are_found_clicked_and_measured_on_the_server(fake_driver: AppiumDriver) -> None:
    assert len(fake_driver.find_all("xpath", "//MockListItem")) == 3
    assert len(fake_driver.find_all("class name", "MockButton")) == 3
    assert fake_driver.find("accessibility id", "search").id
    save = fake_driver.find("id", "save")
    assert fake_driver.element_bounds(save) == Bounds(40, 1300, 520, 1460)
    before = fake_driver.requests
    fake_driver.click(save)
    assert fake_driver.requests - before == 1
    assert fake_driver.element_attribute(save, "clicks") == "1"
    with pytest.raises(TargetNotFound):
        fake_driver.find("id", "no_such_element")


def test_a_tap_is_one_w3c_actions_request_the_server_records(fake_driver: AppiumDriver) -> None:
    before = fake_driver.requests
    fake_driver.tap(280, 1380)
    fake_driver.swipe(540, 900, 540, 300, 0.25)
    assert fake_driver.requests - before == 2
    tap, swipe = _actions_log(fake_driver)[-2:]
    assert [a["type"] for a in tap[0]["actions"]] == ["pointerMove", "pointerDown", "pointerUp"]
    assert (tap[0]["actions"][0]["x"], tap[0]["actions"][0]["y"]) == (280, 1380)
    assert swipe[0]["actions"][2] == {
        "type": "pointerMove",
        "duration": 250,
        "origin": "viewport",
        "x": 540,
        "y": 300,
    }


def test_typing_into_an_input_field(fake_driver: AppiumDriver) -> None:
    search = fake_driver.find("id", "search")
    fake_driver.click(search)
    fake_driver.type_into(search, "wi-fi")
    assert fake_driver.element_text(search) == "wi-fi"
    before = fake_driver.requests
    fake_driver.type_text("ok")  # W3C key actions: the fake driver records them
    assert fake_driver.requests - before == 1
    keys = _actions_log(fake_driver)[-1][0]
    assert keys["type"] == "key" and [a["value"] for a in keys["actions"]] == ["o", "o", "k", "k"]


def test_window_size_and_screenshot(fake_driver: AppiumDriver) -> None:
    assert fake_driver.window_size() == (1080, 1920)
    assert fake_driver.screenshot().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("launch_app", lambda d: d.launch_app("com.example.app")),
        ("terminate_app", lambda d: d.terminate_app("com.example.app")),
        ("current_app", lambda d: d.current_app()),
        ("press", lambda d: d.press("home")),
    ],
)
def test_app_lifecycle_is_a_clear_typed_error_not_a_hang(
    fake_driver: AppiumDriver, name: str, call: Callable[[AppiumDriver], object]
) -> None:
    before = fake_driver.requests
    with pytest.raises(DeviceError) as caught:
        call(fake_driver)
    error = caught.value
    assert type(error) is DeviceError and not error.transient and error.category == "device"
    assert "does not support" in error.message and "mobile: " in error.message
    assert error.hint and "UiAutomator2" in error.hint
    assert fake_driver.requests - before == 1  # asked once, answered at once


def test_an_alert_blocks_until_it_is_accepted(fake_driver: AppiumDriver) -> None:
    fake_driver.click(fake_driver.find("id", "delete"))  # shows <alert id="confirm_delete">
    save = fake_driver.find("id", "save")
    with pytest.raises(DeviceError, match="alert"):
        fake_driver.click(save)
    assert fake_driver.client.switch_to.alert.text == "Delete everything?"
    fake_driver.client.switch_to.alert.accept()
    fake_driver.click(save)


def test_a_session_ended_behind_its_back_is_session_lost_then_renewed(appium_server: str) -> None:
    from tests.appium_server.conftest import fake_driver_for

    driver = fake_driver_for(appium_server).connect()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", _port(appium_server), timeout=10)
        conn.request("DELETE", f"/session/{driver.session_id}")
        assert conn.getresponse().status == 200
        conn.close()
        with pytest.raises(SessionLost):
            driver.observe()
        assert {el.type for el in driver.observe()} >= MOCK_TYPES
        assert driver.sessions_started == 2
    finally:
        driver.close()


def test_close_ends_the_session_on_the_server(appium_server: str) -> None:
    from tests.appium_server.conftest import fake_driver_for

    driver = fake_driver_for(appium_server).connect()
    sid = driver.session_id
    assert _status(appium_server, f"/session/{sid}/source") == 200
    driver.close()
    assert _status(appium_server, f"/session/{sid}/source") == 404  # invalid session id


def _status(url: str, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", _port(url), timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()
