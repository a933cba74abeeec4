"""The HTTP client the ``openai`` client talks to a model server through: every reply bounded.

The ``openai`` client reads a reply over httpx with a timeout per socket read and no bound on its
size: a server that trickles its reply keeps ``amc agent --llm-timeout 5`` waiting as long as it
likes, and a 300 MB reply is read whole. :func:`bounded_client` is the ``http_client`` the planner
gives ``openai.OpenAI``: an ``httpx2.Client`` whose transport's connection pool (httpcore's, built
here with a network backend of our own, the one seam httpcore offers for it) reads every reply
within :class:`~amc.drivers.bounded.Exchange`'s bounds: whole within ``seconds`` from its first byte
read (the request's timeout as a deadline, not a wait per read), at most ``max_bytes`` long. Past the
deadline a read raises httpcore's ``ReadTimeout`` (the ``openai`` client's ``APITimeoutError``, a
recorded bad reply); past the size, ``ReplyTooLarge`` naming the limit (which the ``openai``
client wraps in ``APIConnectionError``; the planner reads it back, :mod:`amc.agent.llm`).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

from ..drivers.bounded import Exchange, ReplyDeadline

__all__ = ["MAX_MODEL_REPLY_BYTES", "bounded_client"]

# A chat completion with a tool call is a few kilobytes; a model server's reply holds one.
MAX_MODEL_REPLY_BYTES = 8 * 1024 * 1024


class _Stream(httpcore2.NetworkStream):
    """A connection to the model server, each reply on it bounded (see the module docstring)."""

    def __init__(self, inner: httpcore2.NetworkStream, seconds: float, max_bytes: int, what: str) -> None:
        self._inner, self._seconds, self._max_bytes, self._what = inner, seconds, max_bytes, what
        self._exchange = Exchange(what, max_bytes)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            wait = self._exchange.wait(self._seconds)
        except ReplyDeadline as exc:
            raise httpcore2.ReadTimeout(str(exc)) from exc
        assert wait is not None  # the exchange's seconds are given
        try:
            data = self._inner.read(max_bytes, wait if timeout is None else min(timeout, wait))
        except httpcore2.ReadTimeout as exc:
            error = self._exchange.timed_out(exc)
            raise httpcore2.ReadTimeout(str(error)) from exc
        self._exchange.received(len(data))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._exchange.sent()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, timeout)
        return _Stream(tls, self._seconds, self._max_bytes, self._what)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    def __init__(self, seconds: float, max_bytes: int, what: str) -> None:
        self._inner = httpcore2.SyncBackend()
        self._seconds, self._max_bytes, self._what = seconds, max_bytes, what

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        inner = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _Stream(inner, self._seconds, self._max_bytes, self._what)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        inner = self._inner.connect_unix_socket(path, timeout, socket_options)
        return _Stream(inner, self._seconds, self._max_bytes, self._what)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bounded_client(base_url: str, *, seconds: float, max_bytes: int = MAX_MODEL_REPLY_BYTES) -> httpx2.Client:
    """An ``httpx2.Client`` for the model server at ``base_url`` whose every reply arrives whole
    within ``seconds`` and holds at most ``max_bytes`` (see the module docstring)."""
    transport = httpx2.HTTPTransport()
    transport._pool = httpcore2.ConnectionPool(  # the seam: httpx's pool, our network backend
        ssl_context=httpx2.create_ssl_context(),
        max_connections=4,
        max_keepalive_connections=2,
        network_backend=_Backend(seconds, max_bytes, f"the model server at {base_url}"),
    )
    return httpx2.Client(transport=transport, timeout=seconds, follow_redirects=True)
