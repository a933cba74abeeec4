"""Playing a catalogue entry over the wire: the face answers as the backend did, the real adapter
(built by ``amc.drivers.connect.connect``) meets the answer, and the outcome is what a user sees.

``play(entry, face)`` returns an :class:`Outcome`: the harness error the step raised (or None when
it passed), anything else it raised (a traceback a user would see), and the requests the face
counted. :func:`problems` lists every way an outcome differs from the entry's ``expect`` (an empty
list is a match), the same rule for every backend, so a new entry is tested by adding data.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from amc.core.errors import HarnessError
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import Fault, FaultInjector
from amc.sim.profiles import IosProfile
from amc.sim.replay import Reply

from tests.backend_errors.catalogue import Entry

__all__ = ["MAX_MESSAGE", "REASON_MAX", "Outcome", "faces_of", "play", "problems", "reason"]

TIMEOUT = 2.0
SERIAL = "emulator-5554"
# Longer than this, a message quotes too much: the raw answer is to be quoted once and bounded.
MAX_MESSAGE = 1500
APPS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
# The face routes a step's request reaches first, per face (the intermediary entries' default).
_ROUTES = {
    ("wda", "connect"): "status",
    ("wda", "tap"): "tap",
    ("appium-android", "connect"): "new_session",
    ("appium-ios", "connect"): "new_session",
    ("appium-android", "tap"): "actions",
    ("appium-ios", "tap"): "actions",
}


@dataclass
class Outcome:
    error: HarnessError | None = None
    other: BaseException | None = None
    counts: dict[str, int] = field(default_factory=dict)


def faces_of(entry: Entry) -> tuple[str, ...]:
    """The faces an entry is played on: one for a backend's own entries, several for an
    intermediary's."""
    if entry.backend == "intermediary":
        return tuple(entry.wire["faces"])
    if entry.backend in ("appium", "grid"):
        return (f"appium-{entry.wire.get('platform', 'android')}",)
    return {"adb": ("adb",), "u2": ("adb",), "wda": ("wda",)}[entry.backend]


def _reply(entry: Entry) -> Reply:
    content_type = str(entry.wire.get("content_type", "application/json;charset=UTF-8"))
    return Reply(entry.body(), status=int(entry.wire.get("status", 200)), content_type=content_type)


def _run_step(driver: Driver, step: str) -> None:
    platform = driver.platform
    actions: dict[str, Callable[[], object]] = {
        "connect": lambda: None,
        "tap": lambda: driver.tap(100, 200),
        "type": lambda: driver.type_text("hello"),
        "swipe": lambda: driver.swipe(200, 900, 200, 300),
        "press": lambda: driver.press("back" if platform == "android" else "volume_up"),
        "launch": lambda: driver.launch_app(APPS[platform]),
        "observe": driver.observe,
        "screenshot": driver.screenshot,
        "hide_keyboard": driver.hide_keyboard,
    }
    actions[step]()


def _attempt(outcome: Outcome, body: Callable[[], None]) -> None:
    try:
        body()
    except HarnessError as exc:
        outcome.error = exc
    except Exception as exc:  # noqa: BLE001  # a user would see a traceback: the test names it
        outcome.other = exc


@contextmanager
def _adb_face(entry: Entry) -> Iterator[AdbFace]:
    u2_running = "server_output" not in entry.wire
    face = AdbFace([SimDevice("android", SERIAL)], u2_running=u2_running).start()
    try:
        yield face
    finally:
        face.stop()


def _play_adb(entry: Entry) -> Outcome:
    """adb and uiautomator2 entries: ``android:SERIAL`` through an adb face the test holds, so a
    reply can be put in place after connecting (a FAIL on tcp:9008 would stop connecting itself)."""
    outcome = Outcome()
    wire = entry.wire
    with _adb_face(entry) as face:
        if "state" in wire:
            face.set_state(SERIAL, str(wire["state"]))
        host, port = face.host, face.port
        if wire.get("transport") == "refused":
            face.stop()
        late: dict[str, Reply] = {}
        if "fail" in wire:
            late[str(wire["route"])] = Reply(str(wire["fail"]).encode("utf-8"))
        if "rpc" in wire:
            late[f"rpc:{wire['rpc']}"] = _reply(entry)
        if "server_output" in wire:
            face.replies["adb:shell:app_process"] = Reply(str(wire["server_output"]).encode("utf-8"))
        if entry.step == "connect":
            face.replies.update(late)
        driver: Driver | None = None

        def run() -> None:
            nonlocal driver
            driver = connect(
                f"android:{SERIAL}",
                adb_host=host,
                adb_port=port,
                timeout=TIMEOUT,
                server_start_timeout=TIMEOUT,
            )
            face.faults.reset_counts()
            face.replies.update(late)
            _run_step(driver, entry.step)

        _attempt(outcome, run)
        if driver is not None:
            _close(driver)
        outcome.counts = dict(face.faults.counts)
    return outcome


@contextmanager
def _other_server(answer: bytes) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that reads what it is sent and answers ``answer`` (another server
    at the adb port), closing each connection; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1.0)
                with suppress(OSError):
                    conn.recv(4096)
                    conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(2.0)
        server.close()


def _play_other_server(entry: Entry) -> Outcome:
    """An adb entry whose port is answered by another server (``wire.answer``: the bytes it sends)."""
    outcome = Outcome()
    with _other_server(str(entry.wire["answer"]).encode("latin-1")) as port:
        driver: Driver | None = None

        def run() -> None:
            nonlocal driver
            driver = connect(
                f"android:{SERIAL}",
                adb_host="127.0.0.1",
                adb_port=port,
                timeout=TIMEOUT,
                server_start_timeout=TIMEOUT,
            )
            _run_step(driver, entry.step)

        _attempt(outcome, run)
        if driver is not None:
            _close(driver)
    return outcome


