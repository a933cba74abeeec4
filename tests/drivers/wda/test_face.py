"""The face speaks WebDriverAgent: driven here by the real facebook-wda client and by raw HTTP."""

from __future__ import annotations

import base64
import http.client
import json
import time
from typing import Any

import pytest
import wda
from amc.core.selectors import Selector
from amc.drivers.hierarchy import parse_source
from amc.sim.device import SimDevice
from amc.sim.profiles import IosProfile
from amc.sim.wda_face import ROUTE_NAMES, WdaFace

SETTINGS = "com.apple.Preferences"


def _raw(face: WdaFace, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    """One request without any client in between: the status code and the decoded JSON body."""
    host, port = face.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        payload = json.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json"} if payload else {}
        conn.request(method, path, payload, headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_status_reports_ready_and_the_session_once_there_is_one(face: WdaFace) -> None:
    client = wda.Client(face.url)
    status = client.status()
    assert status["ready"] is True and status["os"]["name"] == "iOS"
    assert status["sessionId"] is None
    sid = client.session().session_id
    assert client.status()["sessionId"] == sid
    assert face.count("status") == 2 and face.count("session.create") == 1


def test_session_create_answers_both_ids_and_delete_takes_a_trailing_slash(face: WdaFace) -> None:
    code, body = _raw(face, "POST", "/session", {"capabilities": {}})
    assert code == 200
    sid = body["sessionId"]
    assert body["value"]["sessionId"] == sid and isinstance(body["value"]["capabilities"], dict)
    code, body = _raw(face, "DELETE", f"/session/{sid}/")
    assert code == 200 and body["value"] is None and face.session_id is None


def test_errors_are_in_the_body_with_wda_status_codes(face: WdaFace) -> None:
    code, body = _raw(face, "POST", "/session/NOT-A-SESSION/wda/tap", {"x": 1, "y": 1})
    assert code == 404
    assert body["value"] == {
        "error": "invalid session id",
        "message": "Session does not exist",
        "traceback": "",
    }
    code, body = _raw(face, "GET", "/no/such/route")
    assert code == 404 and body["value"]["error"] == "unknown command"
    assert "Unhandled endpoint" in body["value"]["message"]
    assert face.count("unknown") == 1 and "unknown" in ROUTE_NAMES


def test_a_client_session_launches_reads_and_terminates_apps(face: WdaFace) -> None:
    client = wda.Client(face.url)
    assert client.app_current()["bundleId"] == "com.apple.springboard"
    assert client.locked() is False
    client.app_launch(SETTINGS)
    assert face.device.foreground() == SETTINGS
    assert client.app_current()["bundleId"] == SETTINGS
    assert client.app_state(SETTINGS).value == 4
    assert client.app_terminate(SETTINGS).value is True
    assert client.app_state(SETTINGS).value == 1
    assert client.app_terminate(SETTINGS).value is False
    assert face.device.foreground() == "com.apple.springboard"


def test_an_unknown_bundle_is_refused_with_frontboards_error(face: WdaFace) -> None:
    client = wda.Client(face.url)
    sid = client.session().session_id
    code, body = _raw(face, "POST", f"/session/{sid}/wda/apps/launch", {"bundleId": "com.example.missing"})
    # WDA 5.1.4+ (tests/fixtures/real/ios/wda-5.1.4-apps-launch-not-installed-invalid-argument.txt)
    assert code == 400 and body["value"]["error"] == "invalid argument"
    message = body["value"]["message"]
    assert message.startswith('Error Domain=FBSOpenApplicationServiceErrorDomain Code=4 "The request to open')
    assert 'returned nil for "com.example.missing"' in message
    assert client.app_state("com.example.missing").value == 1  # XCTest cannot tell missing from stopped


@pytest.mark.timeout(10)
def test_wda_before_5_1_1_never_answers_a_launch_of_a_missing_app() -> None:
    with WdaFace(SimDevice("ios", profile=IosProfile(wda="4"))) as face:
        client = wda.Client(face.url)
        sid = client.session().session_id
        started = time.monotonic()
        with pytest.raises(wda.usbmux.exceptions.HTTPError):
            client._fetch(
                "POST", f"/session/{sid}/wda/apps/launch", {"bundleId": "com.x.missing"}, timeout=0.5
            )
        assert 0.4 < time.monotonic() - started < 3
        assert client.status()["ready"] is True  # the face still answers other requests


def test_source_is_wda_xml_that_the_parser_reads(face: WdaFace) -> None:
    client = wda.Client(face.url)
    client.app_launch(SETTINGS)
    xml = client.source()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<XCUIElementTypeApplication type=')
    assert f'bundleId="{SETTINGS}"' in xml and "processId=" in xml
    scene = parse_source(xml, platform="ios")
    assert scene.foreground_app == SETTINGS
    assert scene.window_size == (390, 844)
    assert scene.find(Selector(text="General")) is not None


def test_json_and_accessible_sources_have_wda_shapes(face: WdaFace) -> None:
    client = wda.Client(face.url)
    client.app_launch("com.example.amc.demo")
    tree = client.source(format="json")
    assert tree["type"] == "Application" and tree["isEnabled"] == "1"
    assert tree["rect"] == {"x": 0, "y": 0, "width": 390, "height": 844}
    assert tree["frame"] == "{{0, 0}, {390, 844}}"
    from_json = parse_source(json.dumps(tree), platform="ios")
    from_xml = parse_source(client.source(), platform="ios")
    assert from_json.texts() == from_xml.texts()
    accessible = client.source(accessible=True)
    assert accessible["type"] == "Application" and "children" in accessible


def test_xml_entities_in_labels_read_back_as_characters(face: WdaFace) -> None:
    client = wda.Client(face.url)
    client.app_launch(SETTINGS)
    xml = client.source()
    assert 'label="Sounds &amp; Haptics"' in xml
    assert "Sounds & Haptics" in parse_source(xml, platform="ios").texts()


def test_the_clients_own_element_click_works_in_three_requests(face: WdaFace) -> None:
    client = wda.Client(face.url)
    client.app_launch(SETTINGS)
    assert client.session_id  # the base client stores the id it reads from /status
    face.faults.reset_counts()
    client(name="General").click()
    assert face.device.current_run().stack == ["main", "general"]  # type: ignore[union-attr]
    assert face.count() == 3
    assert (face.count("elements"), face.count("element.property"), face.count("tap")) == (1, 1, 1)
    client(label="Settings", className="Button").click()  # the back button carries the previous title
    assert face.device.current_run().stack == ["main"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("kwargs", "count"),
    [
        ({"xpath": '//XCUIElementTypeCell[@name="com.apple.settings.general"]'}, 1),
        ({"predicate": "type == 'XCUIElementTypeSwitch' AND value == '0'"}, 1),
        ({"classChain": "**/XCUIElementTypeTable/XCUIElementTypeCell[`name BEGINSWITH 'com.apple'`]"}, 21),
        ({"classChain": "**/XCUIElementTypeCell[`visible == 1`][2]/XCUIElementTypeStaticText"}, 2),
        ({"classChain": "XCUIElementTypeWindow[-1]/**/XCUIElementTypeStatusBar"}, 1),
        ({"id": "airplane"}, 2),
        ({"labelContains": "Bluetooth"}, 1),
    ],
)
def test_element_lookups_match_what_is_on_screen(face: WdaFace, kwargs: dict[str, str], count: int) -> None:
    client = wda.Client(face.url)
    client.app_launch(SETTINGS)
    assert client(**kwargs).count() == count


def test_a_bad_selector_is_invalid_selector(face: WdaFace) -> None:
    client = wda.Client(face.url)
    sid = client.session().session_id
    code, body = _raw(face, "POST", f"/session/{sid}/elements", {"using": "xpath", "value": "//[oops"})
    assert code == 400 and body["value"]["error"] == "invalid selector"


def test_input_routes_change_the_device(face: WdaFace) -> None:
    client = wda.Client(face.url)
    client.app_launch("com.example.amc.demo")
    field = client(id="username").get(timeout=0)
    field.click()
    client.send_keys("qa\n")
    run = face.device.current_run()
    assert run is not None and run.values["username"] == "qa" and run.focused is None
    client.press("home")
    assert face.device.foreground() == "com.apple.springboard"
    client.app_launch(SETTINGS)
    client.swipe(195, 700, 195, 300, 0.2)
    assert run is not None and face.device.current_run().scroll["main"] > 0  # type: ignore[union-attr]
    client.home()
    assert face.device.foreground() == "com.apple.springboard"


def test_typing_without_a_keyboard_is_the_keyboard_error(face: WdaFace) -> None:
    client = wda.Client(face.url)
    sid = client.session().session_id
    code, body = _raw(face, "POST", f"/session/{sid}/wda/keys", {"value": ["a"]})
    assert code == 400 and body["value"]["error"] == "invalid element state"
    assert "keyboard must be present to send keys" in body["value"]["message"]


def test_screenshot_window_size_and_buttons(face: WdaFace) -> None:
    client = wda.Client(face.url)
    png = client.screenshot(format="raw")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert tuple(client.window_size()) == (390, 844)
    with pytest.raises(wda.WDARequestError) as caught:
        client._session_http.post("/wda/pressButton", {"name": "power"})
    assert "unknown" in caught.value.value["message"]
    _, body = _raw(face, "GET", "/screenshot")
    assert base64.b64decode(body["value"]) == png


def test_a_forgotten_session_is_an_invalid_session_id(face: WdaFace) -> None:
    client = wda.Client(face.url)
    app = client.session()
    face.forget_session()
    code, body = _raw(face, "POST", f"/session/{app.session_id}/wda/apps/state", {"bundleId": SETTINGS})
    assert code == 404 and body["value"]["error"] == "invalid session id"


@pytest.mark.parametrize(
    ("generation", "tap_route", "traits", "version"),
    [("4", "tap.element", False, None), ("5", "tap.element", False, None), ("9", "tap", True, "9.15.3")],
)
def test_older_generations_write_fewer_attributes_and_have_their_own_tap_route(
    generation: str, tap_route: str, traits: bool, version: str | None
) -> None:
    with WdaFace(SimDevice("ios", profile=IosProfile(wda=generation))) as face:
        client = wda.Client(face.url)
        xml = client.source()
        assert "bundleId=" not in xml and "processId=" not in xml  # those came with WDA 10.1.0
        assert ('traits="' in xml) is traits  # 9.12.0
        status = client.status()
        assert status["build"].get("version") == version  # build.version came with 8.3.0
        assert ("device" in status) is (generation != "4")  # 5.9
        sid = client.session().session_id
        for path, route in (("/wda/tap", "tap"), ("/wda/tap/0", "tap.element")):
            code, body = _raw(face, "POST", f"/session/{sid}{path}", {"x": 1, "y": 1})
            if route == tap_route:
                assert code == 200, path
            else:
                assert code == 404 and body["value"]["error"] == "unknown command", path
