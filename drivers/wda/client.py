"""facebook-wda's client as the harness uses it: :class:`WdaConfig`, the per-driver settings, and
:class:`TimedClient`, the client with this driver's own request timeout, one kept-alive connection
(:mod:`drivers.wda.http`) and none of facebook-wda's hidden error callbacks. :class:`WdaDriver
<drivers.wda.driver.WdaDriver>` makes every request through it. Nothing here does I/O at
construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import wda

from ..base import timeout_seconds
from .errors import json_wire_error
from .http import KeepAlive, decode

__all__ = ["TimedClient", "WdaConfig"]


@dataclass(frozen=True)
class WdaConfig:
    """Per-driver settings: ``timeout`` for each request, ``launch_timeout`` for an app to come to the
    front after a launch (polled every ``launch_poll_interval``), all in seconds."""

    timeout: float = 30.0
    launch_timeout: float = 10.0
    launch_poll_interval: float = 0.2

    def __post_init__(self) -> None:
        for name in ("timeout", "launch_timeout", "launch_poll_interval"):
            timeout_seconds(getattr(self, name), f"WdaConfig.{name}")


class TimedClient(wda.Client):  # type: ignore[misc]  # facebook-wda ships no type information
    """facebook-wda's client with a per-client request timeout, no error callbacks, and one kept-alive
    connection.

    Every request the client makes (including those it makes on its own, such as ``locked()``
    inside other calls) goes through ``_fetch``, which here sends it on this client's
    :class:`drivers.wda.http.KeepAlive` connection (facebook-wda opens a new one per request) with
    ``request_timeout`` unless the caller passed one, and reads the reply as facebook-wda does
    (:func:`drivers.wda.http.decode`). facebook-wda's ``ERROR`` callbacks (which renew the session
    and repeat calls) are removed and its request callbacks are not run: the driver renews a
    session itself, once.
    """

    def __init__(self, url: str, request_timeout: float) -> None:
        super().__init__(url)
        self.request_timeout = request_timeout
        self.base = url.rstrip("/")
        self.http_connection = KeepAlive(self.base)
        self.unregister_callback(wda.Callback.ERROR)

    def _fetch(
        self,
        method: str,
        urlpath: str,
        data: dict[str, Any] | None = None,
        with_session: bool = False,
        timeout: float | None = None,
    ) -> Any:
        path = "/" + urlpath.lstrip("/")
        parts = [self.base, "session", self.session_id, path] if with_session else [self.base, path]
        url = "/".join(part.strip("/") for part in parts)
        wait = self.request_timeout if timeout is None else timeout
        reply = decode(self.http_connection.fetch(method, url, data, wait), method, url, data)
        # facebook-wda fills in status 0 when a reply has none, and since 2020 ignores any other:
        # an archived WDA's error (HTTP 200, status != 0) would pass as a value.
        error = json_wire_error(
            reply.get("status") if isinstance(reply, dict) else None, getattr(reply, "value", None)
        )
        if error is not None:
            raise error
        return reply
