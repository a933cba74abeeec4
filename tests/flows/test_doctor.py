"""`amc doctor`: each check against loopback servers (or none), each failure with its fix, never hanging."""

from __future__ import annotations

import json
import socket
import socketserver
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from amc.cli import doctor

from .helpers import amc


class _AdbHandler(socketserver.BaseRequestHandler):
    """Speaks the adb server's host protocol: 4 hex digits of length, the request, OKAY + reply."""

    devices = "emulator-5554\tdevice\nR58M\tunauthorized\n"

    def handle(self) -> None:
        size = int(self.request.recv(4), 16)
        command = self.request.recv(size).decode()
        reply = {"host:version": "0029", "host:devices": self.devices}.get(command)
        if reply is None:
            self.request.sendall(b"FAIL0007unknown")
            return
        self.request.sendall(b"OKAY" + f"{len(reply):04x}".encode() + reply.encode())


class _StatusHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = {"value": {"ready": True, "build": {"version": "3.0.1"}, "os": {"version": "17.5"}}}
        data = json.dumps(body).encode() if self.path == "/status" else b"{}"
        self.send_response(200 if self.path == "/status" else 404)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def adb_server() -> Iterator[int]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _AdbHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StatusHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(monkeypatch: pytest.MonkeyPatch, path: Path, **values: str) -> None:
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    for name in ("WDA_URL", "APPIUM_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def test_nothing_installed_or_running_fails_with_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _closed_port()
    _env(monkeypatch, tmp_path, ANDROID_ADB_SERVER_PORT=str(port))
    result = amc("doctor")
    assert result.code == 3
    lines = result.out.splitlines()
    assert lines[0] == "FAIL  adb installed    no adb on PATH"
    assert lines[1].startswith(
        "                       fix: install Android platform-tools: `apt-get install adb`"
    )
    assert lines[2].startswith(f"FAIL  adb server       nothing usable answers at 127.0.0.1:{port}")
    assert "fix: start it with `adb start-server`" in lines[3]
    assert lines[4] == "skip  android devices  the adb server does not answer (see above)"
    assert lines[5] == "skip  WebDriverAgent   WDA_URL is not set"
    assert "fix: set WDA_URL=http://127.0.0.1:8100 to check it" in lines[6]
    assert lines[7] == "skip  Appium           APPIUM_URL is not set"
    assert lines[-1] == "2 check(s) failed"


def test_everything_answering_passes_except_an_unauthorized_phone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: int, http_server: str
) -> None:
    adb = tmp_path / "adb"
    adb.write_text("#!/bin/sh\nexit 0\n")
    adb.chmod(adb.stat().st_mode | stat.S_IXUSR)
    _env(
        monkeypatch,
        tmp_path,
        ANDROID_ADB_SERVER_PORT=str(adb_server),
        WDA_URL=http_server,
        APPIUM_URL=http_server + "/",
    )
    result = amc("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(result.out)}
    assert checks["adb installed"] == {
        "name": "adb installed",
        "status": "ok",
        "detail": str(adb),
        "fix": None,
    }
    assert checks["adb server"]["detail"] == f"127.0.0.1:{adb_server}, protocol version 41"
    devices = checks["android devices"]
    assert devices["status"] == "fail" and devices["detail"] == "R58M is unauthorized"
    assert "accept the 'Allow USB debugging?' prompt" in devices["fix"]
    assert checks["WebDriverAgent"]["status"] == "ok" and checks["WebDriverAgent"]["detail"].endswith(
        "(iOS 17.5)"
    )
    assert checks["Appium"]["detail"] == f"{http_server}/ answers (Appium 3.0.1)"
    assert result.code == 3
    _AdbHandler.devices = "emulator-5554\tdevice\n"
    try:
        assert amc("doctor").code == 0
    finally:
        _AdbHandler.devices = "emulator-5554\tdevice\nR58M\tunauthorized\n"


def test_a_server_that_never_answers_cannot_hang_the_doctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepts connections into the backlog, never reads or answers
    monkeypatch.setattr(doctor, "NET_TIMEOUT", 0.3)
    url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    try:
        _env(
            monkeypatch,
            tmp_path,
            ANDROID_ADB_SERVER_PORT=str(silent.getsockname()[1]),
            WDA_URL=url,
            APPIUM_URL="ftp://x",
        )
        checks = {c.name: c for c in doctor.run_checks()}
    finally:
        silent.close()
    assert checks["adb server"].status == "fail" and "timed out" in checks["adb server"].detail
    assert checks["WebDriverAgent"].status == "fail" and "within 0.3 s" in checks["WebDriverAgent"].detail
    assert checks["Appium"].detail == "APPIUM_URL='ftp://x' is not an http:// URL"


def test_a_check_that_outlives_its_deadline_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def stuck(env: object) -> doctor.Check:
        release.wait(10)
        return doctor.Check("Appium", "ok", "too late")

    monkeypatch.setattr(doctor, "CHECKS", (*doctor.CHECKS[:-1], ("Appium", stuck)))
    try:
        checks = doctor.run_checks({"PATH": "", "ANDROID_ADB_SERVER_PORT": str(_closed_port())}, deadline=0.2)
    finally:
        release.set()
    assert checks[-1] == doctor.Check("Appium", "fail", "no answer within 0.2 s", "see the other checks")
