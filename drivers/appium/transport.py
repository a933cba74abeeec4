"""The HTTP connections Appium-Python-Client's Selenium layer talks through, every reply bounded.

Selenium's ``RemoteConnection`` reads each reply whole through a urllib3 ``PoolManager``
(``_get_connection_manager``), with urllib3's timeout per socket read and no bound on the body.
:func:`bounded_pool_manager` is that pool manager with connection classes whose socket, once
connected (after TLS for ``https``), is a :class:`~drivers.bounded.BoundedSocket`: a reply must
arrive whole within the request's read timeout and hold at most
:data:`~drivers.bounded.MAX_REPLY_BYTES` (see :mod:`drivers.bounded`). urllib3 itself is unchanged.
"""

from __future__ import annotations

import socket
from typing import Any, cast

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from ..bounded import BoundedSocket

__all__ = ["bounded_pool_manager"]


def _bound(connection: HTTPConnection) -> None:
    if isinstance(connection.sock, socket.socket):
        what = f"the Appium server at {connection.host}:{connection.port}"
        connection.sock = cast(socket.socket, BoundedSocket(connection.sock, what=what))


class _BoundedHTTPConnection(HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _bound(self)


class _BoundedHTTPSConnection(HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _bound(self)


class _BoundedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _BoundedHTTPConnection


class _BoundedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _BoundedHTTPSConnection


def bounded_pool_manager(**options: Any) -> urllib3.PoolManager:
    """A ``urllib3.PoolManager(**options)`` whose connections bound every reply."""
    manager = urllib3.PoolManager(**options)
    manager.pool_classes_by_scheme = {"http": _BoundedHTTPPool, "https": _BoundedHTTPSPool}
    return manager
