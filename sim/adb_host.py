"""The adb server's host services beyond listing devices: ``host-serial:`` parsing, port forwards,
reverse forwards, ``track-devices``, ``wait-for-*``, ``disconnect`` and the ``framebuffer:``
service, for :class:`~sim.adb_face.AdbFace`.

- A serial in ``host-serial:SERIAL:COMMAND`` is split as adb's ``skip_host_serial``
  (``adb/sockets.cpp``) does: after a ``usb:``/``product:``/``model:``/``device:`` prefix the serial
  runs to the next colon; otherwise a ``tcp:``/``udp:`` prefix is skipped and a first colon followed
  by digits and another colon (``127.0.0.1:5555:``) belongs to the serial.
- ``forward:LOCAL;REMOTE`` listens on 127.0.0.1 only (``tcp:0`` picks a free port and answers
  it); each connection to it reaches the phone's ``REMOTE`` service as an adb stream would (the
  uiautomator2 server on ``tcp:9008``; any other port is closed, nothing listens there).
  ``list-forward`` prints ``SERIAL LOCAL REMOTE`` lines, ``killforward:LOCAL`` and
  ``killforward-all`` remove them. At most :data:`MAX_FORWARDS` at once.
- ``reverse:forward:REMOTE;LOCAL`` (on a device transport) is remembered and listed as adbd lists
  it (``UsbFfs REMOTE LOCAL``); the simulated phone opens no connection through it.
- ``track-devices`` sends the device list at once and again whenever it changes.
- ``wait-for-TRANSPORT-STATE`` answers a second ``OKAY`` once a matching device is in that state
  (``disconnect``: once none is), holding the connection until then.
- ``framebuffer:`` sends adb's ``fbinfo`` version 2 header (``framebuffer_service.cpp``: version,
  bpp, colorSpace, size, width, height, then offset and length of red, blue, green and alpha) and
  the screen as RGBA_8888.
"""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .adb_wire import block, fail, okay

if TYPE_CHECKING:
    from .adb_face import AdbFace, Phone

__all__ = [
    "MAX_FORWARDS",
    "Forwards",
    "framebuffer",
    "host_misc",
    "pipe",
    "split_host_serial",
    "track_devices",
    "wait_for",
]

MAX_FORWARDS = 32
_PREFIXES = ("usb:", "product:", "model:", "device:")


def split_host_serial(rest: str) -> tuple[str, str]:
    """(serial, command) of what follows ``host-serial:`` (see the module docstring)."""
    for prefix in _PREFIXES:
        if rest.startswith(prefix):
            end = rest.find(":", len(prefix))
            return (rest, "") if end < 0 else (rest[:end], rest[end + 1 :])
    start = 4 if rest.startswith(("tcp:", "udp:")) else 0
    first = rest.find(":", start)
    if first < 0:
        return rest, ""
    end = first
    if first + 1 < len(rest) and rest[first + 1].isdigit():
        end = first + 1
        while end < len(rest) and rest[end].isdigit():
            end += 1
        if end >= len(rest) or rest[end] != ":":
            end = first
    return rest[:end], rest[end + 1 :]


@dataclass
class _Forward:
    serial: str
    local: str
    remote: str
    listener: socket.socket
    thread: threading.Thread | None = None


@dataclass
class Forwards:
    """The adb server's forwards, and each phone's reverse forwards."""

    face: AdbFace
    items: list[_Forward] = field(default_factory=list)
    reverse: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, phone: Phone, spec: str) -> tuple[bool, str]:
        """``forward[:norebind]:LOCAL;REMOTE``: (ok, the port chosen or the error)."""
        norebind = spec.startswith("norebind:")
        local, _, remote = spec.removeprefix("norebind:").partition(";")
        if not local.startswith("tcp:") or not remote or not local[4:].isdigit():
            return False, f"cannot bind listener: unsupported local '{local}'"
        with self.lock:
            existing = [f for f in self.items if f.local == local]
            if existing and norebind:
                return False, f"cannot rebind existing socket: {local}"
            for old in existing:
                self._close(old)
            if len(self.items) >= MAX_FORWARDS:
                return False, "cannot bind listener: too many forwards"
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                listener.bind(("127.0.0.1", int(local[4:])))
                listener.listen(16)
            except OSError as exc:
                listener.close()
                return False, f"cannot bind listener: {exc.strerror or exc}"
            port = listener.getsockname()[1]
            item = _Forward(phone.serial, f"tcp:{port}", remote, listener)
            item.thread = threading.Thread(target=self._accept, args=(item, phone), daemon=True)
            item.thread.start()
            self.items.append(item)
        return True, str(port) if local == "tcp:0" else ""

    def _accept(self, item: _Forward, phone: Phone) -> None:
        while True:
            try:
                conn, _ = item.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._bridge, args=(conn, item, phone), daemon=True).start()

    def _bridge(self, conn: socket.socket, item: _Forward, phone: Phone) -> None:
        with conn:
            listening = phone.servers.get(item.remote, lambda: None)()
            if listening is not None:
                pipe(conn, listening, self.face.stopped)
            elif item.remote == "tcp:9008" and phone.u2.running:
                phone.u2.serve(conn)

    def listing(self, serial: str | None) -> str:
        with self.lock:
            return "".join(
                f"{f.serial} {f.local} {f.remote}\n" for f in self.items if serial in (None, f.serial)
            )

    def kill(self, local: str | None) -> bool:
        with self.lock:
            chosen = [f for f in self.items if local is None or f.local == local]
            for item in chosen:
                self._close(item)
            return bool(chosen) or local is None

    def _close(self, item: _Forward) -> None:
        with contextlib.suppress(OSError):
            item.listener.close()
        if item in self.items:
            self.items.remove(item)

    def close_all(self) -> None:
        self.kill(None)

    def reverse_command(self, phone: Phone, command: str) -> tuple[bool, str | None]:
        """``reverse:…`` on a device transport: (ok, a listing to send or None)."""
        rows = self.reverse.setdefault(phone.serial, [])
        if command == "list-forward":
            return True, "".join(f"UsbFfs {remote} {local}\n" for remote, local in rows)
        if command == "killforward-all":
            rows.clear()
            return True, None
        if command.startswith("killforward:"):
            remote = command.removeprefix("killforward:")
            if not any(r == remote for r, _ in rows):
                return False, f"listener '{remote}' not found"
            rows[:] = [(r, loc) for r, loc in rows if r != remote]
            return True, None
        if command.startswith("forward:"):
            spec = command.removeprefix("forward:")
            norebind = spec.startswith("norebind:")
            remote, _, local = spec.removeprefix("norebind:").partition(";")
            if not remote or not local:
                return False, f"malformed reverse spec '{spec}'"
            if norebind and any(r == remote for r, _ in rows):
                return False, f"cannot rebind existing socket: {remote}"
            rows[:] = [(r, loc) for r, loc in rows if r != remote] + [(remote, local)]
            return True, None
        return False, f"unknown reverse command '{command}'"