def _close(driver: Driver) -> None:
    with suppress(HarnessError):
        driver.close()


def _play_http(entry: Entry, face: str) -> Outcome:
    """WebDriverAgent, Appium, Grid and intermediary entries through a ``sim+…`` spec."""
    outcome = Outcome()
    wire = entry.wire
    faults = FaultInjector()
    route = str(wire.get("route") or _ROUTES[(face, entry.step)])
    replies: dict[str, Reply] = {}
    transport = wire.get("transport")
    if transport is None:
        replies[route] = _reply(entry)
    if face == "wda":
        ios, wda = str(wire.get("ios", "18")), str(wire.get("wda", "10"))
        spec = f"sim+wda:ios?ios={ios}&wda={wda}"
        device = SimDevice("ios", profile=IosProfile(ios, wda))
        options: dict[str, Any] = {"timeout": TIMEOUT, "launch_timeout": TIMEOUT}
    else:
        platform = face.removeprefix("appium-")
        spec = f"sim+appium:{platform}"
        device = SimDevice(platform)  # type: ignore[arg-type]
        options = {"timeout": TIMEOUT, "launch_timeout": TIMEOUT}
    fault = {"drop": Fault.DROP, "reset": Fault.RESET}.get(str(transport)) if transport else None
    if fault is not None and entry.step == "connect":
        faults.inject(fault, routes={route})
    driver: Driver | None = None

    def run() -> None:
        nonlocal driver
        driver = connect(spec, device=device, faults=faults, replies=replies, **options)
        faults.reset_counts()
        if fault is not None and entry.step != "connect":
            faults.inject(fault, routes={route})
        _run_step(driver, entry.step)

    _attempt(outcome, run)
    faults.clear()
    outcome.counts = dict(faults.counts)
    if driver is not None:
        _close(driver)
    return outcome


def play(entry: Entry, face: str) -> Outcome:
    """Play ``entry`` on ``face`` (one of :func:`faces_of`) and return what a user saw."""
    if face == "adb" and "answer" in entry.wire:
        return _play_other_server(entry)
    if face == "adb":
        return _play_adb(entry)
    return _play_http(entry, face)


def _distinctive(entry: Entry) -> str | None:
    """A piece of the raw answer long enough that finding it twice in a message means it was
    quoted twice."""
    raw = entry.body().decode("utf-8", errors="replace") if "fail" not in entry.wire else entry.wire["fail"]
    message = re.search(r'"message":\s*"((?:[^"\\]|\\.){24,})', raw)
    text = message.group(1) if message else raw
    text = " ".join(str(text).split())
    return text[:24] if len(text) >= 24 else None


# A stack frame in a server's message (Java's "\tat …(File.java:12)", Android shell's " pkg.Cls.m:123"):
# where the reason a user must read ends.
_FRAME = re.compile(r"^\s+(?:at\s|[\w$.]+\.[\w$<>]+:\d+)")
REASON_MAX = 500  # a reason longer than this may be cut (bounded), shorter ones are quoted whole


def reason(entry: Entry) -> str | None:
    """The server's reason in an entry's answer: the W3C ``message`` (before a Grid's "Build info"
    and any stack frame), a JSON-RPC error's ``data`` (or ``message``), adb's FAIL text; on one line."""
    wire = entry.wire
    said: object = None
    body = wire.get("json")
    if isinstance(body, dict):
        value, error = body.get("value"), body.get("error")
        if isinstance(value, dict):
            said = value.get("message")
        elif isinstance(error, dict):
            said = error.get("data") if isinstance(error.get("data"), str) else error.get("message")
    elif "fail" in wire:
        said = wire["fail"]
    if not isinstance(said, str) or not said.strip():
        return None
    kept: list[str] = []
    for line in said.split("\nBuild info")[0].strip().splitlines():
        if kept and _FRAME.match(line):
            break
        kept.append(line.strip())
    return " ".join(" ".join(kept).split())


def problems(entry: Entry, outcome: Outcome) -> list[str]:
    """How ``outcome`` differs from what ``entry`` expects (empty: it matches)."""
    if outcome.other is not None:
        return [f"raised {type(outcome.other).__name__} (not a harness error): {outcome.other}"]
    error = outcome.error
    expect = entry.expect
    if error is None:
        return [f"the step passed; expected {expect.error}"]
    found: list[str] = []
    if type(error).__name__ != expect.error:
        found.append(f"{type(error).__name__} instead of {expect.error}: {error}")
    if error.transient != expect.transient:
        found.append(f"transient={error.transient}, expected {expect.transient}")
    hint = (error.hint or "").casefold()
    found += [f"the hint lacks {w!r}: {error.hint!r}" for w in expect.hint if w.casefold() not in hint]
    message = error.message.casefold()
    found += [
        f"the message lacks {w!r}: {error.message!r}" for w in expect.says if w.casefold() not in message
    ]
    shown = str(error)
    if len(shown) > MAX_MESSAGE:
        found.append(f"the message is {len(shown)} characters long (at most {MAX_MESSAGE})")
    said = reason(entry)
    if expect.quoted and said and len(said) <= REASON_MAX and said not in " ".join(shown.split()):
        found.append(f"the server's reason is not quoted whole: {said!r}")
    piece = _distinctive(entry)
    if piece is not None and " ".join(shown.split()).count(piece) > 1:
        found.append(f"the raw answer is quoted more than once: {piece!r}")
    return found
