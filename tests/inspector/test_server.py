"""The inspector's server treats every request as hostile: typed JSON errors, bounded sizes,
nothing served but its page, and only to requests addressed to 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import ConfigError, DeviceError
from amc.inspector import FlowDraft, InspectorServer, InspectorSession
from amc.inspector.server import MAX_BODY, TOKEN_HEADER

from tests.flows.helpers import amc


@pytest.fixture
def served() -> Iterator[tuple[InspectorServer, SimDriver]]:
    driver = SimDriver("android")
    driver.launch_app("com.example.amc.demo")
    server = InspectorServer(InspectorSession(driver))
    server.start()
    try:
        yield server, driver
    finally:
        server.stop()


def _request(
    server: InspectorServer,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    token: bool = True,
) -> tuple[int, dict[str, str], bytes]:
    """One request, carrying the page's token unless ``token`` is False."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", int(server.url.rsplit(":", 1)[1].strip("/")), timeout=5
    )
    sent = {TOKEN_HEADER: server.token} if token else {}
    try:
        connection.request(method, path, body=body, headers={**sent, **(headers or {})})
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


def _post(server: InspectorServer, path: str, data: Any, **headers: str) -> tuple[int, dict[str, Any]]:
    body = json.dumps(data).encode()
    status, _, raw = _request(server, "POST", path, body, {"Content-Type": "application/json", **headers})
    return status, json.loads(raw)


def _read_all(connection: socket.socket) -> bytes:
    data = b""
    while len(data) < 65536:
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _error(raw: bytes) -> dict[str, Any]:
    data = json.loads(raw)
    assert set(data) == {"error"} and set(data["error"]) == {"kind", "message", "hint"}
    assert "Traceback" not in data["error"]["message"]
    return data["error"]  # type: ignore[no-any-return]


def test_the_page_and_its_two_files_are_served_with_a_strict_policy(
    served: tuple[InspectorServer, Any],
) -> None:
    server, _ = served
    status, headers, body = _request(server, "GET", "/")
    assert status == 200 and body.startswith(b"<!DOCTYPE html>")
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    for path, kind in (("/inspector.js", "text/javascript"), ("/inspector.css", "text/css")):
        status, headers, body = _request(server, "GET", path)
        assert status == 200 and headers["content-type"].startswith(kind) and body
    assert b"http" not in _request(server, "GET", "/")[2].replace(
        b"http-equiv", b""
    )  # nothing from elsewhere


@pytest.mark.parametrize(
    "path",
    [
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/inspector.js/../../pyproject.toml",
        "//etc/passwd",
        "/page/index.html",
        "/index.html",
        "/api/../inspector.js",
        "/api/screen/../../etc/passwd",
        "/%00",
    ],
)
def test_nothing_but_the_page_is_served_whatever_the_path(
    served: tuple[InspectorServer, Any], path: str
) -> None:
    server, _ = served
    status, _, raw = _request(server, "GET", path)
    assert status in (400, 404)
    if status == 404:
        assert _error(raw)["kind"] == "NotFound"
    assert b"root:" not in raw and b"[project]" not in raw


def test_requests_addressed_elsewhere_are_refused(served: tuple[InspectorServer, Any]) -> None:
    server, _ = served
    status, _, raw = _request(server, "GET", "/api/screen", headers={"Host": "evil.example:80"})
    assert status == 421 and _error(raw)["kind"] == "WrongHost"
    status, data = _post(server, "/api/refresh", {}, Origin="http://evil.example")
    assert status == 403 and data["error"]["kind"] == "WrongOrigin"
    assert (
        _request(
            server, "GET", "/api/screen", headers={"Host": server.url[7:-1].replace("127.0.0.1", "localhost")}
        )[0]
        == 200
    )


