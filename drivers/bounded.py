"""Every reply from a device server bounded in total time and in size, under the client libraries.

The clients the adapters drive read a reply with a timeout per socket read and no bound on its
length: a WebDriverAgent whose ``/source`` trickles a byte a second, or sends chunks forever, keeps a
30 s request going for as long as it likes, and a 200 MB body is held whole (several times over,
as bytes, text and parsed JSON). The seam all of them share is the socket: facebook-wda's and the
harness's ``http.client`` connections (:mod:`drivers.wda.http`), adbutils' connections, on which
uiautomator2's JSON-RPC also travels (:mod:`drivers.u2.adb`), and urllib3's connections, which
Appium-Python-Client's Selenium layer uses (:mod:`drivers.appium.driver`). Each adapter hands its
client a :class:`BoundedSocket` instead of the socket it opened; nothing in those libraries changes.

A :class:`BoundedSocket` sees one *exchange* at a time: what the harness sends, then what comes back.
The reply's bounds start with its first read: it must arrive whole within the timeout the client
set on the socket (now a deadline for the whole reply, not a wait per read: every read waits at most
what is left of it) and hold at most ``max_bytes`` bytes. Past the deadline a read raises
:class:`ReplyDeadline` (a ``TimeoutError``, which every client and error table already reads as a
timeout: ``DeviceTimeout`` naming the seconds); past the size it raises
:class:`~amc.core.errors.ReplyTooLarge` naming the limit, which passes the clients untouched. The
next send starts a new exchange. :class:`Exchange` is that rule alone, for other transports (the
model server's client in :mod:`amc.agent.bounded_http` uses it too).

While the calling thread has a stop request in force (:mod:`amc.core.stop`: the loop's Ctrl-C), a
:class:`BoundedSocket` sends nothing once it is set, and waits for a reply in slices of
:data:`~amc.core.stop.POLL` seconds: once it is set, the socket is shut down (what the device still
sends is never read as the answer to another request) and :class:`~amc.core.errors.Interrupted` says
the request may have reached the device. The clients pass it on untouched (it is neither an
``OSError`` nor a timeout, which some of them would retry); the step is recorded ``interrupted``.
"""

from __future__ import annotations

import contextlib
import io
import select
import socket
import time
from typing import Any

from ..core import stop
from ..core.errors import Interrupted, ReplyTooLarge

__all__ = ["MAX_REPLY_BYTES", "BoundedSocket", "Exchange", "ReplyDeadline"]

# The most one reply from a device server may hold: a page source of a 20,000-element screen is a
# few MB, a 2732x2048 screenshot in base64 about 10 MB.
MAX_REPLY_BYTES = 64 * 1024 * 1024


