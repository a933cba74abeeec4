"""The real Appium UiAutomator2 stack against the simulated phone, on 127.0.0.1 only.

A real Appium 3 server with its real UiAutomator2 driver (``appium-uiautomator2-driver`` from
npm, in ``.ci/package.json``) drives Debian's ``adb`` command-line client (``apt-get install adb``:
``Android Debug Bridge version 1.0.41``, ``29.0.6-debian``), which talks to the simulated phone's
adb face (:class:`amc.sim.adb_face.AdbFace`). The driver installs its server APKs over that face,
starts them with ``am instrument -w`` and forwards ``tcp:SYSTEM_PORT`` to the phone's port 6790,
where the simulated UiAutomator2 server (:mod:`amc.sim.appium_u2_server`) answers.

No real adb server may start. Debian's client starts one (``adb -L tcp:PORT fork-server server``)
whenever nothing answers at the port it is told, so:

- the adb face listens before any session starts, and every session names it in
  ``appium:adbPort`` (appium-adb passes ``-P PORT`` to every ``adb`` it runs; ``-P`` overrides
  ``ANDROID_ADB_SERVER_PORT`` and ``ADB_SERVER_SOCKET`` in adb's ``commandline.cpp``);
- the Appium process's own environment points ``ANDROID_ADB_SERVER_PORT`` at a *sentinel*: an
  adb face with no phones, so a stray ``adb`` run without ``-P`` would reach it rather than start
  a server; :meth:`U2Stack.check_no_stray_adb` fails when the sentinel was reached or when an adb
  server process was started with this stack's SDK folder in its environment;
- ``ANDROID_HOME`` is a temporary SDK folder of one file, ``platform-tools/adb`` linked to Debian's
  ``/usr/bin/adb``. The driver wants no ``build-tools``: without ``aapt2`` it cannot read an APK's
  version (``getApkInfo`` logs a warning and returns nothing), so it installs the server when the
  phone has none and otherwise finds the installed one's state ``unknown`` and keeps it.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from amc.sim.adb_face import AdbFace

from tests.appium_server.servers import (
    HOST,
    NodeTools,
    ServerProcess,
    find_node_tools,
    free_port,
    get_json,
    wait_until,
)

__all__ = [
    "ADB",
    "LEFT_UNKNOWN",
    "U2Stack",
    "U2Tools",
    "find_u2_tools",
    "shared_stack",
    "stop_shared_stack",
    "stray_adb_servers",
]

ADB = "/usr/bin/adb"
APPIUM_START_TIMEOUT = 60.0
SESSION_END_TIMEOUT = 60.0
LEFT_UNKNOWN = "?"  # release(): whether a session is open on the face is not known (a failed start)
DRIVER = "appium-uiautomator2-driver"
INSTALL_HINT = (
    "install Debian's adb (`apt-get install -y adb`) and the Node tools of .ci/package.json "
    "(appium-uiautomator2-driver with them: `cp .ci/package.json .ci/cache/node/ && "
    "(cd .ci/cache/node && npm install)`), or run .ci/run"
)


@dataclass(frozen=True)
class U2Tools:
    """The Node tools with the UiAutomator2 driver installed, and Debian's adb client."""

    node: NodeTools
    driver_dir: Path
    adb: str


def find_u2_tools() -> U2Tools | str:
    """The tools, or the reason they cannot be used (naming how to install them)."""
    found = find_node_tools()
    if isinstance(found, str):
        return found
    driver_dir = found.root / "node_modules" / DRIVER
    if not (driver_dir / "package.json").is_file():
        return f"no {DRIVER} under {found.root / 'node_modules'}; {INSTALL_HINT}"
    if not os.access(ADB, os.X_OK):
        return f"no adb client at {ADB}; {INSTALL_HINT}"
    return U2Tools(found, driver_dir, ADB)


