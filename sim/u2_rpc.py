"""The uiautomator2 server of a simulated phone: HTTP JSON-RPC over an adb ``tcp:9008`` stream.

The real server (``com.wetest.uia2.Main``, started with ``app_process``) answers ``GET /ping``
with ``pong`` and ``POST /jsonrpc/0`` with JSON-RPC 2.0. :class:`U2Server` serves one request
per stream, as the uiautomator2 client opens a new adb stream for every request. Device state
stays in :class:`~sim.device.SimDevice`; this module holds only what the server process
itself holds (whether it runs, who started it, the clipboard).

Faults come from the face's decision function (a :class:`~sim.faults.FaultInjector`
seen through the adb face), per route ``rpc:ping`` / ``rpc:<method>``:

- ``HANG``: no answer until the fault is cleared or the face stops; ``DROP``: the stream closes
  without an answer; ``RESET``: the stream is reset without an answer; ``LOSE_SESSION``: the
  JSON-RPC error a server whose UiAutomation is gone
  sends (``UiAutomation not connected``); ``MALFORMED``: a truncated XML dump, or a body that is
  not JSON; ``EMPTY``: an empty dump, or an empty body; ``DIE``: the server process dies (no
  answer; later streams to port 9008 are refused and a relaunch crashes); ``CRASH``: the process
  exits (no answer; port 9008 is closed until the server is launched again, which works).

``replies`` plays real answers back: a :class:`~sim.replay.Reply` under ``rpc:<method>`` is sent
as the HTTP answer to that JSON-RPC method (status, content type and body as given), e.g. the
``{"jsonrpc": "2.0", "id": 1, "error": {…}}`` object the server's jsonrpc4j writes with HTTP 200.
"""

from __future__ import annotations

import base64
import contextlib
import http
import io
import json
import socket
import threading
import time
from collections.abc import Callable, Mapping
from email.message import Message
from typing import Any

from ..core.http_input import BadRequest, body_length, json_value
from .device import SimDevice
from .faults import Answer, Fault, FaultInjector
from .nodes import SimNode
from .render_android import render_hierarchy
from .replay import Reply, reset
from .u2_methods import U2Methods
from .u2_selector import RpcError, obj_info

__all__ = ["CRASH_AT_START_OUTPUT", "RpcError", "U2Server", "sdk_int"]

# What app_process prints when the uiautomator2 server cannot start on a ROM that lacks a native
# library it needs. The shape (the server's start line, then the Java exception app_process dies
# with) follows issue 31's report of a custom ROM's UnsatisfiedLinkError; the library named here is
# ours: no full capture was found.
CRASH_AT_START_OUTPUT = (
    b"[server] INFO: [UiAutomator2Server] Starting Server\n"
    b'java.lang.UnsatisfiedLinkError: dlopen failed: library "libandroid_runtime_ext.so" not found\n'
    b"\tat java.lang.Runtime.loadLibrary0(Runtime.java:1082)\n"
    b"\tat com.wetest.uia2.Main.main(Main.java:31)\n"
)
_MAX_HEADER_BYTES = 64 * 1024
_MAX_BODY_BYTES = 4 * 1024 * 1024
_NOT_CONNECTED = (
    "java.lang.IllegalStateException: UiAutomation not connected, UiAutomation@5a1b2c3[id=-1, flags=0]"
)
_SDK = {"10": 29, "11": 30, "12": 31, "13": 33, "14": 34, "15": 35}
# pressKey names the real server knows, mapped to the simulated device's key names (None: no effect here).
_KEY_NAMES: dict[str, str | None] = {
    "home": "home",
    "back": "back",
    "enter": "enter",
    "menu": "menu",
    "recent": "recent",
    "volume_up": "volume_up",
    "volume_down": "volume_down",
    "power": "power",
    "left": None,
    "right": None,
    "up": None,
    "down": None,
    "center": None,
    "search": None,
    "delete": None,
    "del": None,
    "volume_mute": None,
    "camera": None,
}
_KEY_CODES: dict[int, str] = {3: "home", 4: "back", 66: "enter", 82: "menu", 187: "recent", 24: "volume_up"}
_KEY_CODES.update({25: "volume_down", 26: "power"})


def sdk_int(os_version: str) -> int:
    """The API level of an Android release name ("14" -> 34)."""
    return _SDK.get(os_version.split(".")[0], 34)