def test_bodies_must_be_small_json_objects_with_a_length(served: tuple[InspectorServer, Any]) -> None:
    server, _ = served
    cases = [
        (b"{not json", {"Content-Type": "application/json"}, 400, "BadJSON"),
        (b"[1, 2]", {"Content-Type": "application/json"}, 400, "BadJSON"),
        (b"\xff\xfe", {"Content-Type": "application/json"}, 400, "BadJSON"),
        (b"{}", {"Content-Type": "text/plain"}, 415, "UnsupportedMediaType"),
        (b"{}", {"Content-Type": "application/x-www-form-urlencoded"}, 415, "UnsupportedMediaType"),
    ]
    for body, headers, status, kind in cases:
        got, _, raw = _request(server, "POST", "/api/tap", body, headers)
        assert (got, _error(raw)["kind"]) == (status, kind), body
    # Too large: refused from its Content-Length, before the body is read.
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw_socket:
        raw_socket.sendall(
            f"POST /api/type HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"{TOKEN_HEADER}: {server.token}\r\nContent-Length: {MAX_BODY * 100}\r\n\r\n".encode()
        )
        reply = _read_all(raw_socket)  # the server answers and closes: it does not wait for the body
    assert reply.startswith(b"HTTP/1.1 413 ") and b"PayloadTooLarge" in reply
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw_socket:
        raw_socket.sendall(
            f"POST /api/type HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"{TOKEN_HEADER}: {server.token}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        assert raw_socket.recv(4096).startswith(b"HTTP/1.1 411 ")


def test_unknown_routes_methods_elements_and_stale_screens_are_typed_errors(
    served: tuple[InspectorServer, SimDriver],
) -> None:
    server, driver = served
    screen = json.loads(_request(server, "GET", "/api/screen")[2])
    version = screen["version"]
    assert _post(server, "/api/nothing", {})[0] == 404
    assert _request(server, "PUT", "/api/tap", b"{}", {"Content-Type": "application/json"})[0] == 405
    for ref in (-1, len(screen["elements"]), 10**12, "3", None, True, [1]):
        status, data = _post(server, "/api/tap", {"v": version, "ref": ref})
        assert (status, data["error"]["kind"]) == (404, "TargetNotFound"), ref
    status, data = _post(server, "/api/tap", {"v": version + 7, "ref": 1})
    assert (status, data["error"]["kind"]) == (409, "StaleScreen")
    for query in ("v=x&ref=1", "ref=1", f"v={version}&ref=-1", f"v={version}&ref=" + "9" * 40):
        status, _, raw = _request(server, "GET", "/api/element?" + query)
        assert status in (400, 404) and _error(raw)["kind"] in ("BadRequest", "TargetNotFound"), query
    for body in ({"v": version, "text": 5}, {"v": version, "text": "x" * 5000}):
        status, data = _post(server, "/api/type", body)
        assert (status, data["error"]["kind"]) == (400, "StepArgumentError")
    status, data = _post(server, "/api/swipe", {"v": version, "direction": "sideways"})
    assert (status, data["error"]["kind"]) == (400, "StepArgumentError")
    assert driver.current_app() == "com.example.amc.demo"  # nothing refused reached the device
    assert json.loads(_request(server, "GET", "/api/screen")[2])["version"] == version


def test_an_action_acts_on_the_device_and_answers_the_new_screen(
    served: tuple[InspectorServer, SimDriver],
) -> None:
    server, driver = served
    screen = json.loads(_request(server, "GET", "/api/screen")[2])
    (field,) = [e for e in screen["elements"] if (e["id"] or "").endswith(":id/username")]
    status, after = _post(server, "/api/type", {"v": screen["version"], "ref": field["ref"], "text": "qa"})
    assert status == 200 and after["version"] == screen["version"] + 1
    assert any(e["text"] == "qa" for e in after["elements"])
    status, headers, picture = _request(server, "GET", f"/api/screen.png?v={after['version']}")
    assert status == 200 and headers["content-type"] == "image/png" and picture == driver.screenshot()
    assert _request(server, "GET", f"/api/screen.png?v={screen['version']}")[0] == 409
    detail = json.loads(_request(server, "GET", f"/api/element?v={after['version']}&ref={field['ref']}")[2])
    assert detail["selectors"][0]["yaml"] == "{id: username}"
    assert detail["attributes"]["text"] == "qa"


def test_the_server_binds_only_127_0_0_1() -> None:
    session = InspectorSession(SimDriver("android"))
    for host in ("0.0.0.0", "::", "192.168.1.2", "localhost"):
        with pytest.raises(ConfigError, match=r"127\.0\.0\.1 only"):
            InspectorServer(session, host=host)
    for port in (-1, 70000, True):
        with pytest.raises(ConfigError, match="--port"):
            InspectorServer(session, port=port)  # type: ignore[arg-type]


def test_a_stalled_connection_is_closed_and_others_are_served_meanwhile() -> None:
    driver = SimDriver("ios")
    with InspectorServer(InspectorSession(driver), timeout=0.5) as server:
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port), timeout=5) as stalled:
            stalled.sendall(b"GET /api/screen HTTP/1.1\r\nHost: 127.0.0.1")  # and nothing more
            assert _request(server, "GET", "/api/screen")[0] == 200
            started = time.monotonic()
            assert _read_all(stalled) == b""  # closed by the server, without an answer
            assert time.monotonic() - started < 3


