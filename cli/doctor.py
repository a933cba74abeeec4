"""``amc doctor``: is this machine ready to drive a phone? Each failure comes with its fix.

Checks: adb installed, the adb server answering (its own wire protocol, ``host:version``), the
devices it lists authorized (``host:devices``), WebDriverAgent at ``$WDA_URL`` and Appium at
``$APPIUM_URL`` answering ``GET /status``. Every network call has a short timeout and every check
runs under an overall deadline, so the command never hangs, whatever answers (or doesn't).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..core.errors import ReplyTooLarge
from ..drivers.adb_states import state_fix
from ..drivers.bounded import BoundedSocket
from .common import EXIT_DEVICE, EXIT_OK, Streams

__all__ = ["CHECKS", "PLATFORM_CHECKS", "Check", "run_checks", "run_doctor", "setup_doctor"]

NET_TIMEOUT = 2.0
CHECK_DEADLINE = 5.0
_MAX_REPLY = 1 << 20


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``status`` is ``ok``, ``warn``, ``fail`` or ``skip``."""

    name: str
    status: str
    detail: str
    fix: str | None = None


# --- adb --------------------------------------------------------------------------------------


def _adb_address(env: Mapping[str, str]) -> tuple[str, int]:
    host = env.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    raw = env.get("ANDROID_ADB_SERVER_PORT") or "5037"
    try:
        return host, int(raw)
    except ValueError:
        return host, -1


def _read_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the adb server closed the connection")
        data += chunk
    return data


def _adb_request(env: Mapping[str, str], command: str) -> str:
    """One host request to the adb server: ``OKAY`` + length-prefixed reply, or an error."""
    host, port = _adb_address(env)
    if not 0 < port < 65536:
        raise ValueError(f"ANDROID_ADB_SERVER_PORT={env.get('ANDROID_ADB_SERVER_PORT')!r} is not a port")
    with socket.create_connection((host, port), timeout=NET_TIMEOUT) as sock:
        sock.settimeout(NET_TIMEOUT)
        sock.sendall(f"{len(command):04x}{command}".encode("ascii"))
        status = _read_exact(sock, 4)
        size = int(_read_exact(sock, 4), 16)
        if size > _MAX_REPLY:
            raise ConnectionError(f"the adb server sent a {size}-byte reply")
        reply = _read_exact(sock, size).decode("utf-8", "replace")
    if status != b"OKAY":
        raise ConnectionError(f"the adb server refused {command}: {reply}")
    return reply


def check_adb_binary(env: Mapping[str, str]) -> Check:
    path = shutil.which("adb", path=env.get("PATH"))
    if path:
        return Check("adb installed", "ok", path)
    return Check(
        "adb installed",
        "fail",
        "no adb on PATH",
        "install Android platform-tools: `apt-get install adb` (Debian/Ubuntu), "
        "`brew install android-platform-tools` (macOS), or the Android SDK",
    )


def check_adb_server(env: Mapping[str, str]) -> Check:
    host, port = _adb_address(env)
    try:
        version = _adb_request(env, "host:version")
    except (OSError, ValueError) as exc:
        return Check(
            "adb server",
            "fail",
            f"nothing usable answers at {host}:{port} ({exc})",
            "start it with `adb start-server`, or set ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT "
            "to where it runs",
        )
    try:
        about = f"protocol version {int(version, 16)}"
    except ValueError:
        about = "answers"
    return Check("adb server", "ok", f"{host}:{port}, {about}")


def check_adb_devices(env: Mapping[str, str]) -> Check:
    try:
        listing = _adb_request(env, "host:devices")
    except (OSError, ValueError):
        return Check("android devices", "skip", "the adb server does not answer (see above)")
    devices = [line.split("\t", 1) for line in listing.splitlines() if "\t" in line]
    if not devices:
        return Check(
            "android devices",
            "warn",
            "adb lists no device",
            "connect a phone with USB debugging on, or start an emulator",
        )
    bad = [(serial, state) for serial, state in devices if state != "device"]
    if not bad:
        return Check("android devices", "ok", ", ".join(f"{s} authorized" for s, _ in devices))
    fixes = sorted({state_fix(state, serial) for serial, state in bad})
    return Check(
        "android devices",
        "fail",
        ", ".join(f"{serial} is {state}" for serial, state in bad),
        "; ".join(fixes),
    )


# --- HTTP servers -------------------------------------------------------------------------------


