"""Packages installed over adb on a simulated phone: ``adb install`` (streamed), ``pm``/``cmd
package`` ``uninstall`` and ``list instrumentation``, and ``am instrument -w``, which runs an
installed instrumentation (the Appium UiAutomator2 server) for as long as its stream is open.

- ``adb install`` on a phone whose features include ``abb_exec`` opens the service
  ``abb_exec:package<NUL>install<NUL>…<NUL>-S<NUL>SIZE`` (``cmd`` only: ``exec:cmd package install
  … -S SIZE``), writes the APK's SIZE bytes and reads one status line (adb's
  ``install_app_streamed``, ``client/adb_install.cpp``). The package manager reads the APK's
  manifest (:mod:`sim.apk_manifest`) and answers ``Success`` or ``Failure [CODE: message]``, as
  ``PackageManagerShellCommand`` prints them (frameworks/base, ``services/core/java/com/android/
  server/pm/PackageManagerShellCommand.java``: ``pw.println("Success")``, ``"Failure [" + … + "]"``).
  An APK over :data:`MAX_APK` bytes, or a stream that ends or stalls before its SIZE bytes have
  come (:data:`READ_TIMEOUT` in all), is refused the same way.
- ``pm uninstall PKG`` prints ``Success``, or ``Failure [DELETE_FAILED_INTERNAL_ERROR]`` for a package
  that is not installed (what ``pm`` prints for the -1 that ``deletePackage`` returns then).
- ``pm list instrumentation`` prints ``instrumentation:PKG/CLASS (target=TARGET)`` per line
  (``PackageManagerShellCommand.runListInstrumentation``).
- ``am instrument -w [-e K V]… PKG/CLASS`` of an installed instrumentation starts what it runs; the
  stream stays open, printing nothing, until the client closes it, the instrumentation stops
  (Appium's server stops after ``DELETE /session``) or the phone's package is force-stopped; then it
  prints ``INSTRUMENTATION_RESULT: …``/``INSTRUMENTATION_CODE: …`` as ``am instrument`` does
  (``frameworks/base/cmds/am/src/com/android/commands/am/Instrument.java``, ``TextStatusReporter``).
  An instrumentation not installed answers ``INSTRUMENTATION_FAILED: PKG/CLASS`` (and
  ``android.util.AndroidException: INSTRUMENTATION_FAILED`` on stderr), exit 1.
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Protocol

from .apk_manifest import ApkError, ApkInfo, read_apk

__all__ = [
    "MAX_APK",
    "InstalledApks",
    "Instrumentation",
    "install_service",
    "install_size",
    "list_instrumentation",
    "serve_install",
    "services_dump",
    "start_activity",
    "uninstall",
]

READ_TIMEOUT = 30.0
MAX_APK = 64 * 1024 * 1024  # a server APK is 18 MB (appium-uiautomator2-server 10.6.6)
# Helper apps whose launcher activity starts a foreground service and finishes: Appium's Settings
# app (its client, io.appium.settings' requireRunning, starts `.Settings` and waits for
# `isForeground=true` in `dumpsys activity services io.appium.settings`; the service's name is the
# one a phone's dump shows, quoted in that client's unit test; the app's own source was not read).
SERVICE_ON_START = {"io.appium.settings": ".ForegroundService"}


class Instrumentation(Protocol):
    """What ``am instrument`` runs for one installed instrumentation package."""

    def start(self, target: ApkInfo | None) -> None:
        """Start it for its target package's APK (None when the target is not installed)."""

    def stop(self) -> None:
        """Stop it (its process ends)."""

    def running(self) -> bool:
        """Whether it still runs."""

    def pid(self) -> int | None:
        """Its target's process id while it runs."""


@dataclass
class InstalledApks:
    """The packages ``adb install`` put on one phone (beside the simulated apps)."""

    by_package: dict[str, ApkInfo] = field(default_factory=dict)
    # What each instrumentation package runs when ``am instrument`` starts it, by that package.
    runners: dict[str, Instrumentation] = field(default_factory=dict)
    services: dict[str, str] = field(default_factory=dict)  # package -> its running foreground service
    history: list[str] = field(default_factory=list)  # the package of each install, in turn
    lock: threading.Lock = field(default_factory=threading.Lock)

    def install(self, info: ApkInfo) -> None:
        with self.lock:
            self.by_package[info.package] = info
            self.history.append(info.package)

    def remove(self, package: str) -> bool:
        with self.lock:
            return self.by_package.pop(package, None) is not None

    def get(self, package: str) -> ApkInfo | None:
        with self.lock:
            return self.by_package.get(package)

    def packages(self) -> tuple[str, ...]:
        with self.lock:
            return tuple(self.by_package)

    def instrumentations(self) -> list[tuple[str, str, str]]:
        """(package, class, target) of every instrumentation an installed package declares."""
        with self.lock:
            return [(p, c, t) for p, info in self.by_package.items() for c, t in info.instrumentations]

    def force_stop(self, package: str) -> None:
        """``am force-stop PACKAGE``: its service and an instrumentation of (or targeting) it stop."""
        with self.lock:
            self.services.pop(package, None)
        for owner, _, target in self.instrumentations():
            runner = self.runners.get(owner)
            if runner is not None and package in (owner, target):
                runner.stop()

    def processes(self) -> list[tuple[str, int]]:
        """(package, pid) of each target package an instrumentation runs in now."""
        rows = []
        for owner, _, target in self.instrumentations():
            runner = self.runners.get(owner)
            pid = runner.pid() if runner is not None else None
            if pid is not None:
                rows.append((target, pid))
        return rows


