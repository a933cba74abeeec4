"""``xcrun simctl`` on the Mac that runs a Simulator: what WebDriverAgent cannot do there (clear an
app's data, set its permissions, reset the keychain), as Maestro does it (LocalSimulatorUtils.kt).

:class:`Simctl` is the seam (a Protocol: ``run(args) -> stdout``, ``SimctlFailed`` on a non-zero
exit); :class:`XcrunSimctl` runs the real one, bounded in time and output, and finds the booted
Simulator's UDID with ``simctl list devices booted -j`` (its JSON: ``{"devices": {RUNTIME: [{"udid",
"name", "state": "Booted", …}]}}``, the keys Maestro's ``SimctlList`` reads). The commands, with
simctl's own usage lines (its help, as transcribed in withfig/autocomplete's ``simctl`` spec and
appium-xcuitest-driver's ``mobile: setPermission`` docs; outputs from a live Xcode 26.3 run quoted
in a public repository's notes: ``get_app_container`` prints the path, ``uninstall`` exits 0 even for
an app that is not installed, ``privacy grant notifications`` exits 1 "Operation not permitted"):

- ``simctl privacy <device> <action> <service> [<bundle identifier>]`` (grant, revoke, reset);
- ``simctl keychain <device> reset`` (the whole device's keychain; simctl has no per-app form);
- ``simctl terminate <device> <bundle>``, ``simctl get_app_container <device> <bundle> data`` (prints
  the data container's path, ``…/Devices/<udid>/data/Containers/Data/Application/<uuid>``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ...core.errors import DeviceError, DriverUnavailable

__all__ = ["Simctl", "SimctlFailed", "XcrunSimctl", "clear_container"]

TIMEOUT = 60.0
MAX_OUTPUT = 4 * 1024 * 1024


class SimctlFailed(DeviceError):
    """simctl exited non-zero; ``message`` holds what it printed on stderr."""


class Simctl(Protocol):
    """``simctl`` for one Simulator: ``udid`` and ``run`` (the arguments after ``simctl``)."""

    @property
    def udid(self) -> str: ...

    def run(self, args: Sequence[str]) -> str: ...


class XcrunSimctl:
    """The real ``xcrun simctl`` (found on ``PATH``), for the one booted Simulator or ``udid``."""

    def __init__(self, udid: str | None = None, xcrun: str | None = None) -> None:
        self._udid = udid
        self._xcrun = xcrun

    def _program(self) -> str:
        found = self._xcrun or shutil.which("xcrun")
        if found is None:
            raise DriverUnavailable(
                "xcrun is not on PATH: clearing an app, its permissions and the keychain on a Simulator "
                "need Xcode's simctl on the Mac that runs it",
                hint="run on that Mac, or name the iPhone `?kind=device` when it is a physical one",
            )
        return found

    def _exec(self, args: Sequence[str]) -> str:
        """Run ``xcrun simctl ARGS`` within :data:`TIMEOUT`, reading at most :data:`MAX_OUTPUT` of
        what it prints (its output goes to temporary files, not to memory, as it comes)."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                done = subprocess.run(
                    [self._program(), "simctl", *args], stdout=out, stderr=err, timeout=TIMEOUT, check=False
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise DeviceError(f"xcrun simctl {' '.join(args[:2])} did not finish: {exc}") from exc
            out.seek(0)
            err.seek(0)
            text = out.read(MAX_OUTPUT).decode("utf-8", "replace")
            said = err.read(4096).decode("utf-8", "replace").strip()
        if done.returncode != 0:
            raise SimctlFailed(f"xcrun simctl {' '.join(args[:3])} failed ({done.returncode}): {said[:300]}")
        return text

    @property
    def udid(self) -> str:
        if self._udid is None:
            self._udid = booted(self._exec(["list", "devices", "booted", "-j"]))
        return self._udid

    def run(self, args: Sequence[str]) -> str:
        return self._exec(args)


def booted(listing: str) -> str:
    """The UDID of the one booted Simulator in ``simctl list devices booted -j``'s JSON."""
    try:
        data = json.loads(listing)
    except ValueError as exc:
        raise DeviceError(f"simctl list gave no JSON: {listing[:120]!r}") from exc
    runtimes = data.get("devices") if isinstance(data, dict) else None
    found = [
        d.get("udid")
        for devices in (runtimes.values() if isinstance(runtimes, dict) else ())
        if isinstance(devices, list)
        for d in devices
        if isinstance(d, dict) and d.get("state") == "Booted" and isinstance(d.get("udid"), str)
    ]
    if len(found) != 1:
        raise DriverUnavailable(
            f"{'no' if not found else len(found)} booted Simulator(s) (simctl list devices booted)",
            hint="boot the one WebDriverAgent runs on, and only it (`xcrun simctl boot UDID`)",
        )
    return str(found[0])


def clear_container(path: str) -> None:
    """Delete what an app's data container holds (the container itself stays, as after a fresh
    install); refuses a path that is not one (…/data/Containers/Data/Application/<uuid>)."""
    folder = Path(path.strip())
    if "Containers/Data/Application" not in folder.as_posix() or not folder.is_dir():
        raise DeviceError(f"simctl named no app data container: {path[:200]!r}")
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
