"""adbutils, held to the harness's rules: no hidden daemon, bounded waits, an explicit address.

adbutils as shipped starts its bundled adb daemon whenever no server answers, leaves sockets at
a 600 s timeout (the uiautomator2 RPC socket inherits it, so its own 300 s default never
applies), and asks the server's version before every command. :class:`HarnessAdbClient` and
:class:`HarnessAdbDevice` keep the adbutils API (uiautomator2 takes them as they are) and change
only that:

- a refused connection raises ``AdbConnectionError`` at once; nothing is spawned;
- every socket operation waits at most the configured timeout (``timeout``), except the stream
  that keeps a launched uiautomator2 server alive, which lives as long as the server;
- every reply on an adb connection (a shell command's output, a uiautomator2 RPC's answer) is
  bounded in total time by that timeout and in size by :data:`~drivers.bounded.MAX_REPLY_BYTES`
  (the socket is a :class:`~drivers.bounded.BoundedSocket`; see :mod:`drivers.bounded`);
- the server is asked what it supports, never assumed to be today's: its version once per client
  (it decides ``host:tport`` vs ``host:transport``; a server that still refuses ``host:tport`` with
  adb's ``unknown host service`` is asked with ``host:transport`` from then on), its features
  (``host:host-features``) and the phone's (``host-serial:S:features``), each an empty set where
  the server has no such service (see ``amc.sim.versions`` for what each release answers);
- a reply that breaks adb's framing (a length that is not 4 hex digits, a version that is not a
  number) is an ``AdbError`` naming what came, not a ``ValueError`` from inside adbutils;
- Nagle's algorithm is off on adb sockets (see :class:`_NoSpawnConnection`).

:func:`adb_address` resolves the adb server address as adb itself does
(``ANDROID_ADB_SERVER_HOST`` / ``ANDROID_ADB_SERVER_PORT``, default 127.0.0.1:5037), explicit
values winning. Nothing here does I/O at construction.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Mapping
from typing import Any, cast

import adbutils
from adbutils.errors import AdbError

from ...core.errors import ConfigError
from ..base import timeout_seconds
from ..bounded import BoundedSocket

__all__ = ["DEFAULT_ADB_HOST", "DEFAULT_ADB_PORT", "HarnessAdbClient", "HarnessAdbDevice", "adb_address"]

DEFAULT_ADB_HOST = "127.0.0.1"
DEFAULT_ADB_PORT = 5037


def adb_address(
    environ: Mapping[str, str], host: str | None = None, port: int | str | None = None
) -> tuple[str, int]:
    """(host, port) of the adb server: explicit values, else the environment, else 127.0.0.1:5037."""
    chosen_host = host or environ.get("ANDROID_ADB_SERVER_HOST") or DEFAULT_ADB_HOST
    raw_port: int | str = port if port not in (None, "") else environ.get("ANDROID_ADB_SERVER_PORT") or ""
    if raw_port == "":
        return chosen_host, DEFAULT_ADB_PORT
    if isinstance(raw_port, bool):
        raise ConfigError(f"adb server port must be a number, got {raw_port!r}")
    try:
        number = int(raw_port)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"adb server port must be a number, got {raw_port!r}",
            hint="check ANDROID_ADB_SERVER_PORT or the 'adb_port' option",
        ) from exc
    if not 1 <= number <= 65535:
        raise ConfigError(f"adb server port must be 1-65535, got {number}")
    return chosen_host, number


class _NoSpawnConnection(adbutils.AdbConnection):  # type: ignore[misc]
    """An adb server connection that fails fast instead of running ``adb start-server``.

    Nagle's algorithm is off: uiautomator2 writes each HTTP request as headers, then body, and
    with Nagle on the body waits for the peer's delayed ACK (about 40 ms on Linux) every call.
    Closing skips adbutils' fixed 10 ms sleep.
    """

    def _safe_connect(self) -> socket.socket:
        sock: socket.socket = self._create_socket()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        host, port = sock.getpeername()[:2]
        what = f"the device through the adb server at {host}:{port}"
        return cast(socket.socket, BoundedSocket(sock, what=what))

    def read_string_block(self) -> str:
        """A block (4 hex digits of length, then the text); ``AdbError`` when the length is not hex."""
        length = self.read_string(4)
        if not length:
            raise AdbError("connection closed")
        try:
            size = int(length, 16)
        except ValueError:
            raise AdbError(f"the adb server sent {length!r} where a length (4 hex digits) belongs") from None
        return str(self.read_string(size))

    def close(self) -> None:
        """Close without adbutils' fixed 10 ms pause after the half-close (it costs every command)."""
        state = self.__dict__  # adbutils keeps the socket in a name-mangled private attribute
        sock: socket.socket | None = state.get("_AdbConnection__conn")
        if sock is None:
            return
        state["_AdbConnection__conn"] = None
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
        sock.close()