class _Blind(SimDriver):
    """A device whose screenshots fail (some real ones do, behind a secure window)."""

    def screenshot(self) -> bytes:
        raise DeviceError("the screen is protected (FLAG_SECURE)")


def test_a_screen_without_a_picture_still_shows_its_elements() -> None:
    driver = _Blind("android")
    with InspectorServer(InspectorSession(driver)) as server:
        status, _, raw = _request(server, "GET", "/api/screen")
        screen = json.loads(raw)
        assert status == 200 and screen["picture"] == {
            "url": None,
            "error": "the screen is protected (FLAG_SECURE)",
        }
        assert screen["elements"]
        status, _, raw = _request(server, "GET", f"/api/screen.png?v={screen['version']}")
        assert status == 404 and "has no picture" in _error(raw)["message"]


def test_a_step_that_fails_is_not_recorded_and_the_page_gets_the_screen_after_it(tmp_path: Any) -> None:
    from amc.inspector import FlowDraft

    driver = SimDriver("ios")
    driver.launch_app("com.apple.Preferences")
    draft = FlowDraft("com.apple.Preferences", platform="ios", name="x", path=tmp_path / "x.yaml")
    with InspectorServer(InspectorSession(driver, draft=draft)) as server:
        screen = json.loads(_request(server, "GET", "/api/screen")[2])
        height = screen["window"][1]
        hidden = next(
            e for e in screen["elements"] if e["type"].endswith("Cell") and e["bounds"][1] >= height
        )
        status, data = _post(server, "/api/tap", {"v": screen["version"], "ref": hidden["ref"]})
        assert (status, data["error"]["kind"]) == (404, "TargetNotFound") and "off screen" in data["error"][
            "message"
        ]
        after = json.loads(_request(server, "GET", "/api/screen")[2])
        assert after["version"] == screen["version"] + 1  # the look the failed step made
        general = next(e for e in after["elements"] if e["text"] == "General" and e["visible"])
        status, data = _post(server, "/api/tap", {"v": after["version"], "ref": general["ref"]})
        assert status == 200 and any(e["text"] == "About" for e in data["elements"])
    assert [list(step) for step in draft.steps] == [["launch_app"], ["tap"]]  # the failed tap is not in it


def test_the_page_records_checks_of_what_the_screen_shows_in_either_format(tmp_path: Path) -> None:
    for format in ("amc", "maestro"):
        driver = SimDriver("android")
        driver.launch_app("com.example.amc.demo")
        path = tmp_path / f"{format}.yaml"
        draft = FlowDraft("com.example.amc.demo", platform="android", name="checks", path=path, format=format)
        server = InspectorServer(InspectorSession(driver, draft=draft))
        server.start()
        try:
            screen = json.loads(_request(server, "GET", "/api/screen")[2])
            (button,) = [e for e in screen["elements"] if (e["id"] or "").endswith(":id/sign_in")]
            (heading,) = [e for e in screen["elements"] if e["text"] == "Sign in to continue"]
            version = screen["version"]
            for kind, ref in (("shown", button["ref"]), ("text", heading["ref"]), ("app", None)):
                status, after = _post(server, "/api/check", {"v": version, "kind": kind, "ref": ref})
                assert status == 200, after
                version = after["version"]
            status, data = _post(server, "/api/check", {"v": version, "kind": "colour", "ref": 1})
            assert status == 400 and "kind must be one of shown, text, app" in data["error"]["message"]
        finally:
            server.stop()
        text = path.read_text()
        if format == "amc":
            assert text.endswith(
                "  - assert_visible: {text: Sign in}\n  - wait_for: {text: Sign in to continue}\n"
                "  - assert_app: com.example.amc.demo\n"
            )
            assert amc("run", path, "--device", "sim:android", "--out", tmp_path / "runs").code == 0
        else:
            assert "- assertVisible: {text: Sign in}\n" in text
            assert "- extendedWaitUntil: {visible: {text: Sign in to continue}, timeout: 10000}\n" in text