def start_activity(apks: InstalledApks, component: str) -> bool:
    """``am start -n PKG/ACTIVITY`` of an installed APK that starts a foreground service from its
    activity and finishes it (:data:`SERVICE_ON_START`); False for any other component."""
    package = component.partition("/")[0]
    service = SERVICE_ON_START.get(package)
    if service is None or apks.get(package) is None:
        return False
    with apks.lock:
        apks.services[package] = service
    return True


def services_dump(apks: InstalledApks, package: str | None) -> str:
    """``dumpsys activity services [PACKAGE]``: each running foreground service's record, or
    ``(nothing)``. The record's lines are those of a phone's dump that io.appium.settings' unit
    test quotes (``ServiceRecord{… u0 io.appium.settings/.ForegroundService}``, ``intent={act=start
    cmp=…}``, ``packageName``, ``processName``, ``isForeground=true foregroundId=1 …``); the rest of
    a record (binder, times, connections) is not printed."""
    with apks.lock:
        running = [(p, s) for p, s in apks.services.items() if package in (None, p)]
    lines = ["ACTIVITY MANAGER SERVICES (dumpsys activity services)"]
    lines.append("  User 0 active services:" if running else "  (nothing)")
    for owner, service in running:
        lines += [
            f"  * ServiceRecord{{{zlib.crc32(owner.encode()):07x} u0 {owner}/{service}}}",
            f"    intent={{act=start cmp={owner}/{service}}}",
            f"    packageName={owner}",
            f"    processName={owner}",
            "    permission=android.permission.FOREGROUND_SERVICE",
            "    isForeground=true foregroundId=1 foregroundNoti=Notification(channel=main_channel)",
        ]
    return "\n".join(lines) + "\n"


def install_size(args: list[str]) -> int | None:
    """The APK's size from ``install … -S SIZE`` arguments, or None without one."""
    for k, arg in enumerate(args[:-1]):
        if arg == "-S" and args[k + 1].isdigit():
            return int(args[k + 1])
    return None


def install_service(sock: socket.socket, apks: InstalledApks, request: str) -> None:
    """The device service of a streamed ``adb install``: ``abb_exec:`` with NUL-separated
    arguments, or ``exec:cmd package install …``; any other ``abb_exec:`` command is closed."""
    args = request.split("\0") if request.startswith("abb_exec:") else request.split()
    if args[:2] not in (["abb_exec:package", "install"], ["exec:cmd", "package"]):
        sock.sendall(b"FAIL0006closed")
        return
    sock.sendall(b"OKAY")
    serve_install(sock, apks, install_size(args))


def serve_install(sock: socket.socket, apks: InstalledApks, size: int | None) -> None:
    """Read the streamed APK (``size`` bytes) after the service's ``OKAY`` and answer its status."""
    if size is None:
        sock.sendall(b"Error: APK content must be streamed (-S SIZE)\n")  # no file path is simulated
        return
    if size > MAX_APK:
        sock.sendall(b"Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE: APK of %d bytes]\n" % size)
        return
    data = _read_within(sock, size, READ_TIMEOUT)
    if data is None:
        sock.sendall(b"Failure [INSTALL_FAILED_INVALID_APK: the stream ended before the APK did]\n")
        return
    try:
        info = read_apk(data)
    except ApkError as exc:
        sock.sendall(f"Failure [INSTALL_PARSE_FAILED_NOT_APK: {exc}]\n".encode())
        return
    apks.install(info)
    sock.sendall(b"Success\n")


def _read_within(sock: socket.socket, size: int, seconds: float) -> bytes | None:
    """``size`` bytes from ``sock`` within ``seconds`` in all; None if it ends or stalls first."""
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    left = size
    while left > 0:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(min(left, 1 << 20))
        except TimeoutError:
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def uninstall(apks: InstalledApks, package: str) -> tuple[str, int]:
    """``pm uninstall PACKAGE``: (output, exit code)."""
    if apks.remove(package):
        return "Success\n", 0
    return "Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1


def list_instrumentation(apks: InstalledApks) -> str:
    return "".join(f"instrumentation:{p}/{c} (target={t})\n" for p, c, t in apks.instrumentations())


def _instrument_target(argv: list[str]) -> str:
    """The ``PKG/CLASS`` of ``am instrument [options] PKG/CLASS`` (the last word)."""
    return argv[-1] if len(argv) > 2 else ""


def run_instrument(
    sock: socket.socket, apks: InstalledApks, argv: list[str], stopped: threading.Event
) -> bytes:
    """``am instrument -w … PKG/CLASS`` on an open stream (its ``OKAY`` sent): what it prints last."""
    component = _instrument_target(argv)
    package, _, name = component.partition("/")
    found = [(p, c, t) for p, c, t in apks.instrumentations() if p == package and c == name]
    runner = apks.runners.get(package)
    if not found or runner is None:
        return (
            f"INSTRUMENTATION_FAILED: {component}\n"
            "android.util.AndroidException: INSTRUMENTATION_FAILED: " + component + "\n"
        ).encode()
    runner.start(apks.get(found[0][2]))
    try:
        sock.settimeout(0.2)
        while not stopped.is_set() and runner.running():
            try:
                if not sock.recv(1024):
                    return b""  # the client closed the stream: the process goes with it
            except TimeoutError:
                continue
    except OSError:
        return b""
    finally:
        runner.stop()
    return b"INSTRUMENTATION_RESULT: stream=\n\nOK (1 test)\n\nINSTRUMENTATION_CODE: -1\n"
