"""Run a protocol face of the simulated device in background threads on 127.0.0.1.

:class:`BackgroundServer` wraps any ``socketserver`` server class: ``start()`` binds a free
loopback port (or the one given) and serves from a daemon thread; ``stop()`` closes the listening
socket and releases requests held by an injected hang, so a stopped face answers nothing and
refuses new connections, as a dead device server does.

Servers built on :class:`FaceServerMixIn` listen with the system's full backlog (``SOMAXCONN``,
as adb's server does: ``_network_loopback_server`` in adb's ``sysdeps/posix/network.cpp`` calls
``listen(s, SOMAXCONN)``; socketserver's default of 5 drops connection attempts when many clients
connect at once, and each dropped SYN costs the client a 1 s retransmission), count the
connections they accept (:attr:`BackgroundServer.connections`), and close the ones still open
(kept-alive HTTP connections) when the face stops, so a stopped face serves nothing on them.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import socketserver
import threading
from types import TracebackType
from typing import Any, Generic, TypeVar

from .faults import FaultInjector

__all__ = ["BackgroundServer", "FaceServerMixIn"]


class FaceServerMixIn:
    """A threading ``socketserver`` server (put first in the bases) with a full listen backlog,
    handler threads that are reused, counted connections, and a way to close the open ones (see
    the module docstring)."""

    request_queue_size = socket.SOMAXCONN

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.connections_accepted = 0
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Any, Any] | None] = queue.SimpleQueue()
        self._idle = 0
        self._closing = False
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Hand the connection to an idle handler thread, or start one when none is idle.

        socketserver's ThreadingMixIn starts a thread per connection, and ``Thread.start()`` waits
        until the new thread runs: with many busy threads (one per simulated phone) the accepting
        thread waits for the interpreter lock at every connection, and over adb every command and
        RPC is a new connection.
        """
        with self._open_lock:
            self._open.add(request)
            self.connections_accepted += 1
            reuse = self._idle > 0
            if reuse:
                self._idle -= 1
        if reuse:
            self._jobs.put((request, client_address))
            return
        worker = threading.Thread(
            target=self._work, args=((request, client_address),), name="sim-face-handler", daemon=True
        )
        worker.start()

    def _work(self, job: tuple[Any, Any] | None) -> None:
        while job is not None:
            request, client_address = job
            self.process_request_thread(request, client_address)  # type: ignore[attr-defined]
            with self._open_lock:
                if self._closing:
                    return
                self._idle += 1
            job = self._jobs.get()

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)  # type: ignore[misc]

    def close_connections(self) -> None:
        """Shut down every connection still open (their handlers see the end of the stream), and
        let the idle handler threads end."""
        with self._open_lock:
            live = list(self._open)
            idle, self._idle, self._closing = self._idle, 0, True
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for _ in range(idle):
            self._jobs.put(None)


S = TypeVar("S", bound=socketserver.BaseServer)


class BackgroundServer(Generic[S]):
    def __init__(
        self,
        server_class: type[S],
        handler_class: type[socketserver.BaseRequestHandler],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        faults: FaultInjector | None = None,
        **attributes: Any,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"simulated device faces bind loopback only, not {host!r}")
        self._server_class = server_class
        self._handler_class = handler_class
        self._address = (host, port)
        self._attributes = attributes
        self.faults = faults or FaultInjector()
        self.server: S | None = None
        self._last: S | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self.server is None:
            raise RuntimeError("server not started")
        address = self.server.server_address
        assert isinstance(address, tuple)
        return int(address[1])

    @property
    def host(self) -> str:
        return self._address[0]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self.server is not None

    @property
    def connections(self) -> int:
        """TCP connections this face accepted since it started (0 for a server without
        :class:`FaceServerMixIn`)."""
        server = self.server if self.server is not None else self._last
        return int(getattr(server, "connections_accepted", 0)) if server is not None else 0

    def start(self) -> BackgroundServer[S]:
        if self.server is not None:
            return self
        server = self._server_class(self._address, self._handler_class)
        if isinstance(server, socketserver.ThreadingMixIn):
            server.daemon_threads = True
        for name, value in self._attributes.items():
            setattr(server, name, value)
        server.faults = self.faults  # type: ignore[attr-defined]
        server.background = self  # type: ignore[attr-defined]
        self.server = self._last = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"sim-face-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket; held requests are released."""
        server, self.server = self.server, None
        self.faults.clear()
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if isinstance(server, FaceServerMixIn):
            server.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def stop_from_handler(self) -> None:
        """Stop from inside a request handler (``shutdown()`` would deadlock there)."""
        threading.Thread(target=self.stop, name="sim-face-stop", daemon=True).start()

    def __enter__(self) -> BackgroundServer[S]:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