class _Answered(Exception):
    """The server answered with an HTTP error status."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _get_status(url: str) -> Any:
    """``GET URL/status`` straight to the server (never through a proxy), its reply whole within
    :data:`NET_TIMEOUT` and at most 1 MiB (the socket is a :class:`~amc.drivers.bounded.BoundedSocket`)."""
    parts = urllib.parse.urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = kind(parts.hostname or "", parts.port, timeout=NET_TIMEOUT)
    try:
        conn.connect()
        conn.sock = BoundedSocket(conn.sock, what=f"the server at {url}", max_bytes=_MAX_REPLY)
        conn.request("GET", parts.path.rstrip("/") + "/status", headers={"Accept": "application/json"})
        reply = conn.getresponse()
        body = reply.read()
    finally:
        conn.close()
    if reply.status >= 400:
        raise _Answered(reply.status)
    return json.loads(body)


def _http_check(
    name: str, env: Mapping[str, str], variable: str, example: str, fix: str, about: Callable[[Any], str]
) -> Check:
    url = (env.get(variable) or "").strip()
    if not url:
        return Check(name, "skip", f"{variable} is not set", f"set {variable}={example} to check it")
    if not url.startswith(("http://", "https://")):
        return Check(name, "fail", f"{variable}={url!r} is not an http:// URL", f"set {variable}={example}")
    try:
        value = _get_status(url)
    except _Answered as exc:
        return Check(name, "fail", f"{url}/status answered HTTP {exc.code}", fix)
    except ReplyTooLarge as exc:
        return Check(name, "fail", exc.message, fix)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        return Check(name, "fail", f"nothing usable answers at {url} ({reason})", fix)
    return Check(name, "ok", f"{url} answers{about(value)}")


def _wda_about(body: Any) -> str:
    value = body.get("value") if isinstance(body, dict) else None
    os_info = value.get("os") if isinstance(value, dict) else None
    if isinstance(os_info, dict) and os_info.get("version"):
        return f" (iOS {os_info['version']})"
    return ""


def _appium_about(body: Any) -> str:
    value = body.get("value") if isinstance(body, dict) else None
    build = value.get("build") if isinstance(value, dict) else None
    if isinstance(build, dict) and build.get("version"):
        return f" (Appium {build['version']})"
    return ""


def check_wda(env: Mapping[str, str]) -> Check:
    return _http_check(
        "WebDriverAgent",
        env,
        "WDA_URL",
        "http://127.0.0.1:8100",
        "start WebDriverAgent on the iPhone (xcodebuild -project WebDriverAgent.xcodeproj -scheme "
        "WebDriverAgentRunner test) and forward its port (`iproxy 8100 8100`), or fix WDA_URL",
        _wda_about,
    )


def check_appium(env: Mapping[str, str]) -> Check:
    return _http_check(
        "Appium",
        env,
        "APPIUM_URL",
        "http://127.0.0.1:4723",
        "start the server with `appium` (npm install -g appium, then `appium driver install uiautomator2` "
        "or `xcuitest`), or fix APPIUM_URL",
        _appium_about,
    )


CHECKS: tuple[tuple[str, Callable[[Mapping[str, str]], Check]], ...] = (
    ("adb installed", check_adb_binary),
    ("adb server", check_adb_server),
    ("android devices", check_adb_devices),
    ("WebDriverAgent", check_wda),
    ("Appium", check_appium),
)
# What each platform needs (`amc doctor --platform …`): Android adb and its devices, iOS
# WebDriverAgent; Appium serves both.
PLATFORM_CHECKS: Mapping[str, frozenset[str]] = {
    "android": frozenset({"adb installed", "adb server", "android devices", "Appium"}),
    "ios": frozenset({"WebDriverAgent", "Appium"}),
}


def run_checks(
    env: Mapping[str, str] | None = None, *, deadline: float = CHECK_DEADLINE, platform: str | None = None
) -> list[Check]:
    """Every check (only ``platform``'s, when given), each in its own thread, none allowed longer
    than ``deadline`` seconds."""
    environ = dict(os.environ if env is None else env)
    chosen = [(n, c) for n, c in CHECKS if platform is None or n in PLATFORM_CHECKS[platform]]
    results: dict[str, Check] = {}

    def run(name: str, check: Callable[[Mapping[str, str]], Check]) -> None:
        try:
            results[name] = check(environ)
        except Exception as exc:  # noqa: BLE001 - a check must report, never crash the doctor
            results[name] = Check(name, "fail", f"the check itself failed: {type(exc).__name__}: {exc}")

    threads = [
        threading.Thread(target=run, args=(name, check), daemon=True, name=f"amc-doctor-{name}")
        for name, check in chosen
    ]
    for thread in threads:
        thread.start()
    end = time.monotonic() + deadline
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    return [
        results.get(name) or Check(name, "fail", f"no answer within {deadline:g} s", "see the other checks")
        for name, _check in chosen
    ]


def setup_doctor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    parser.add_argument(
        "--platform",
        choices=tuple(PLATFORM_CHECKS),
        help="check only what that platform needs (android: adb, its devices, Appium; ios: "
        "WebDriverAgent, Appium)",
    )


def run_doctor(args: argparse.Namespace, io: Streams) -> int:
    checks = run_checks(platform=args.platform)
    if args.json:
        io.out.write(json.dumps([asdict(c) for c in checks], indent=2) + "\n")
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            label = "FAIL" if c.status == "fail" else c.status
            io.out.write(f"{label:<5} {c.name:<{width}}  {c.detail}\n")
            if c.fix and c.status != "ok":
                io.out.write(f"{'':<5} {'':<{width}}  fix: {c.fix}\n")
    failed = sum(c.status == "fail" for c in checks)
    if not args.json:
        io.out.write(f"\n{failed} check(s) failed\n" if failed else "\nall checks passed or were skipped\n")
    return EXIT_DEVICE if failed else EXIT_OK