def stray_adb_servers(marker: str) -> list[int]:
    """Pids of adb server processes whose environment holds ``marker`` (this stack's SDK path)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if not argv or not argv[0].endswith(b"adb") or b"server" not in argv:
                continue
            if marker.encode() in (entry / "environ").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


class U2Stack:
    """One Appium 3 server with only the UiAutomator2 driver, its SDK folder and the sentinel.

    Nothing starts until :meth:`start`; :meth:`stop` stops the server, then the sentinel."""

    def __init__(self, tools: U2Tools, log_dir: Path) -> None:
        self.tools = tools
        self.log_dir = log_dir
        self.sdk = Path(tempfile.mkdtemp(prefix="amc-android-sdk-"))
        self.sentinel = AdbFace()
        self.process: ServerProcess | None = None
        self.port = 0
        self.lingering: list[AdbFace] = []  # faces a session may still reach: stopped after Appium

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> U2Stack:
        (self.sdk / "platform-tools").mkdir(exist_ok=True)
        link = self.sdk / "platform-tools" / "adb"
        if not link.exists():
            link.symlink_to(self.tools.adb)
        self.sentinel.start()
        self.port = free_port()
        node = self.tools.node
        argv = [node.node, str(node.appium_js), "server", "--address", HOST, "--port", str(self.port)]
        argv += ["--use-drivers", "uiautomator2", "--log-level", "debug", "--log-no-colors"]
        env = {
            **os.environ,
            "APPIUM_HOME": str(node.root),
            "ANDROID_HOME": str(self.sdk),
            "ANDROID_SDK_ROOT": str(self.sdk),
            "ANDROID_ADB_SERVER_PORT": str(self.sentinel.port),
            "ADB_SERVER_SOCKET": f"tcp:{HOST}:{self.sentinel.port}",
        }
        self.process = ServerProcess("appium-uiautomator2", argv, self.log_dir / "appium-u2.log", env).start()
        process = self.process
        wait_until(
            f"Appium (UiAutomator2) on port {self.port}",
            lambda: get_json(self.port, "/status")["value"]["ready"] is True,
            timeout=APPIUM_START_TIMEOUT,
            processes=[process],
        )
        return self

    def spec(self, face: AdbFace, serial: str) -> str:
        """The device spec a user writes for this server and an adb server at ``face``'s port (a
        free ``systemPort`` each, as parallel sessions on one machine need)."""
        return (
            f"appium:{self.url}?platform=android&udid={serial}&adbPort={face.port}&systemPort={free_port()}"
        )

    def release(self, face: AdbFace, sessions: Sequence[str | None] | str) -> None:
        """Stop ``face`` once Appium holds no session on it: ``sessions`` are the ids opened on it
        (or :data:`LEFT_UNKNOWN`). A session the client's close left (a failed DELETE) is ended
        here; if Appium does not answer, or what was opened is not known, the face stays up until
        Appium has stopped: a session ended later (``newCommandTimeout``, Appium's shutdown) runs
        adb against the face's port, and with nothing listening there adb would start a server."""
        if sessions == LEFT_UNKNOWN or not all(self._ended(sid) for sid in sessions if sid is not None):
            self.lingering.append(face)
            return
        face.stop()

    def _ended(self, session_id: str) -> bool:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=SESSION_END_TIMEOUT)
        try:
            conn.request("DELETE", f"/session/{session_id}")
            return conn.getresponse().status in (200, 404)  # ended now, or already
        except (OSError, http.client.HTTPException):
            return False
        finally:
            conn.close()

    def log_tail(self, size: int = 4000) -> str:
        return self.process.log_tail(size) if self.process is not None else ""

    def check_no_stray_adb(self) -> None:
        """Fail (after ending them) if an adb server started from this stack or the sentinel was
        reached: every adb run must have gone to a phone's adb face."""
        strays = stray_adb_servers(str(self.sdk))
        for pid in strays:  # started by this stack's Appium: ours to end
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        reached = self.sentinel.connections
        if strays or reached:
            raise AssertionError(
                f"an adb run bypassed the adb face: adb servers started {strays}, "
                f"sentinel reached {reached} times"
            )

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
        while self.lingering:
            self.lingering.pop().stop()
        try:
            self.check_no_stray_adb()
        finally:
            self.sentinel.stop()
            shutil.rmtree(self.sdk, ignore_errors=True)


_shared: list[U2Stack] = []


def shared_stack() -> U2Stack:
    """This test process's Appium server with the UiAutomator2 driver (started on first use).

    Skips (with how to install them) where the tools are missing; under
    ``AMC_REQUIRE_NODE_TOOLS=1`` (CI) fails instead."""
    if not _shared:
        found = find_u2_tools()
        if isinstance(found, str):
            if os.environ.get("AMC_REQUIRE_NODE_TOOLS") == "1":
                pytest.fail(f"AMC_REQUIRE_NODE_TOOLS=1 but {found}")
            pytest.skip(found)
        _shared.append(U2Stack(found, Path(tempfile.mkdtemp(prefix="amc-appium-u2-"))).start())
    return _shared[0]


def stop_shared_stack() -> None:
    """Stop it (if started), failing if an adb run bypassed the adb faces meanwhile."""
    while _shared:
        _shared.pop().stop()
