"""The Appium face on the wire: what a W3C client sends and gets back, byte for byte where it matters."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from amc.connect.simulated import SimDriver
from amc.drivers.hierarchy import detect_format, parse_source
from amc.sim.appium_face import AppiumFace
from amc.sim.appium_input import ELEMENT_KEY
from amc.sim.catalog import DEMO_APP
from lxml import etree

CAPS = {
    "android": {"platformName": "Android", "appium:automationName": "UiAutomator2"},
    "ios": {"platformName": "iOS", "appium:automationName": "XCUITest"},
}
SETTINGS_APP = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
APP_KEY = {"android": "appId", "ios": "bundleId"}


def call(face: AppiumFace, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", int(face.url.rsplit(":", 1)[1]), timeout=5)
    try:
        payload = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        conn.close()


def new_session(face: AppiumFace, **extra: Any) -> str:
    caps = {**CAPS[face.platform], **extra}
    status, reply = call(
        face, "POST", "/session", {"capabilities": {"alwaysMatch": caps, "firstMatch": [{}]}}
    )
    assert status == 200, reply
    return str(reply["value"]["sessionId"])


def _one(root: etree._Element, xpath: str) -> etree._Element:
    found = root.xpath(xpath)
    assert isinstance(found, list) and found and isinstance(found[0], etree._Element), found
    return found[0]


def mobile(face: AppiumFace, sid: str, script: str, args: dict[str, Any] | None = None) -> tuple[int, Any]:
    return call(face, "POST", f"/session/{sid}/execute/sync", {"script": script, "args": [args or {}]})


def test_new_session_answers_the_w3c_shape(face: AppiumFace) -> None:
    caps = CAPS[face.platform]
    status, reply = call(
        face, "POST", "/session", {"capabilities": {"alwaysMatch": caps, "firstMatch": [{}]}}
    )
    assert status == 200
    assert set(reply) == {"value"}  # W3C: no top-level sessionId
    assert set(reply["value"]) == {"sessionId", "capabilities"}
    returned = reply["value"]["capabilities"]
    assert returned["platformName"] == ("Android" if face.platform == "android" else "iOS")
    assert returned["udid"] == face.device.device_id
    assert returned["deviceScreenSize"] == "x".join(map(str, face.device.window_size))
    assert call(face, "GET", "/status")[1]["value"]["ready"] is True


def test_a_session_for_another_platform_or_device_is_not_created(face: AppiumFace) -> None:
    other = CAPS["ios" if face.platform == "android" else "android"]
    status, reply = call(face, "POST", "/session", {"capabilities": {"alwaysMatch": other}})
    assert (status, reply["value"]["error"]) == (500, "session not created")
    caps = {**CAPS[face.platform], "appium:udid": "not-this-device"}
    status, reply = call(face, "POST", "/session", {"capabilities": {"alwaysMatch": caps}})
    assert (status, reply["value"]["error"]) == (500, "session not created")
    assert "not-this-device" in reply["value"]["message"]


def test_errors_have_the_exact_w3c_shape_and_status(face: AppiumFace) -> None:
    status, reply = call(face, "GET", "/session/nope/source")
    assert status == 404
    assert reply == {
        "value": {"error": "invalid session id", "message": reply["value"]["message"], "stacktrace": ""}
    }
    sid = new_session(face)
    assert call(face, "GET", f"/session/{sid}/no/such/route")[1]["value"]["error"] == "unknown command"
    status, reply = call(face, "POST", f"/session/{sid}/element", {"using": "id", "value": "nothing-here"})
    assert (status, reply["value"]["error"]) == (404, "no such element")
    status, reply = mobile(face, sid, "mobile: shake")
    assert (status, reply["value"]["error"]) == (500, "unsupported operation")
    assert "mobile: shake" in reply["value"]["message"]
    status, reply = call(
        face, "POST", f"/session/{sid}/element", {"using": "-ios predicate string", "value": "x"}
    )
    assert (status, reply["value"]["error"]) == (400, "invalid selector")


def test_page_source_is_the_platforms_appium_format(face: AppiumFace) -> None:
    sid = new_session(face)
    face.device.launch(DEMO_APP)
    status, reply = call(face, "GET", f"/session/{sid}/source")
    assert status == 200
    source: str = reply["value"]
    root = etree.fromstring(source.encode("utf-8"))
    if face.platform == "android":
        assert source.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>")
        assert detect_format(source.encode()) == "appium-uiautomator2"
        assert root.tag == "hierarchy"
        assert {str(k): str(v) for k, v in root.attrib.items()} == {
            "index": "0",
            "class": "hierarchy",
            "rotation": "0",
            "width": "1080",
            "height": "2400",
        }
        field = _one(root, "//android.widget.EditText[@resource-id='com.example.amc.demo:id/username']")
        assert field.get("class") == "android.widget.EditText" and field.get("displayed") == "true"
        assert (field.get("bounds") or "").startswith("[") and field.get("hint") == "Username"
    else:
        assert detect_format(source.encode()) == "appium-xcuitest"
        assert root.tag == "AppiumAUT" and len(root) == 1
        app = root[0]
        assert app.tag == "XCUIElementTypeApplication"
        assert (app.get("index"), app.get("accessible"), app.get("width")) == ("0", "false", "390")
        field = _one(root, "//XCUIElementTypeTextField[@name='username']")
        assert field.get("accessible") == "true" and field.get("placeholderValue") == "Username"
    # The harness's parser reads it as the same screen the in-process driver sees.
    scene = parse_source(source, platform=face.platform)
    sim = SimDriver(face.platform, device=face.device).observe()
    assert [el.type for el in scene] == [el.type for el in sim]
    assert scene.texts() == sim.texts()
    assert scene.window_size == face.device.window_size


@pytest.mark.parametrize("strategy", ["xpath", "id", "accessibility id", "class name"])
def test_find_strategies_reach_the_same_node(face: AppiumFace, strategy: str) -> None:
    sid = new_session(face)
    face.device.launch(DEMO_APP)
    android = face.platform == "android"
    locators = {
        "xpath": "//android.widget.Button" if android else "//XCUIElementTypeButton",
        "id": "sign_in",  # Android: the bare name gets the app's package, as UiAutomator2 does
        "accessibility id": "12:00 PM" if android else "sign_in",  # content-desc / name
        "class name": "android.widget.Button" if android else "XCUIElementTypeButton",
    }
    status, reply = call(
        face, "POST", f"/session/{sid}/elements", {"using": strategy, "value": locators[strategy]}
    )
    assert status == 200
    assert reply["value"], reply
    ref = reply["value"][0]
    assert ref[ELEMENT_KEY] == ref["ELEMENT"]
    rect = call(face, "GET", f"/session/{sid}/element/{ref[ELEMENT_KEY]}/rect")[1]["value"]
    assert set(rect) == {"x", "y", "width", "height"} and rect["width"] > 0


def test_element_commands_click_type_and_read_back(face: AppiumFace) -> None:
    sid = new_session(face)
    face.device.launch(DEMO_APP)
    _, reply = call(face, "POST", f"/session/{sid}/element", {"using": "id", "value": "username"})
    eid = reply["value"][ELEMENT_KEY]
    assert call(face, "POST", f"/session/{sid}/element/{eid}/click", {})[0] == 200
    _, reply = call(face, "GET", f"/session/{sid}/element/active")
    assert reply["value"][ELEMENT_KEY] == eid  # the field has the keyboard focus
    assert (
        call(face, "POST", f"/session/{sid}/element/{eid}/value", {"text": "qa", "value": ["q", "a"]})[0]
        == 200
    )
    assert call(face, "GET", f"/session/{sid}/element/{eid}/text")[1]["value"] == "qa"
    run = face.device.current_run()
    assert run is not None and run.values["username"] == "qa"


def test_an_element_that_left_the_screen_is_stale(face: AppiumFace) -> None:
    sid = new_session(face)
    face.device.launch(SETTINGS_APP[face.platform])
    tag = "android.widget.TextView" if face.platform == "android" else "XCUIElementTypeStaticText"
    eid = call(face, "POST", f"/session/{sid}/element", {"using": "class name", "value": tag})[1]["value"][
        ELEMENT_KEY
    ]
    face.device.home()
    status, reply = call(face, "GET", f"/session/{sid}/element/{eid}/rect")
    assert (status, reply["value"]["error"]) == (404, "stale element reference")


def test_w3c_pointer_actions_become_taps_long_presses_and_swipes(face: AppiumFace) -> None:
    sid = new_session(face)
    face.device.launch(SETTINGS_APP[face.platform])

    def pointer(*actions: dict[str, Any]) -> int:
        body = {
            "actions": [
                {
                    "type": "pointer",
                    "id": "f",
                    "parameters": {"pointerType": "touch"},
                    "actions": list(actions),
                }
            ]
        }
        return call(face, "POST", f"/session/{sid}/actions", body)[0]

    down, up = {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}
    assert pointer({"type": "pointerMove", "x": 100, "y": 500}, down, up) == 200
    assert (
        pointer({"type": "pointerMove", "x": 100, "y": 500}, down, {"type": "pause", "duration": 800}, up)
        == 200
    )
    assert (
        pointer(
            {"type": "pointerMove", "x": 100, "y": 700},
            down,
            {"type": "pointerMove", "x": 100, "y": 300, "duration": 300},
            up,
        )
        == 200
    )
    assert [g.kind for g in face.gestures] == ["tap", "long_press", "swipe"]
    assert face.gestures[2].start == (100, 700) and face.gestures[2].end == (100, 300)
    assert pointer({"type": "wiggle"}) == 400


def test_mobile_app_commands(face: AppiumFace) -> None:
    sid = new_session(face)
    key, settings = APP_KEY[face.platform], SETTINGS_APP[face.platform]
    assert mobile(face, sid, "mobile: activateApp", {key: settings}) == (200, {"value": None})
    assert mobile(face, sid, "mobile: queryAppState", {key: settings})[1]["value"] == 4
    # UiAutomator2 knows the package list (0: not installed); XCUITest asks XCTest, which answers 1
    missing_state = 0 if face.platform == "android" else 1
    assert mobile(face, sid, "mobile: queryAppState", {key: "com.example.none"})[1]["value"] == missing_state
    status, reply = mobile(face, sid, "mobile: activateApp", {key: "com.example.none"})
    if face.platform == "android":  # tests/fixtures/real/appium/uia2-activateApp-missing-launchable-…
        assert (status, reply["value"]["error"]) == (500, "unknown error")
        assert "Unable to resolve the launchable activity of 'com.example.none'" in reply["value"]["message"]
    else:  # WebDriverAgent 5.1.4+'s refusal, relayed
        assert (status, reply["value"]["error"]) == (400, "invalid argument")
        assert "FBSApplicationLibrary) returned nil" in reply["value"]["message"]
    wrong_key = "bundleId" if face.platform == "android" else "appId"
    assert mobile(face, sid, "mobile: activateApp", {wrong_key: settings})[0] == 400
    if face.platform == "android":
        assert mobile(face, sid, "mobile: getCurrentPackage")[1]["value"] == settings
        assert mobile(face, sid, "mobile: pressKey", {"keycode": 3})[0] == 200
        assert mobile(face, sid, "mobile: activeAppInfo")[1]["value"]["error"] == "unsupported operation"
    else:
        info = mobile(face, sid, "mobile: activeAppInfo")[1]["value"]
        assert info["bundleId"] == settings and info["name"] == "Settings"
        assert mobile(face, sid, "mobile: pressButton", {"name": "home"})[0] == 200
        assert mobile(face, sid, "mobile: pressButton", {"name": "back"})[0] == 400
        assert mobile(face, sid, "mobile: getCurrentPackage")[1]["value"]["error"] == "unsupported operation"
    assert face.device.foreground() == face.device.launcher
    assert mobile(face, sid, "mobile: terminateApp", {key: settings})[1]["value"] is True
    assert face.device.app_state(settings) == 1


def test_requests_are_counted_per_route(face: AppiumFace) -> None:
    sid = new_session(face)
    call(face, "GET", f"/session/{sid}/source")
    call(face, "GET", f"/session/{sid}/source")
    mobile(face, sid, "mobile: queryAppState", {APP_KEY[face.platform]: DEMO_APP})
    assert face.count("new_session") == 1
    assert face.count("source") == 2
    assert face.count("mobile: queryAppState") == 1
    assert face.count() == 4
