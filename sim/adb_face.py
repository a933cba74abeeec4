"""An adb server on 127.0.0.1 in front of simulated phones, for adbutils and uiautomator2.

:class:`AdbFace` speaks the adb smart-socket protocol (4 hex digits of length + a request;
``OKAY`` or ``FAIL`` + hex length + message) as the real server does for what the clients send:

- ``host:version``, ``host:devices``, ``host:devices-l`` (every connection state adb names,
  :data:`ADB_STATES`, and ``no permissions (…); see […]``), ``host:kill`` (ignored),
  ``host:host-features`` (the server's features) and ``host:features`` (the phone's);
- as the adb server release it plays (``server``, one of :data:`sim.versions.ADB_SERVERS`): its
  version, its features, ``transport_id`` in the long listing from 40 on, and ``host:tport:``
  refused (``FAIL`` ``unknown host service``) before 41; a phone's adbd features go by its Android
  release (:func:`sim.versions.adbd_features`);
- ``host:tport:serial:S`` (``OKAY`` + 8-byte transport id), ``host:transport:S``,
  ``host:transport-id:N``, ``host:tport:any`` / ``host:transport-any``, then one device service;
- ``host-serial:S:features|get-state|get-serialno|get-devpath``;
- device services ``shell:CMD`` (see :mod:`sim.adb_shell`), ``shell,v2:CMD``,
  ``tcp:9008`` (the uiautomator2 server, :mod:`sim.u2_rpc`), ``tcp:PORT`` of a server running on
  the phone (``tcp:6790``: Appium's UiAutomator2 server, :mod:`sim.appium_u2_server`), ``sync:``
  (STAT, SEND, LIST, QUIT) for a push of the server jar, the streamed install ``abb_exec:package
  …install…`` / ``exec:cmd package install`` and ``am instrument -w`` (:mod:`sim.adb_install`);
- ``host:forward:…`` and the other forward queries on a socket already switched to a phone
  (``host:tport:serial:S``, then ``host:forward:tcp:8200;tcp:6790``), as adb 29's client sends them.

The launch command ``CLASSPATH=… app_process / com.wetest.uia2.Main -p 9008`` starts the
server, which lives as long as the stream that started it. Several serials can be served at
once; each one's adb state is settable (:meth:`AdbFace.set_state`). Every request is counted
per route through the shared :class:`~sim.faults.FaultInjector` (``adb:host:version``,
``adb:host:transport``, ``adb:shell:<program>``, ``adb:tcp:9008``, ``adb:sync``, ``adb:install``,
``adb:host-transport:<query>``, ``rpc:<method>``, and the Appium UiAutomator2 server's routes)
and may be made to misbehave. ``DIE`` on an ``adb:`` route stops the adb server (later
connections are refused); ``DIE`` on an ``rpc:`` route kills only the uiautomator2 server.

A phone's state picks its transport as adb's ``acquire_one_transport`` does (packages/modules/adb
``transport.cpp``, GrapheneOS mirror at 4d73d56): ``offline`` / ``unauthorized`` / ``authorizing``
/ ``connecting`` are refused with adb's own text, a ``no permissions`` phone is skipped (the error is
the long help text of ``diagnose_usb.cpp``), and the online states outside Android (``recovery``,
``sideload``, ``rescue``, ``bootloader``, ``host``) are switched to; their device services are not
simulated and are answered ``FAIL closed``, what the server sends when the device end closes a
stream unopened (``sockets.cpp``). A :class:`~sim.replay.Reply` under an ``adb:`` route name
(``adb:host:transport``, ``adb:host-serial:get-state``, ``adb:tcp:9008`` …) is answered as that
route's ``FAIL`` with the reply's body as the message; under ``adb:shell:app_process`` it is what
the uiautomator2 server prints before it exits at start (a crash).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.resources
import socket
import socketserver
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..core.errors import ConfigError
from .adb_files import FileEntry, PhoneFiles
from .adb_host import Forwards, framebuffer, host_misc, pipe, split_host_serial, track_devices
from .adb_install import install_service, run_instrument
from .adb_shell import EXIT_MARKER, AndroidShell, command_name, exec_command
from .adb_states import ADB_STATES, check_state, pick
from .adb_streams import stream_logcat, stream_script
from .adb_sync import serve_sync
from .adb_wire import block, device_listing, fail, okay, read_request, shell_v2_exit
from .appium_u2_server import DEVICE_PORT, TEST_PACKAGE, U2Instrumentation
from .device import SimDevice
from .faults import Answer, Fault, FaultInjector
from .replay import Reply, reset
from .server import BackgroundServer, FaceServerMixIn
from .u2_rpc import CRASH_AT_START_OUTPUT, U2Server
from .versions import DEFAULT_ADB, AdbServer, adbd_features

__all__ = [
    "ADB_STATES",
    "FEATURES",
    "SERVER_VERSION",
    "U2_JAR",
    "AdbFace",
    "AdbState",
    "Phone",
    "check_state",
]

AdbState = Literal["device", "offline", "unauthorized"]
U2_JAR = "/data/local/tmp/u2.jar"
U2_PORT = 9008
_HOST_SERVICES = frozenset(
    {
        "version",
        "devices",
        "devices-l",
        "kill",
        "track-devices",
        "list-forward",
        "killforward-all",
        "host-features",
        "features",
    }
)
# Today's adb server's version, and the features of the default phone's adbd (Android 14).
SERVER_VERSION = DEFAULT_ADB.version
FEATURES = ",".join(adbd_features(34))
# What adb's smart_socket_enqueue (sockets.cpp) answers a host service it does not know.
UNKNOWN_HOST_SERVICE = "unknown host service"


@functools.cache
def _u2_jar_entry() -> FileEntry:
    """The md5 and size of the u2.jar the installed uiautomator2 pushes (so no push is needed)."""
    try:
        data = (importlib.resources.files("uiautomator2") / "assets" / "u2.jar").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        data = b""
    return FileEntry(hashlib.md5(data).hexdigest(), len(data))


@dataclass
class Phone:
    """One serial on the face: the simulated device, its adb state, shell, files and u2 server."""

    device: SimDevice
    state: str
    transport_id: int
    shell: AndroidShell
    u2: U2Server
    # Where each device port served by a process on the phone listens now ("tcp:6790": the Appium
    # UiAutomator2 server while `am instrument` runs it), or None while nothing listens there.
    servers: dict[str, Callable[[], int | None]] = field(default_factory=dict)

    @property
    def serial(self) -> str:
        return self.device.device_id


class _AdbTcpServer(FaceServerMixIn, socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    face: AdbFace


class _AdbHandler(socketserver.BaseRequestHandler):
    server: _AdbTcpServer

    def handle(self) -> None:
        self.server.face.serve_connection(self.request)


class AdbFace:
    """An adb server for simulated phones on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        devices: Iterable[SimDevice] = (),
        *,
        faults: FaultInjector | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        u2_running: bool = True,
        u2_installed: bool = True,
        replies: dict[str, Reply] | None = None,
        server: AdbServer = DEFAULT_ADB,
    ) -> None:
        self.faults = faults or FaultInjector()
        # The adb server release played (sim.versions.ADB_SERVERS): its version, host services,
        # listing and features.
        self.server = server
        # Real outputs every phone's shell plays back (see sim.adb_shell.AndroidShell.replies).
        self.replies: dict[str, Reply] = replies if replies is not None else {}
        self._server: BackgroundServer[_AdbTcpServer] = BackgroundServer(
            _AdbTcpServer, _AdbHandler, host=host, port=port, faults=self.faults, face=self
        )
        self._lock = threading.Lock()
        self._phones: dict[str, Phone] = {}
        self._died: str | None = None  # "adb" or "rpc": the layer a DIE fault killed first
        self._u2_running = u2_running
        self._u2_installed = u2_installed
        self.stopped = threading.Event()
        self.forwards = Forwards(self)
        for device in devices:
            self.add_device(device)

    # --- phones -----------------------------------------------------------------------------

    def add_device(self, device: SimDevice, *, state: str = "device") -> Phone:
        """Serve ``device`` under its serial (``device.device_id``) in adb ``state``."""
        if device.platform != "android":
            raise ConfigError(f"the adb face serves Android devices, not {device.platform}")
        check_state(state)
        files = PhoneFiles({U2_JAR: _u2_jar_entry()} if self._u2_installed else {})
        with self._lock:
            if device.device_id in self._phones:
                raise ConfigError(f"serial {device.device_id} is already served")
            u2 = U2Server(
                device,
                faults=self.faults,
                decide=self.decide,
                running=self._u2_running,
                stopped=self.stopped,
                replies=self.replies,
            )
            shell = AndroidShell(device, files, self.replies)
            shell.server_pid = lambda: u2.pid if u2.running else None
            shell.on_server_kill = u2.exit
            appium_server = U2Instrumentation(device, self.faults, shell.properties)
            shell.apks.runners[TEST_PACKAGE] = appium_server
            phone = Phone(device, state, len(self._phones) + 1, shell, u2)
            phone.servers[f"tcp:{DEVICE_PORT}"] = appium_server.port
            self._phones[device.device_id] = phone
        return phone

    def set_state(self, serial: str, state: str) -> None:
        """What adb reports for ``serial`` from now on (see :func:`check_state`)."""
        self.phone(serial).state = check_state(state)

    def phone(self, serial: str) -> Phone:
        with self._lock:
            return self._phones[serial]

    @property
    def phones(self) -> tuple[Phone, ...]:
        with self._lock:
            return tuple(self._phones.values())

    # --- server lifecycle -------------------------------------------------------------------

    def start(self) -> AdbFace:
        self.stopped.clear()
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop listening (later connections are refused) and release every held request."""
        self.stopped.set()
        self.forwards.close_all()
        self._server.stop()

    @property
    def connections(self) -> int:
        """TCP connections this adb server accepted: one per host request, shell command or
        uiautomator2 RPC (adb serves one service per connection)."""
        return self._server.connections

    @property
    def running(self) -> bool:
        return self._server.running

    @property
    def host(self) -> str:
        return self._server.host

    @property
    def port(self) -> int:
        return self._server.port

    def __enter__(self) -> AdbFace:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- counting and faults ----------------------------------------------------------------

    def requests(self, prefix: str = "") -> int:
        """Requests served on routes starting with ``prefix`` (all when empty); exact routes:
        ``faults.count(route, ...)``."""
        routes = [r for r in list(self.faults.counts) if r.startswith(prefix)]
        return self.faults.count(*routes) if routes else 0

    def decide(self, route: str) -> Fault:
        """Count ``route`` and return the fault to act out; a DIE kills only the layer it hit."""
        fault = self.faults.on_request(route)
        if fault is not Fault.DIE:
            return fault
        layer = "rpc" if route.startswith("rpc:") else "adb"
        with self._lock:
            if self._died is None:
                self._died = layer
            died = self._died
        if died == "rpc" and layer == "adb":
            return Fault.NONE  # the uiautomator2 server died; adb itself still answers
        return Fault.DIE

    def _act(self, sock: socket.socket, fault: Fault) -> bool:
        """Act out an adb-level fault; True when the request is finished (nothing more to send)."""
        if fault is Fault.RESET:
            reset(sock)
            return True
        if fault is Fault.HANG:
            while not self.faults.wait_released(0.2) and not self.stopped.is_set():
                pass
            return True
        if fault is Fault.DROP:
            return True
        if fault is Fault.DIE:
            self.stop()  # a threading server can be shut down from a handler thread
            return True
        if fault is Fault.MALFORMED:
            sock.sendall(b"WHAT")
            return True
        return False

    # --- one client connection --------------------------------------------------------------

    def serve_connection(self, sock: socket.socket) -> None:
        """Serve host requests, then at most one device service after a transport switch."""
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as adb's own sockets
            request = read_request(sock)
            phone = self._host_request(sock, request) if request is not None else None
            if phone is None:
                return
            request = read_request(sock)
            if request is not None:
                self._device_request(sock, phone, request)
        except OSError:
            return

    def _route_fault(self, sock: socket.socket, route: str, empty: bytes) -> bool:
        fault = self.decide(route)
        starts = route.endswith(":app_process")
        if starts and fault is Fault.NONE and any(p.u2.crash_on_start for p in self.phones):
            fault = Fault.CRASH_AT_START  # the server crashed at start before and still does
        if fault is Fault.CRASH_AT_START and starts:
            sock.sendall(b"OKAY" + CRASH_AT_START_OUTPUT)
            return True
        if self._act(sock, fault):
            return True
        if fault is Fault.EMPTY:
            sock.sendall(empty)
            return True
        replayed = self.replies.get(route)
        if replayed is not None and not route.startswith("adb:shell"):
            sock.sendall(fail(replayed.body.decode("utf-8", errors="replace")))
            return True
        return False

    def _host_request(self, sock: socket.socket, request: str) -> Phone | None:
        """Answer one host request; the chosen phone when it switched the transport, else None."""
        if request.startswith("host-serial:") or request.startswith("host-transport-id:"):
            self._host_serial(sock, request)
            return None
        service = request.removeprefix("host:") if request.startswith("host:") else None
        if service is None:
            self.decide("adb:unknown")
            sock.sendall(fail(f"unknown host service '{request[:80]}'"))
            return None
        if service.startswith("tport:") and not self.server.has_tport:
            self.decide("adb:unknown")  # before ADB_SERVER_VERSION 41 (see sim.versions)
            sock.sendall(fail(UNKNOWN_HOST_SERVICE))
            return None
        if service.startswith(("tport:", "transport")):
            return self._transport(sock, service)
        if service.startswith(("disconnect:", "wait-for-")):
            host_misc(self, sock, None, service)
            return None
        if service not in _HOST_SERVICES:
            self.decide("adb:unknown")
            sock.sendall(fail(f"unknown host service '{service[:80]}'"))
            return None
        if self._route_fault(sock, f"adb:host:{service}", okay("")):
            return None
        route = f"adb:host:{service}"
        if service == "version":
            self._answer(sock, route, okay(f"{self.server.version:04x}"))
        elif service == "host-features":
            self._answer(sock, route, okay(",".join(self.server.features)))
        elif service == "features":  # host:features: the one device's, as host-serial:S:features
            phone, error = self._select(None, None)
            self._answer(sock, route, okay(self._features(phone)) if phone is not None else fail(error))
        elif service == "kill":
            sock.sendall(b"OKAY")
        elif service == "list-forward":
            sock.sendall(okay(self.forwards.listing(None)))
        elif service == "killforward-all":
            self.forwards.kill(None)
            sock.sendall(b"OKAY")
        elif service == "track-devices":
            track_devices(self, sock)
        else:
            self._answer(sock, route, okay(self.listing(long=service == "devices-l")))
        return None

    def _answer(self, sock: socket.socket, route: str, data: bytes) -> None:
        """Send a host service's whole reply, as the fault injector's rewrite (the wire fuzz) makes it."""
        sock.sendall(self.faults.rewritten(Answer(route, data)).body)

    def listing(self, *, long: bool) -> str:
        """``host:devices`` (``long``: ``host:devices-l``) for the phones served."""
        return device_listing(self.phones, long=long, transport_id=self.server.lists_transport_id)

    def _features(self, phone: Phone) -> str:
        """What the phone's adbd lists (its Android release's, sim.versions.adbd_features)."""
        profile = phone.device.profile
        api = getattr(profile, "api", 34)
        return ",".join(adbd_features(api))

    def _select(self, serial: str | None, transport_id: int | None) -> tuple[Phone | None, str]:
        """The phone a transport request picks, or adb's error text (see :func:`sim.adb_states.pick`)."""
        return pick(self.phones, serial, transport_id)

    def _transport(self, sock: socket.socket, service: str) -> Phone | None:
        if self._route_fault(sock, "adb:host:transport", b"OKAY"):
            return None
        serial: str | None = None
        transport_id: int | None = None
        if service.startswith("tport:serial:"):
            serial = service.removeprefix("tport:serial:")
        elif service.startswith("transport:"):
            serial = service.removeprefix("transport:")
        elif service.startswith("transport-id:"):
            try:
                transport_id = int(service.removeprefix("transport-id:"))
            except ValueError:
                sock.sendall(fail("invalid transport id"))
                return None
        elif service not in ("tport:any", "transport-any", "tport:usb", "transport-usb"):
            sock.sendall(fail(f"unknown host service '{service[:80]}'"))
            return None
        phone, error = self._select(serial, transport_id)
        if phone is None:
            sock.sendall(fail(error))
            return None
        reply = b"OKAY" + (struct.pack("<Q", phone.transport_id) if service.startswith("tport:") else b"")
        rewritten = self.faults.rewritten(Answer("adb:host:transport", reply)).body
        sock.sendall(rewritten)
        return phone if rewritten == reply else None

    def _host_serial(self, sock: socket.socket, request: str) -> None:
        prefix, _, rest = request.partition(":")
        if prefix == "host-serial":
            target, query = split_host_serial(rest)
        else:
            target, _, query = rest.partition(":")
        if prefix == "host-serial" and host_misc(self, sock, target, query):
            return
        route = f"adb:{prefix}:{query.split(':', 1)[0]}"
        if self._route_fault(sock, route, okay("")):
            return
        if prefix == "host-serial":
            phone, error = self._select(target, None)
        else:
            try:
                phone, error = self._select(None, int(target))
            except ValueError:
                sock.sendall(fail("invalid transport id"))
                return
        if phone is None:
            sock.sendall(fail(error))
            return
        self._serial_query(sock, phone, query, route)

    def _serial_query(self, sock: socket.socket, phone: Phone, query: str, route: str) -> None:
        """A host query about one phone: after ``host-serial:S:`` or, on a socket switched to the
        phone's transport (``host:tport:serial:S``, as adb 29's client sends ``forward``), after
        ``host:``."""
        answers = {
            "features": self._features(phone),
            "get-state": phone.state,
            "get-serialno": phone.serial,
            "get-devpath": "unknown",
        }
        if query == "list-forward":
            sock.sendall(okay(self.forwards.listing(phone.serial)))
            return
        if query.startswith("forward:"):
            ok, answer = self.forwards.add(phone, query.removeprefix("forward:"))
            sock.sendall(b"OKAY" + (b"OKAY" + (block(answer) if answer else b"") if ok else fail(answer)))
            return
        if query.startswith("killforward"):
            local = query.removeprefix("killforward:") if query.startswith("killforward:") else None
            found = self.forwards.kill(local)
            # OKAY for the host request, OKAY for the removal (adb.cpp handle_forward_request);
            # adb's client reads both (adb_command: adb_connect, then adb_status)
            sock.sendall(b"OKAYOKAY" if found else fail(f"listener '{local}' not found"))
            return
        if query not in answers:
            sock.sendall(fail(f"unknown host service '{query[:80]}'"))
            return
        self._answer(sock, route, okay(answers[query]))

    # --- device services --------------------------------------------------------------------

    def _device_request(self, sock: socket.socket, phone: Phone, request: str) -> None:
        if request.startswith("host:"):
            query = request.removeprefix("host:")
            route = f"adb:host-transport:{query.split(':', 1)[0]}"
            self.decide(route)
            self._serial_query(sock, phone, query, route)
            return
        if phone.state != "device":
            # A transport outside Android: adbd there is not simulated (see the module docstring).
            self.decide("adb:unknown")
            refusal = "device offline (transport offline)" if phone.state == "detached" else "closed"
            sock.sendall(fail(refusal))
            return
        if request.startswith("shell:") or request.startswith("shell,"):
            options, _, command = request.partition(":")
            self._shell(sock, phone, command, v2="v2" in options.split(","))
        elif request.startswith("tcp:"):
            port = request.removeprefix("tcp:").split(":", 1)[0]
            if self._route_fault(sock, f"adb:tcp:{port}", b"OKAY"):
                return
            listening = phone.servers.get(f"tcp:{port}", lambda: None)()
            if listening is not None:
                sock.sendall(b"OKAY")
                pipe(sock, listening, self.stopped)
                return
            if port != str(U2_PORT) or not phone.u2.running:
                sock.sendall(fail("closed"))
                return
            sock.sendall(b"OKAY")
            phone.u2.serve(sock)
        elif request.startswith(("abb_exec:", "exec:cmd package install")):
            if self._route_fault(sock, "adb:install", b"OKAY"):
                return
            install_service(sock, phone.shell.apks, request)
        elif request == "sync:":
            if self._route_fault(sock, "adb:sync", b"OKAY"):
                return
            sock.sendall(b"OKAY")
            serve_sync(sock, phone.shell.files)
        elif request.startswith("reverse:"):
            self.decide("adb:reverse")
            ok, listing = self.forwards.reverse_command(phone, request.removeprefix("reverse:"))
            if not ok:
                sock.sendall(b"OKAY" + fail(listing or "error"))
            elif listing is not None:
                sock.sendall(b"OKAY" + okay(listing)[4:])
            else:
                sock.sendall(b"OKAYOKAY")
        elif request == "framebuffer:":
            if self._route_fault(sock, "adb:framebuffer", b"OKAY"):
                return
            sock.sendall(b"OKAY" + framebuffer(phone))
        else:
            self.decide("adb:unknown")
            sock.sendall(fail("closed"))

    def _shell(self, sock: socket.socket, phone: Phone, command: str, *, v2: bool) -> None:
        command = exec_command(command)
        name = command_name(command) if command.strip() else "sh"
        kind = "shell,v2" if v2 else "shell"
        if self._route_fault(sock, f"adb:{kind}:{name}", b"OKAY"):
            return
        if not command.strip():
            sock.sendall(fail("closed"))  # an interactive shell is not simulated
            return
        if name == "app_process":
            crash = self.replies.get("adb:shell:app_process")
            if crash is not None:  # a server that prints this and exits at start (a played-back crash)
                sock.sendall(b"OKAY" + crash.body)
                return
            phone.u2.run_on(sock)
            return
        argv = command.split()
        if name == "am" and argv[1:2] == ["instrument"]:
            sock.sendall(b"OKAY")
            printed = run_instrument(sock, phone.shell.apks, argv, self.stopped)
            with contextlib.suppress(OSError):
                sock.sendall(shell_v2_exit(printed, 0) if v2 else printed)
            return
        if name == "logcat" and not {"-d", "-c", "--clear"} & set(command.split()):
            stream_logcat(sock, phone.shell, self.stopped, v2=v2)
            return
        if name == "sh" and command.split()[1:2] and not command.split()[1].startswith("-"):
            stream_script(sock, phone.shell, command, self.stopped)
            return
        sock.sendall(b"OKAY")  # adbd accepts the stream before the command runs
        result = phone.shell.run(command)
        said = self.faults.rewritten(Answer(f"adb:{kind}:{name}", result.output)).body
        if not v2:
            sock.sendall(said)
            return
        output = said
        if command.endswith(EXIT_MARKER):
            output = output[: output.rfind(b"X4EXIT:")]
        sock.sendall(shell_v2_exit(output, result.code))