def _read_request(stream: io.BufferedReader) -> tuple[str, str, bytes] | None:
    """(method, path, body) of one HTTP request, or None when the peer closed or sent garbage."""
    line = stream.readline(_MAX_HEADER_BYTES)
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3:
        return None
    headers = Message()
    total = len(line)
    while True:
        header = stream.readline(_MAX_HEADER_BYTES)
        total += len(header)
        if not header or total > _MAX_HEADER_BYTES:
            return None
        if header in (b"\r\n", b"\n"):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip()] = value.strip()
    length = body_length(headers, _MAX_BODY_BYTES)  # BadRequest: ambiguous framing, chunks, too big
    body = stream.read(length) if length else b""
    return parts[0].upper(), parts[1], body


def _response(status: str, body: bytes, content_type: str = "application/json") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class U2Server:
    """The uiautomator2 server process on one simulated phone (thread-safe)."""

    def __init__(
        self,
        device: SimDevice,
        *,
        faults: FaultInjector,
        decide: Callable[[str], Fault] | None = None,
        running: bool = True,
        poll_interval: float = 0.05,
        stopped: threading.Event | None = None,
        replies: dict[str, Reply] | None = None,
    ) -> None:
        self.device = device
        self.replies: dict[str, Reply] = replies if replies is not None else {}
        self.faults = faults
        self._decide = decide or faults.on_request
        self._lock = threading.Lock()
        self._running = running
        self._owner: object | None = None
        self.dead = False
        self.crash_on_start = False  # each launch crashes (Fault.CRASH_AT_START hit a running server)
        self.clipboard: str | None = None
        self.launches = 0
        # A server already running when the face starts is a process too (never pid 0: ps lists it)
        self.pid = 9000 if running else 0
        self.poll_interval = poll_interval
        self.stopped = stopped or threading.Event()  # set when the face stops: held requests end
        self._methods: dict[str, Callable[..., Any]] = {
            "dumpWindowHierarchy": self._dump,
            "swipePoints": self._swipe_points,
            "pressKey": self._press_key,
            "pressKeyCode": self._press_key_code,
            "setClipboard": self._set_clipboard,
            "getClipboard": lambda: self.clipboard,
            "pasteClipboard": self._paste,
            "clearInputText": self._clear_text,
            "takeScreenshot": self._screenshot,
            "deviceInfo": self._device_info,
            "waitForExists": self._wait_for_exists,
            "exist": lambda selector: self._find(selector) is not None,
            "count": lambda selector: len(self._find_all(selector)),
            "objInfo": lambda selector: obj_info(self._must_find(selector)),
            "objInfoOfAllInstances": lambda selector: [obj_info(n) for n in self._find_all(selector)],
            "getText": lambda selector: self._must_find(selector).text or "",
            "setText": self._set_text,
            "clearTextField": self._clear_field,
        }
        self.extra = U2Methods(self)
        self._methods.update(self.extra.table())

    # --- the process ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running and not self.dead

    def launch(self, owner: object) -> bool:
        """``app_process … com.wetest.uia2.Main`` was run on stream ``owner``; False if it crashes."""
        with self._lock:
            if self.dead:
                return False
            self._running = True
            self._owner = owner
            self.launches += 1
            self.pid = 9000 + 37 * self.launches  # each start of app_process is a new process
            return True

    def run_on(self, sock: socket.socket) -> None:
        """``app_process … com.wetest.uia2.Main`` on an adb shell stream: the server runs until that
        stream closes (or the face stops); a dead server prints the start failure and exits."""
        if not self.launch(owner=sock):
            sock.sendall(
                b"OKAY[server] INFO: [UiAutomator2Server] Starting Server\n"
                b"java.lang.RuntimeException: Error while connecting UiAutomation\n"
            )
            return
        try:
            sock.sendall(b"OKAY[server] INFO: [UiAutomator2Server] Starting Server\n")
            sock.settimeout(0.2)
            while not self.stopped.is_set() and self.running:
                try:
                    if not sock.recv(1024):
                        break
                except TimeoutError:
                    continue
        except OSError:
            pass
        finally:
            self.owner_gone(sock)

    def owner_gone(self, owner: object) -> None:
        """The stream that launched the server closed: the process ends with it."""
        with self._lock:
            if self._owner is owner:
                self._owner = None
                self._running = False

    def exit(self) -> None:
        """The process exits (the system killed it): nothing listens until it is launched again."""
        with self._lock:
            self._running = False
            self._owner = None

    def kill(self) -> None:
        """The process dies (``Fault.DIE``): nothing answers on port 9008 from now on."""
        with self._lock:
            self.dead = True
            self._running = False

    # --- one HTTP exchange ------------------------------------------------------------------

    def serve(self, sock: socket.socket) -> None:
        """Answer one HTTP request arriving on ``sock`` (an adb ``tcp:9008`` stream)."""
        stream = sock.makefile("rb")
        try:
            try:
                request = _read_request(stream)
            except BadRequest as bad:
                # The project's framing rule (core/http_input.py). What the real server (NanoHTTPD
                # inside the uiautomator2 APK) answers to two Content-Length headers was not found;
                # the body is JSON-RPC 2.0's "Invalid Request" (-32600), as its spec names it.
                error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": bad.message}}
                phrase = http.HTTPStatus(bad.status).phrase
                sock.sendall(_response(f"{bad.status} {phrase}", json.dumps(error).encode("utf-8")))
                return
            if request is None:
                return
            method, path, body = request
            reply = self._handle(method, path, body, sock)
            if reply is not None:
                sock.sendall(self._rewritten(path, body, reply))
        except OSError:
            return
        finally:
            stream.close()

    def _handle(self, method: str, path: str, body: bytes, sock: socket.socket) -> bytes | None:
        if path.split("?")[0] == "/ping" and method == "GET":
            fault = self._decide("rpc:ping")
            if self._misbehave(fault, sock):
                return None
            if fault in (Fault.MALFORMED, Fault.EMPTY):
                return _response("200 OK", b"" if fault is Fault.EMPTY else b"\x00p0ng", "text/plain")
            return _response("200 OK", b"pong", "text/plain")
        if path.split("?")[0] != "/jsonrpc/0" or method != "POST":
            self._decide("rpc:other")
            return _response("404 Not Found", b"Not Found", "text/plain")
        try:
            payload = json_value(body)
            rpc_method = str(payload["method"])
            params = payload.get("params") or []
            rpc_id = payload.get("id", 1)
        except (BadRequest, KeyError, TypeError, AttributeError):
            self._decide("rpc:invalid")
            return self._json(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            )
        fault = self._decide(f"rpc:{rpc_method}")
        if self._misbehave(fault, sock):
            return None
        replayed = self.replies.get(f"rpc:{rpc_method}")
        if replayed is not None and fault is Fault.NONE:
            phrase = http.HTTPStatus(replayed.status).phrase
            return _response(f"{replayed.status} {phrase}", replayed.body, replayed.content_type)
        if fault is Fault.LOSE_SESSION:
            error = {"code": -32001, "message": "java.lang.IllegalStateException", "data": _NOT_CONNECTED}
            return self._json({"jsonrpc": "2.0", "id": rpc_id, "error": error})
        if fault is Fault.MALFORMED:
            if rpc_method == "dumpWindowHierarchy":
                xml = render_hierarchy(self.device.tree(), rotation=self.device.rotation)
                return self._json({"jsonrpc": "2.0", "id": rpc_id, "result": xml[: len(xml) // 2]})
            return _response("200 OK", b"\xff\xfe<html>Internal Error", "text/html")
        if fault is Fault.EMPTY:
            if rpc_method == "dumpWindowHierarchy":
                return self._json({"jsonrpc": "2.0", "id": rpc_id, "result": ""})
            return _response("200 OK", b"")
        try:
            result = self.call(rpc_method, params)
        except RpcError as exc:
            error = {"code": exc.code, "message": exc.message, "data": exc.data or exc.message}
            return self._json({"jsonrpc": "2.0", "id": rpc_id, "error": error})
        return self._json({"jsonrpc": "2.0", "id": rpc_id, "result": result})

    def _misbehave(self, fault: Fault, sock: socket.socket) -> bool:
        """Act out the faults that leave a request unanswered; True when nothing is to be sent."""
        if fault is Fault.RESET:
            reset(sock)
            return True
        if fault is Fault.HANG:
            while not self.faults.wait_released(self.poll_interval * 4):
                if self.stopped.is_set():
                    break
            return True
        if fault is Fault.DIE:
            self.kill()
            return True
        if fault is Fault.CRASH:
            self.exit()  # the process is gone; app_process can start it again
            return True
        if fault is Fault.CRASH_AT_START:
            self.exit()  # gone, and every start crashes while the fault holds (sim.adb_face)
            self.crash_on_start = True
            return True
        return fault is Fault.DROP

    def _rewritten(self, path: str, body: bytes, reply: bytes) -> bytes:
        """``reply`` (a whole HTTP response) as the fault injector's rewrite makes it, on the route
        the request counted under (``rpc:<method>``, ``rpc:ping``)."""
        route = "rpc:ping" if path.split("?")[0] == "/ping" else "rpc:invalid"
        with contextlib.suppress(ValueError, TypeError, KeyError, RecursionError):  # a hostile body
            route = f"rpc:{json.loads(body)['method']}"
        head, _, payload = reply.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        kind = next(
            (v.strip() for k, _, v in (h.partition(":") for h in lines[1:]) if k.lower() == "content-type"),
            "",
        )
        answer = self.faults.rewritten(Answer(route, payload, status, kind))
        if answer.body == payload and answer.status == status and answer.content_type == kind:
            return reply
        phrase = (
            http.HTTPStatus(answer.status).phrase
            if answer.status in http.HTTPStatus._value2member_map_
            else "Unknown"
        )
        return _response(f"{answer.status} {phrase}", answer.body, answer.content_type)

    @staticmethod
    def _json(payload: Mapping[str, Any]) -> bytes:
        return _response("200 OK", json.dumps(payload).encode("utf-8"))

    # --- JSON-RPC methods -------------------------------------------------------------------

    def methods(self) -> tuple[str, ...]:
        """The JSON-RPC methods this server answers."""
        return tuple(self._methods)

    def call(self, method: str, params: Any) -> Any:
        """Run one JSON-RPC method on the device; ``RpcError`` as the real server reports errors."""
        handler = self._methods.get(method)
        if handler is None:
            raise RpcError(-32601, "Method not found", f"method {method} is not implemented")
        args = list(params) if isinstance(params, list | tuple) else []
        kwargs = dict(params) if isinstance(params, Mapping) else {}
        try:
            return handler(*args, **kwargs)
        except TypeError as exc:
            raise RpcError(-32602, "Invalid params", str(exc)) from exc

    def _dump(self, compressed: bool = False, max_depth: int = 50, root_in_active: bool = False) -> str:
        return render_hierarchy(self.device.tree(), rotation=self.device.rotation, max_depth=int(max_depth))

    def _swipe_points(self, points: list[float], steps: int = 55) -> bool:
        if len(points) < 4:
            return False
        self.device.swipe(points[0], points[1], points[-2], points[-1])
        return True

    def _press_key(self, key: str) -> bool:
        name = str(key).lower()
        if name not in _KEY_NAMES:
            return False
        target = _KEY_NAMES[name]
        if target is not None:
            self.device.press(target)
        return True

    def _press_key_code(self, code: int, meta: int = 0) -> bool:
        name = _KEY_CODES.get(int(code))
        if name is not None:
            self.device.press(name)
        return True

    def _set_clipboard(self, label: str | None, text: str) -> None:
        with self._lock:
            self.clipboard = text

    def _paste(self) -> None:
        with self._lock:
            text = self.clipboard
        if text:
            self.device.type_text(text)

    def _clear_text(self) -> None:
        self.device.clear_text()

    def _screenshot(self, scale: float = 1.0, quality: int = 80) -> str:
        # openatx/android-uiautomator-server, AutomatorServiceImpl.takeScreenshot(float scale, int
        # quality): UiAutomation.takeScreenshot() compressed as JPEG at `quality`, base64; `scale` is
        # not applied. Bitmap.compress refuses a quality outside 0-100 (IllegalArgumentException).
        if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 100:
            raise RpcError(-32602, "java.lang.IllegalArgumentException: quality must be 0..100")
        return base64.b64encode(self.device.screenshot_jpeg(max(1, quality))).decode("ascii")

    def _device_info(self) -> dict[str, Any]:
        width, height = self.device.window_size
        return {
            "currentPackageName": self.device.foreground(),
            "displayHeight": height,
            "displayRotation": self.device.rotation,
            "displaySizeDpX": round(width * 160 / 420),
            "displaySizeDpY": round(height * 160 / 420),
            "displayWidth": width,
            "productName": self.device.model,
            "screenOn": self.device.screen_on,
            "sdkInt": getattr(self.device.profile, "api", None) or sdk_int(self.device.os_version),
            "naturalOrientation": True,
        }

    def _find_all(self, selector: Any) -> list[SimNode]:
        return self.extra.find_all(selector)

    def _find(self, selector: Any) -> SimNode | None:
        found = self._find_all(selector)
        return found[0] if found else None

    def _must_find(self, selector: Any) -> SimNode:
        return self.extra.must_find(selector)

    def _wait_for_exists(self, selector: Any, timeout_ms: int = 0) -> bool:
        deadline = time.monotonic() + max(0, int(timeout_ms)) / 1000
        while True:
            if self._find(selector) is not None:
                return True
            if time.monotonic() >= deadline or self.stopped.is_set():
                return False
            time.sleep(self.poll_interval)

    def _set_text(self, selector: Any, text: str) -> bool:
        node = self._must_find(selector)
        if node.ref is None:
            return False
        self.device.tap(*node.bounds.center)
        self.device.clear_text()
        self.device.type_text(text)
        return True

    def _clear_field(self, selector: Any) -> None:
        node = self._must_find(selector)
        if node.ref is not None:
            self.device.tap(*node.bounds.center)
            self.device.clear_text()