class ReplyDeadline(TimeoutError):
    """A reply did not arrive whole within its deadline (``seconds``)."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(
            f"{what} did not send its whole reply within {seconds:g} s "
            "(a reply is bounded in total time, not per read)"
        )
        self.seconds = seconds


class Exchange:
    """The bounds of one exchange on a connection (see the module docstring): call :meth:`sent`
    when the harness sends, :meth:`wait` before each read (the seconds that read may take) and
    :meth:`received` after it."""

    def __init__(self, what: str, max_bytes: int | None) -> None:
        self.what = what
        self.max_bytes = max_bytes
        self._deadline: float | None = None
        self._seconds: float | None = None
        self._received = 0
        self._reading = False
        self._bounded = True

    def sent(self) -> None:
        """The harness sent something: the next read starts a new reply."""
        self._reading = False

    def unbounded(self) -> None:
        """From now on nothing bounds this connection (a stream meant to last, such as a server's
        own output)."""
        self._bounded = False

    def wait(self, timeout: float | None) -> float | None:
        """How long the next read may wait, with ``timeout`` the client's wait per read: what is left
        of the reply's deadline (armed by the reply's first read at ``timeout`` seconds). Raises
        :class:`ReplyDeadline` once it has passed."""
        if not self._bounded:
            return timeout
        now = time.monotonic()
        if not self._reading:
            self._reading, self._received = True, 0
            self._seconds = timeout
            self._deadline = None if timeout is None else now + timeout
        if self._deadline is None:
            return timeout
        left = self._deadline - now
        if left <= 0:
            raise ReplyDeadline(self.what, self._seconds or 0.0)
        return left if timeout is None else min(timeout, left)

    def timed_out(self, exc: BaseException) -> BaseException:
        """The error for a read that timed out: :class:`ReplyDeadline` when the deadline is what ran
        out, else ``exc`` as it was."""
        if self._bounded and self._deadline is not None and time.monotonic() >= self._deadline - 0.001:
            error = ReplyDeadline(self.what, self._seconds or 0.0)
            error.__cause__ = exc
            return error
        return exc

    def received(self, count: int) -> None:
        """``count`` bytes of the reply came in; raises ``ReplyTooLarge`` past ``max_bytes``."""
        if not self._bounded or self.max_bytes is None:
            return
        self._received += count
        if self._received > self.max_bytes:
            raise ReplyTooLarge(
                f"{self.what} sent a reply of more than {self.max_bytes} bytes; "
                f"the harness reads at most {self.max_bytes} bytes of one reply",
                limit=self.max_bytes,
                hint="no reply the harness asks for is that large: check the server",
            )


class _Reader(io.RawIOBase):
    """The bytes of a :class:`BoundedSocket` as ``makefile('rb')`` gives them (what ``http.client``
    reads a reply through), each read bounded by the socket's exchange."""

    def __init__(self, owner: BoundedSocket, raw: Any) -> None:
        super().__init__()
        self._owner = owner
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        count: int | None = self._owner.read(lambda: self._raw.readinto(buffer))
        return count

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class BoundedSocket:
    """``sock`` with every reply bounded (see the module docstring); anything else is ``sock``'s."""

    def __init__(self, sock: socket.socket, *, what: str, max_bytes: int | None = MAX_REPLY_BYTES) -> None:
        self._sock = sock
        self._timeout = sock.gettimeout()
        self.exchange = Exchange(what, max_bytes)

    # --- sending starts an exchange -----------------------------------------------------------

    def send(self, data: Any, *flags: int) -> int:
        stop.check(f"before a request to {self.exchange.what} (it was not sent)")
        self.exchange.sent()
        sent: int = self._sock.send(data, *flags)
        return sent

    def sendall(self, data: Any, *flags: int) -> None:
        stop.check(f"before a request to {self.exchange.what} (it was not sent)")
        self.exchange.sent()
        self._sock.sendall(data, *flags)

    # --- reading is bounded --------------------------------------------------------------------

    def read(self, read: Any) -> Any:
        """Run ``read()`` (one socket read) within the exchange's bounds."""
        wait = self.exchange.wait(self._timeout)
        if self._await(wait):
            wait = self.exchange.wait(self._timeout)  # what is left of the deadline after waiting
        self._sock.settimeout(wait)
        try:
            data = read()
        except TimeoutError as exc:
            raise self.exchange.timed_out(exc) from exc
        self.exchange.received(data if isinstance(data, int) else len(data or b""))
        return data

    def _await(self, wait: float | None) -> bool:
        """With a stop request in force, wait for the reply's next bytes in slices, up to ``wait``
        seconds (then the read itself times out as it always has); ``Interrupted`` once it is set.
        True when it waited (the deadline is then to be read again)."""
        request = stop.current()
        if request is None:
            return False
        pending = getattr(self._sock, "pending", None)  # TLS: bytes already decrypted, not in the kernel
        if pending is not None and pending():
            return False
        end = None if wait is None else time.monotonic() + wait
        poller = select.poll()
        try:
            poller.register(self._sock, select.POLLIN | select.POLLPRI)
        except (OSError, ValueError):  # closed: the read says so
            return False
        while True:
            if request.is_set():
                self._abandon()
                raise Interrupted(
                    f"{request.reason} while waiting for the reply of {self.exchange.what} "
                    "(the request may have reached it: it is not sent again)"
                )
            left = stop.POLL if end is None else min(stop.POLL, end - time.monotonic())
            if left <= 0 or poller.poll(max(1, round(left * 1000))):
                return True

    def _abandon(self) -> None:
        """Shut the connection down: the reply still under way is never read as another's."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)

    def recv(self, size: int, *flags: int) -> bytes:
        data: bytes = self.read(lambda: self._sock.recv(size, *flags))
        return data

    def recv_into(self, buffer: Any, size: int = 0, *flags: int) -> int:
        count: int = self.read(lambda: self._sock.recv_into(buffer, size, *flags))
        return count

    def makefile(self, mode: str = "r", buffering: int | None = None, **options: Any) -> Any:
        if mode.replace("b", "") != "r" or "b" not in mode:
            return self._sock.makefile(mode, buffering, **options)  # type: ignore[call-overload]
        reader = _Reader(self, self._sock.makefile("rb", buffering=0))
        return reader if buffering == 0 else io.BufferedReader(reader)

    # --- the rest is the socket's ---------------------------------------------------------------

    def settimeout(self, timeout: float | None) -> None:
        """The client's wait per read, which bounds each reply as a whole from now on."""
        self._timeout = timeout
        self._sock.settimeout(timeout)

    def gettimeout(self) -> float | None:
        return self._timeout

    def unbounded(self) -> None:
        """No bound on this connection from now on (see :meth:`Exchange.unbounded`)."""
        self.exchange.unbounded()

    @property
    def raw(self) -> socket.socket:
        return self._sock

    def __getattr__(self, name: str) -> Any:  # fileno, close, shutdown, setsockopt, family …
        return getattr(self._sock, name)