class HarnessAdbClient(adbutils.AdbClient):  # type: ignore[misc]
    """An ``adbutils.AdbClient`` that never starts a daemon and bounds every socket wait."""

    def __init__(self, host: str, port: int, *, timeout: float) -> None:
        self.timeout = timeout_seconds(timeout, "adb timeout")
        super().__init__(host=host, port=port, socket_timeout=self.timeout)
        self._version: int | None = None
        self._version_lock = threading.Lock()
        self._features: frozenset[str] | None = None

    def cap(self, timeout: float | None) -> float:
        """``timeout`` bounded by this client's timeout (None or 0 means the client's timeout)."""
        if not timeout:
            return self.timeout
        return min(float(timeout), self.timeout)

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        conn = _NoSpawnConnection(self.host, self.port)
        conn.conn.settimeout(self.cap(timeout))
        return conn

    def server_version(self) -> int:
        """The adb server's protocol version, asked once per client."""
        with self._version_lock:
            if self._version is None:
                with self.make_connection() as conn:
                    conn.send_command("host:version")
                    conn.check_okay()
                    text = conn.read_string_block()
                try:
                    self._version = int(text, 16)
                except ValueError:
                    raise AdbError(f"the adb server's version is {text[:40]!r}, not a number") from None
            return self._version

    def no_tport(self) -> None:
        """The server refused ``host:tport``: switch transports with ``host:transport`` from now on."""
        with self._version_lock:
            self._version = min(self._version or 40, 40)

    def host_features(self) -> frozenset[str]:
        """``host:host-features``: what this adb server supports; empty when it cannot say."""
        if self._features is None:
            self._features = ask_features(self, "host:host-features")
        return self._features

    def device(self, serial: str | None = None, transport_id: int | None = None) -> HarnessAdbDevice:
        if not serial and transport_id is None:
            raise ConfigError("an adb device needs a serial (the harness never guesses one)")
        return HarnessAdbDevice(self, serial=serial, transport_id=transport_id)


def ask_features(client: HarnessAdbClient, service: str) -> frozenset[str]:
    """The comma-separated features ``service`` answers; empty when the server refuses it (a server
    too old or of another kind says ``unknown host service``)."""
    try:
        with client.make_connection() as conn:
            conn.send_command(service)
            conn.check_okay()
            text = conn.read_string_block()
    except AdbError as exc:
        if "unknown host service" in str(exc):
            return frozenset()
        raise
    return frozenset(part.strip() for part in text.split(",") if part.strip())


class HarnessAdbDevice(adbutils.AdbDevice):  # type: ignore[misc]
    """An ``adbutils.AdbDevice`` whose shell commands wait at most the client's timeout."""

    def open_transport(self, command: str | None = None, timeout: float | None = None) -> Any:
        """adbutils' transport switch, asked again with ``host:transport`` when the server refuses
        ``host:tport`` (switching transports has no effect on the phone, so asking twice is safe)."""
        try:
            return super().open_transport(command, timeout=timeout)
        except AdbError as exc:
            client: HarnessAdbClient = self._client
            if command or "unknown host service" not in str(exc) or client.server_version() < 41:
                raise
            client.no_tport()
            return super().open_transport(command, timeout=timeout)

    def adbd_features(self) -> frozenset[str]:
        """``host-serial:S:features``: what the phone's adbd supports; empty when the server cannot say."""
        client: HarnessAdbClient = self._client
        return ask_features(client, f"host-serial:{self._serial}:features")

    def can_use(self, feature: str) -> bool:
        """Whether both the adb server and the phone support ``feature`` (adb's ``CanUseFeature``)."""
        client: HarnessAdbClient = self._client
        return feature in client.host_features() and feature in self.adbd_features()

    def shell(
        self,
        cmdargs: Any,
        stream: bool = False,
        timeout: float | None = None,
        encoding: str | None = "utf-8",
        rstrip: bool = True,
    ) -> Any:
        if stream:
            # The stream keeps a launched process (the uiautomator2 server) alive; its reader
            # waits as long as the process runs.
            conn = super().shell(cmdargs, stream=True)
            conn.conn.settimeout(None)
            conn.conn.unbounded()
            return conn
        client: HarnessAdbClient = self._client
        return super().shell(cmdargs, timeout=client.cap(timeout), encoding=encoding, rstrip=rstrip)
