"""The device-state calls of ``U2Driver``, each through adb as Maestro's AndroidDriver does it:

=====================  ============================================================================
``set_orientation``    ``settings put system accelerometer_rotation 0``, then ``settings put system
                       user_rotation N`` (0 portrait, 1 landscape_left, 2 upside_down, 3 landscape_right)
``set_airplane_mode``  API 28+: ``cmd connectivity airplane-mode enable|disable``; older: ``settings
                       put global airplane_mode_on 1|0`` and the ``AIRPLANE_MODE`` broadcast
``airplane_mode``      ``cmd connectivity airplane-mode`` (``enabled`` / ``disabled``), else ``settings
                       get global airplane_mode_on``
``set_dark_mode``      ``cmd uimode night yes|no`` (it answers ``Night mode: yes|no``, checked)
``dark_mode``          ``cmd uimode night``
``start_recording``    adbutils' way: a script pushed to ``/sdcard`` runs ``screenrecord`` in the
                       background on a shell stream, until a line is sent
``stop_recording``     the line, the stream read to its end, the file pulled and removed
``add_media``          the file pushed to ``/sdcard/Pictures`` (``Movies`` for a video), then the
                       media scanner's ``MEDIA_SCANNER_SCAN_FILE`` broadcast for it
=====================  ============================================================================

A mixin, declaring what it needs of the driver through :class:`_Driver`.
"""

from __future__ import annotations

import posixpath
import re
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ...core.durations import check_seconds
from ...core.errors import DeviceError, StepArgumentError
from ..base import ORIENTATIONS

__all__ = ["AndroidState"]

T = TypeVar("T")
RECORDING = "/sdcard/amc-screenrecord.mp4"
SCRIPT = "/sdcard/amc-screenrecord.sh"
# adbutils' recording script (adbutils/screenrecord.py, _AdbScreenRecord): screenrecord runs until
# a line comes on the stream, then gets SIGINT, which makes it finish the file.
_SCRIPT = b'#!/system/bin/sh\nscreenrecord "$1" &\nPID=$!\nread ANY\nkill -INT $PID\nwait\n'
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,200}$")


class _Driver(Protocol):
    serial: str
    _lock: threading.RLock
    _recording: Any

    @property
    def sdk(self) -> int | None: ...

    def _shell(self, operation: str, args: list[str] | str) -> str: ...

    def _adb_device(self) -> Any: ...

    def _guard(self, operation: str, call: Callable[[], T]) -> T: ...

    def _rpc(self, operation: str, call: Callable[[Any], T], *, repeatable: bool) -> T: ...

    @property
    def config(self) -> Any: ...


class AndroidState:
    """The device-state calls (see the module docstring)."""

    _recording: Any = None  # the shell stream of a screen recording under way

    def wait_idle(self: _Driver, timeout: float) -> bool:
        """The server's ``waitForIdle(timeout)`` RPC: ``UiAutomation.waitForIdle(500, timeout)``,
        which returns once no accessibility event came for 500 ms, or at the timeout. It answers
        ``null`` either way (``void`` in AutomatorServiceImpl.java), so the time it took says which:
        an answer before ``timeout`` is idle. A late idle answer counts as the timeout (the loop
        then compares looks), never the other way round."""
        limit = check_seconds(timeout, "the idle timeout", maximum=60.0, above_zero=True)
        wait = {"http_timeout": limit + self.config.timeout}
        started = time.monotonic()
        self._rpc("wait_idle", lambda d: d.jsonrpc.waitForIdle(round(limit * 1000), **wait), repeatable=True)
        return time.monotonic() - started < limit

    def set_orientation(self: _Driver, orientation: str) -> None:
        if orientation not in ORIENTATIONS:
            raise StepArgumentError(
                f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}"
            )
        self._shell("set_orientation", ["settings", "put", "system", "accelerometer_rotation", "0"])
        rotation = str(ORIENTATIONS.index(orientation))
        self._shell("set_orientation", ["settings", "put", "system", "user_rotation", rotation])

    def set_airplane_mode(self: _Driver, enabled: bool) -> None:
        if (self.sdk or 28) >= 28:
            out = self._shell(
                "set_airplane_mode",
                ["cmd", "connectivity", "airplane-mode", "enable" if enabled else "disable"],
            )
            if out.strip():
                raise DeviceError(f"airplane mode on {self.serial}: {out.strip()[:200]}")
            return
        self._shell(
            "set_airplane_mode", ["settings", "put", "global", "airplane_mode_on", "1" if enabled else "0"]
        )
        self._shell(
            "set_airplane_mode",
            [
                "am",
                "broadcast",
                "-a",
                "android.intent.action.AIRPLANE_MODE",
                "--ez",
                "state",
                str(enabled).lower(),
            ],
        )

    def airplane_mode(self: _Driver) -> bool:
        out = self._shell("airplane_mode", ["cmd", "connectivity", "airplane-mode"]).strip()
        if out in ("", "No shell command implementation."):  # Maestro's fallback, for older phones
            out = {"0": "disabled", "1": "enabled"}.get(
                self._shell("airplane_mode", ["settings", "get", "global", "airplane_mode_on"]).strip(), out
            )
        if out not in ("enabled", "disabled"):
            raise DeviceError(f"{self.serial} answered the airplane mode query with {out[:200]!r}")
        return out == "enabled"

    def set_dark_mode(self: _Driver, enabled: bool) -> None:
        out = self._shell("set_dark_mode", ["cmd", "uimode", "night", "yes" if enabled else "no"]).strip()
        if out != f"Night mode: {'yes' if enabled else 'no'}":
            raise DeviceError(f"{self.serial} did not switch night mode: {out[:200]!r}")

    def dark_mode(self: _Driver) -> bool:
        out = self._shell("dark_mode", ["cmd", "uimode", "night"]).strip()
        if not out.startswith("Night mode: "):
            raise DeviceError(f"{self.serial} answered the night mode query with {out[:200]!r}")
        return out == "Night mode: yes"

    def start_recording(self: _Driver) -> None:
        with self._lock:
            if self._recording is not None:
                return
            adb = self._adb_device()
            self._guard("start_recording", lambda: adb.sync.push(_SCRIPT, SCRIPT))
            stream = self._guard("start_recording", lambda: adb.shell(["sh", SCRIPT, RECORDING], stream=True))
            self._recording = stream

    def stop_recording(self: _Driver) -> bytes:
        with self._lock:
            stream, self._recording = self._recording, None
        if stream is None:
            return b""
        adb = self._adb_device()

        def finish() -> bytes:
            try:
                stream.conn.settimeout(adb._client.timeout)
                stream.send(b"\n")
                stream.read_until_close()
            finally:
                stream.close()
            data: bytes = adb.sync.read_bytes(RECORDING)
            adb.shell(["rm", "-f", RECORDING, SCRIPT])
            return data

        return self._guard("stop_recording", finish)

    def add_media(self: _Driver, name: str, data: bytes) -> None:
        base = posixpath.basename(name.replace("\\", "/"))
        if not _SAFE_NAME.match(base):
            raise StepArgumentError(f"{name!r:.80} is not a media file name this harness pushes")
        folder = "/sdcard/Movies" if base.lower().endswith(".mp4") else "/sdcard/Pictures"
        path = f"{folder}/{base}"
        adb = self._adb_device()
        self._guard("add_media", lambda: adb.sync.push(bytes(data), path))
        self._shell(
            "add_media",
            [
                "am",
                "broadcast",
                "-a",
                "android.intent.action.MEDIA_SCANNER_SCAN_FILE",
                "-d",
                f"file://{path}",
            ],
        )
