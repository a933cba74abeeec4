"""Run a protocol face of the simulated device in background threads on 127.0.0.1.

:class:`BackgroundServer` wraps any ``socketserver`` server class: ``start()`` binds a free
loopback port (or the one given) and serves from a daemon thread; ``stop()`` closes the listening
socket and releases requests held by an injected hang, so a stopped face answers nothing and
refuses new connections, as a dead device server does.
"""

from __future__ import annotations

import socketserver
import threading
from types import TracebackType
from typing import Any, Generic, TypeVar

from .faults import FaultInjector

__all__ = ["BackgroundServer"]

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
        self.server = server
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
