"""The simulated Appium UiAutomator2 server's own answers (``sim/appium_u2_server.py``), over
HTTP as Appium's driver sends them: the shapes of ``AppiumServlet``'s handlers."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from amc.sim.apk_manifest import ApkInfo
from amc.sim.appium_u2_server import U2Server
from amc.sim.device import SimDevice


def _call(url: str, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def server() -> Any:
    device = SimDevice("android")
    face = U2Server(device, ApkInfo("io.appium.uiautomator2.server", 278, "10.6.6")).start()
    try:
        yield face
    finally:
        face.stop()


def test_status_sessions_and_a_session_in_the_servers_envelope(server: U2Server) -> None:
    status, body = _call(server.url + "/status")
    assert (status, body["sessionId"]) == (200, "None")
    assert body["value"] == {
        "ready": True,
        "message": "UiAutomator2 Server is ready to accept commands",
        "build": {"version": "10.6.6", "versionCode": 278},
    }
    assert _call(server.url + "/sessions")[1]["value"] == []
    caps = {"platformName": "Android", "appium:automationName": "UiAutomator2", "newCommandTimeout": 0}
    status, created = _call(
        server.url + "/session", "POST", {"capabilities": {"firstMatch": [caps], "alwaysMatch": {}}}
    )
    sid = created["sessionId"]
    assert (status, created["value"]) == (200, {"capabilities": caps, "sessionId": sid})
    assert _call(server.url + "/sessions")[1]["value"] == [
        {"capabilities": caps, "sessionId": sid, "id": sid}
    ]
    assert _call(f"{server.url}/session/{sid}/appium/device/system_bars")[1]["value"] == {"statusBar": 63}
    assert _call(f"{server.url}/session/{sid}/window/current/size")[1]["value"] == {
        "width": 1080,
        "height": 2400,
    }
    info = _call(f"{server.url}/session/{sid}/appium/device/info")[1]["value"]
    assert (info["apiVersion"], info["platformVersion"], info["realDisplaySize"]) == ("34", "14", "1080x2400")
    assert "<hierarchy" in _call(f"{server.url}/session/{sid}/source")[1]["value"]


def test_another_session_id_is_refused_and_delete_stops_the_server(server: U2Server) -> None:
    _, created = _call(server.url + "/session", "POST", {"capabilities": {"firstMatch": [{}]}})
    status, body = _call(f"{server.url}/session/nope/appium/device/info")
    assert (status, body["value"]["error"]) == (404, "invalid session id")
    assert _call(f"{server.url}/session/{created['sessionId']}", "DELETE")[0] == 200
    deadline = time.monotonic() + 2
    while not server.stopped.is_set() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.stopped.is_set()  # DeleteSession stops the instrumentation 15 ms after answering
    status, body = _call(server.url + "/session", "POST", {"capabilities": []})
    assert (status, body["value"]["error"]) == (400, "invalid argument")


@pytest.mark.parametrize("caps", [[], {"firstMatch": [1]}, {"alwaysMatch": "x"}, None])
def test_malformed_capabilities_are_an_invalid_argument(server: U2Server, caps: Any) -> None:
    status, body = _call(server.url + "/session", "POST", {"capabilities": caps})
    assert (status, body["value"]["error"]) == (400, "invalid argument")