def pipe(conn: socket.socket, port: int, stopped: threading.Event) -> None:
    """Carry bytes both ways between ``conn`` and the phone's server listening on loopback ``port``
    (an adb stream to a device port), until either side closes or the face stops."""
    try:
        server = socket.create_connection(("127.0.0.1", port), timeout=2.0)
    except OSError:
        return  # nothing listens there any more: the stream closes, as adbd closes it
    with server:
        for sock in (conn, server):
            sock.settimeout(0.2)
        ends = [(conn, server), (server, conn)]
        other = threading.Thread(target=_carry, args=(*ends[1], stopped), daemon=True)
        other.start()
        _carry(*ends[0], stopped)
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)
        other.join(timeout=2.0)


def _carry(source: socket.socket, sink: socket.socket, stopped: threading.Event) -> None:
    while not stopped.is_set():
        try:
            data = source.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return
        if not data:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)
            return
        try:
            sink.sendall(data)
        except OSError:
            return


def wait_for(face: AdbFace, serial: str | None, service: str, still: Callable[[], bool]) -> bool:
    """``wait-for-TRANSPORT-STATE``: True once the wait is over, False if the face stopped or the
    client left (``still`` says whether the connection is open)."""
    parts = service.removeprefix("wait-for-").split("-", 1)
    state = parts[1] if len(parts) == 2 else "device"
    state = {"any": "", "bootloader": "bootloader", "recovery": "recovery"}.get(state, state)
    while not face.stopped.is_set() and still():
        phones = [p for p in face.phones if serial in (None, p.serial)]
        if state == "disconnect" and not phones:
            return True
        if state != "disconnect" and any(not state or p.state == state for p in phones):
            return True
        time.sleep(0.05)
    return False


def framebuffer(phone: Phone) -> bytes:
    """The ``framebuffer:`` service's answer (header and RGBA pixels) for the phone's screen."""
    from PIL import Image

    with Image.open(io.BytesIO(phone.device.screenshot_png(alpha=True))) as image:
        pixels = image.convert("RGBA")
        width, height = pixels.size
        data = pixels.tobytes()
    header = struct.pack("<14I", 2, 32, 1, len(data), width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    return header + data


def track_devices(face: AdbFace, sock: socket.socket) -> None:
    """``host:track-devices``: the list now, and again each time it changes."""
    sent = face.listing(long=False)
    sock.sendall(okay(sent))
    sock.settimeout(0.1)
    while not face.stopped.is_set():
        try:
            if sock.recv(1) == b"":
                return
        except TimeoutError:
            pass
        now = face.listing(long=False)
        if now != sent:
            sock.sendall(block(now))
            sent = now


def host_misc(face: AdbFace, sock: socket.socket, serial: str | None, service: str) -> bool:
    """``disconnect:`` and ``wait-for-*``, and with a serial the forwards; False if not one."""
    if service.startswith("disconnect:"):
        face.decide("adb:host:disconnect")
        address = service.removeprefix("disconnect:")
        sock.sendall(fail(f"no such device '{address}'"))
        return True
    if service.startswith("wait-for-"):
        face.decide("adb:host:wait-for")
        sock.sendall(b"OKAY")

        def still() -> bool:
            try:
                sock.settimeout(0.01)
                return sock.recv(1, socket.MSG_PEEK) != b""
            except TimeoutError:
                return True
            except OSError:
                return False

        if wait_for(face, serial, service, still):
            sock.sendall(b"OKAY")
        return True
    return False
