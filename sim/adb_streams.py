"""Shell commands that keep their adb stream open: ``logcat`` (without ``-d``) and ``sh SCRIPT``.

``logcat`` prints the log it has, then each new line as it is logged (``log``), until the client
closes the stream or the face stops. ``sh SCRIPT ARGS`` runs a script pushed to the phone line by
line, with ``$1``… substituted: the commands of the simulated shell, plus what a script needs to
drive a background job from its input (adbutils' screen recording pushes such a script):
``PROGRAM … &`` starts a job (``screenrecord PATH`` is the one job played), ``NAME=$!`` is its id,
``read NAME`` waits for a line on the stream, ``kill -INT $NAME`` ends the job, ``wait`` waits for
it. ``screenrecord`` records the simulated screen's frames from the job's start and, when it ends,
writes them to its file as an animated PNG (:mod:`sim.device_state`): a phone's file is H.264 in
MP4, which no encoder at hand here writes (said here, not hidden; the harness tells the two apart
by their first bytes).
"""

from __future__ import annotations

import shlex
import socket
import struct
import threading
from typing import TYPE_CHECKING

from .adb_files import entry_for

if TYPE_CHECKING:
    from .adb_shell import AndroidShell

__all__ = ["MAX_SCRIPT_LINES", "stream_logcat", "stream_script"]

MAX_SCRIPT_LINES = 200
_MP4 = struct.pack(">I4s4sI", 20, b"ftyp", b"isom", 0x200) + b"isom" + struct.pack(">I4s", 8, b"mdat")


def _closed(sock: socket.socket) -> bool:
    try:
        sock.settimeout(0.05)
        return sock.recv(1, socket.MSG_PEEK) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def _gone(sock: socket.socket) -> bool:
    """Shell v2: whether the client left; what it sends (stdin packets, a close of stdin) is read
    and dropped, as logcat reads no input."""
    try:
        sock.settimeout(0.05)
        return sock.recv(4096) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def stream_logcat(
    sock: socket.socket, shell: AndroidShell, stopped: threading.Event, *, v2: bool = False
) -> None:
    """``logcat`` without ``-d``: the log so far, then each new line; over shell v2 (adb 29's
    ``adb logcat``) each chunk is a stdout packet."""
    commands = shell.commands

    def frame(text: str) -> bytes:
        data = text.encode()
        return b"\x01" + struct.pack("<I", len(data)) + data if v2 and data else data

    with commands.logged:
        sent = len(commands.log)
        lines = list(commands.log)
    # A phone's log is never empty after boot, and logcat prints a divider before the first entry
    # of each buffer (logcat.cpp: "--------- beginning of main"): every real capture starts so.
    # Clients wait for a first line (appium-adb's startCapture, up to 10 s).
    sock.sendall(b"OKAY" + frame("--------- beginning of main\n" + "".join(lines)))
    while not stopped.is_set() and not (_gone(sock) if v2 else _closed(sock)):
        with commands.logged:
            commands.logged.wait(0.1)
            lines = list(commands.log)
        if len(lines) > sent:
            sock.sendall(frame("".join(lines[sent:])))
        sent = len(lines)


def _read_line(sock: socket.socket, stopped: threading.Event) -> bytes | None:
    buf = b""
    sock.settimeout(0.1)
    while not stopped.is_set():
        try:
            chunk = sock.recv(1)
        except TimeoutError:
            continue
        except OSError:
            return None
        if not chunk:
            return None
        if chunk == b"\n":
            return buf
        buf += chunk
    return None


def stream_script(sock: socket.socket, shell: AndroidShell, command: str, stopped: threading.Event) -> None:
    try:
        argv = shlex.split(command)
    except ValueError:
        sock.sendall(b"OKAY/system/bin/sh: syntax error: unterminated quoted string\n")
        return
    entry = shell.files.get(argv[1])
    if entry is None or entry.data is None:
        sock.sendall(f"OKAY/system/bin/sh: {argv[1]}: No such file or directory\n".encode())
        return
    sock.sendall(b"OKAY")
    args = argv[2:]
    variables: dict[str, str] = {}
    jobs: dict[str, str] = {}  # job id -> the file a screenrecord writes
    last_job = ""
    for raw in entry.data.decode("utf-8", errors="replace").splitlines()[:MAX_SCRIPT_LINES]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        for i, value in enumerate(args, start=1):
            line = line.replace(f'"${i}"', shlex.quote(value)).replace(f"${i}", shlex.quote(value))
        for name, value in variables.items():
            line = line.replace(f"${name}", value)
        if line.endswith("&"):
            words = shlex.split(line[:-1])
            last_job = str(4000 + len(jobs))
            if words[:1] == ["screenrecord"] and len(words) > 1:
                jobs[last_job] = words[-1]
                shell.device.start_recording()
            continue
        if "=" in line and line.split("=", 1)[0].isidentifier():
            name, value = line.split("=", 1)
            variables[name] = last_job if value == "$!" else value
            continue
        words = shlex.split(line)
        if words[:1] == ["read"]:
            if _read_line(sock, stopped) is None:
                return
        elif words[:1] == ["kill"] and words[-1] in jobs:
            shell.files.write_entry(jobs.pop(words[-1]), entry_for(shell.device.stop_recording() or _MP4))
        elif words[:1] == ["wait"]:
            continue
        else:
            sock.sendall(shell.run(line).output)
