"""The uiautomator2 client as the harness builds it, and the settings that bound its waits.

:class:`HarnessU2Device` is ``uiautomator2.Device`` with one change of policy: one attempt per
RPC (the stock client restarts the server and repeats *any* call after an HTTP error, waiting up
to 10 s for the old server to die and 30 s for the new one) and a bounded server start.
:class:`U2Config` holds the address and the timeouts; :data:`PRESS_KEYS` the key names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import uiautomator2
import uiautomator2.exceptions as u2e
from uiautomator2.core import _jsonrpc_call

from ...core.errors import ConfigError
from ..base import timeout_seconds
from .adb import HarnessAdbDevice, adb_address

__all__ = ["PRESS_KEYS", "RESULTS", "HarnessU2Device", "U2Config"]

# Key names press() accepts: the names uiautomator2's pressKey knows.
PRESS_KEYS: frozenset[str] = frozenset(
    {
        "home",
        "back",
        "enter",
        "menu",
        "recent",
        "search",
        "delete",
        "left",
        "right",
        "up",
        "down",
        "center",
        "volume_up",
        "volume_down",
        "volume_mute",
        "camera",
        "power",
    }
)


@dataclass(frozen=True)
class U2Config:
    """How to reach the phone and how long to wait (seconds).

    ``timeout`` bounds every adb command and every RPC (uiautomator2's own default is 300 s);
    ``launch_timeout`` how long ``launch_app`` waits for the app to take focus, polling every
    ``launch_poll``; ``server_start_timeout`` how long a (re)started uiautomator2 server may take.
    """

    adb_host: str = "127.0.0.1"
    adb_port: int = 5037
    timeout: float = 30.0
    launch_timeout: float = 10.0
    launch_poll: float = 0.2
    server_start_timeout: float = 30.0
    server_port: int = 9008

    def __post_init__(self) -> None:
        for name in ("timeout", "launch_timeout", "launch_poll", "server_start_timeout"):
            timeout_seconds(getattr(self, name), f"U2Config.{name}")
        for name in ("adb_port", "server_port"):
            port = getattr(self, name)
            if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
                raise ConfigError(f"U2Config.{name} must be 1-65535, got {port!r}")
        if not isinstance(self.adb_host, str) or not self.adb_host.strip():
            raise ConfigError(f"U2Config.adb_host must be a host name or address, got {self.adb_host!r}")

    @classmethod
    def from_options(
        cls,
        options: Mapping[str, Any],
        environ: Mapping[str, str] | None = None,
        *,
        also: frozenset[str] = frozenset(),
    ) -> U2Config:
        """From ``connect()`` options (``adb_host``, ``adb_port``, ``timeout`` …) and the environment.

        Options that are neither fields nor in ``also`` (the caller's own) are a ``ConfigError``.
        """
        env = os.environ if environ is None else environ
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known - also)
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(unknown)} for the uiautomator2 driver; "
                f"accepted: {', '.join(sorted(known | also))}"
            )
        host, port = adb_address(env, options.get("adb_host"), options.get("adb_port"))
        values: dict[str, Any] = {"adb_host": host, "adb_port": port}
        for name in known - {"adb_host", "adb_port"}:
            if name in options and options[name] is not None:
                values[name] = options[name]
        return cls(**values)

    @property
    def address(self) -> str:
        return f"{self.adb_host}:{self.adb_port}"


# The JSON-RPC methods whose result uiautomator2 reads as a value (not only "it answered"), and
# the types it reads (the uiautomator2 server's JsonRpcServer answers; uiautomator2 3.7 calls them).
RESULTS: dict[str, tuple[type, ...]] = {
    "dumpWindowHierarchy": (str,),
    "takeScreenshot": (str, type(None)),  # None: uiautomator2 falls back to screencap
    "deviceInfo": (dict,),
    "getClipboard": (str, type(None)),
    "objInfo": (dict,),
    "objInfoOfAllInstances": (list,),
    "count": (int,),
    "exist": (bool,),
    "waitForExists": (bool,),
    "getText": (str,),
}


class HarnessU2Device(uiautomator2.Device):  # type: ignore[misc]
    """uiautomator2's Device with one attempt per RPC and a server start bounded by
    ``start_timeout``; :class:`~drivers.u2.U2Driver` decides about restarts and repeats.

    Building one does I/O (the jar check and a ping, and a server start when none answers).
    """

    def __init__(self, dev: HarnessAdbDevice, *, port: int, start_timeout: float) -> None:
        self._start_timeout = start_timeout
        self.last_rpc: str | None = None  # the JSON-RPC method called last (named in error messages)
        super().__init__(dev, port=port)

    def jsonrpc_call(self, method: str, params: Any = None, timeout: float = 10) -> Any:
        """One JSON-RPC call; an answer uiautomator2 cannot read (not UTF-8, an ``error`` that is not
        an object, a result of the wrong kind for :data:`RESULTS`) is its own ``RPCInvalidError``."""
        self.last_rpc = method
        try:
            result = _jsonrpc_call(self._dev, self._device_server_port, method, params, timeout, self._debug)
        except (UnicodeDecodeError, AttributeError, TypeError) as exc:
            # raised inside uiautomator2's reading of the reply (json.loads of bytes that are not
            # UTF-8, data['error'].get on an error that is not an object, `in` on a message that is
            # not text): the server's answer, not a bug of ours
            raise u2e.RPCInvalidError(
                f"the answer to {method} is not JSON-RPC uiautomator2 reads: {exc}"
            ) from exc
        expected = RESULTS.get(method)
        if expected is not None and not isinstance(result, expected):
            raise u2e.RPCInvalidError(
                f"the answer to {method} holds a {type(result).__name__} where uiautomator2 reads "
                + " or ".join(t.__name__ for t in expected)
            )
        return result

    def _wait_ready(self, launch_timeout: float = 30) -> None:
        self._wait_app_process_ready(self._start_timeout)
