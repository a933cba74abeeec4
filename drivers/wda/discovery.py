"""Finding iPhones for ``drivers.connect.discover``: usbmuxd's device list and a WDA at ``$WDA_URL``.

Both look-ups are bounded: where there is no usbmuxd socket nothing is asked; usbmuxd is asked from
a daemon thread that is given :data:`_PROBE_TIMEOUT` seconds (its client sets no socket timeout of its
own, so a stuck usbmuxd would otherwise stall discovery); ``$WDA_URL`` gets one ``GET /status`` with
that timeout. A device that does not answer is logged and left out, never raised.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from wda.usbmux.pyusbmux import list_devices

from ...core.errors import ConfigError, HarnessError
from ..base import DeviceInfo
from .driver import WdaDriver

__all__ = ["discover"]

log = logging.getLogger(__name__)

_USBMUXD_SOCKET = "/var/run/usbmuxd"
_PROBE_TIMEOUT = 2.0


def _usbmux_devices(env: Mapping[str, str]) -> list[DeviceInfo]:
    address = env.get("USBMUXD_SOCKET_ADDRESS") or None
    if address is None and not os.path.exists(_USBMUXD_SOCKET):
        log.debug("no usbmuxd socket at %s: no USB iPhones to list", _USBMUXD_SOCKET)
        return []
    found: list[Any] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            found.extend(list_devices(usbmux_address=address))
        except Exception as exc:  # noqa: BLE001 - reported below, whatever usbmuxd did
            errors.append(exc)

    worker = threading.Thread(target=ask, name="usbmux-list", daemon=True)
    worker.start()
    worker.join(_PROBE_TIMEOUT)  # usbmuxd answers in milliseconds; a stuck one must not stall discovery
    if worker.is_alive() or errors:
        log.info(
            "usbmuxd did not list devices: %s", errors[0] if errors else f"no answer in {_PROBE_TIMEOUT:g} s"
        )
        return []
    devices: dict[str, DeviceInfo] = {}
    for dev in found:
        serial = str(getattr(dev, "serial", ""))
        kind = str(getattr(dev, "connection_type", "USB"))
        if serial and (serial not in devices or kind == "USB"):
            devices[serial] = DeviceInfo(
                spec=f"ios:{serial}",
                platform="ios",
                backend="wda",
                description=f"iPhone over {kind} (usbmuxd)",
            )
    return list(devices.values())


def _probe_url(url: str) -> DeviceInfo | None:
    try:
        status = WdaDriver.from_url(url, timeout=_PROBE_TIMEOUT).status()
    except ConfigError as exc:
        raise ConfigError(
            f"WDA_URL={url!r} is not a usable WebDriverAgent address: {exc.message}",
            hint="set it like http://127.0.0.1:8100",
        ) from exc
    except HarnessError as exc:
        log.info("no WebDriverAgent answers at $WDA_URL %s: %s", url, exc)
        return None
    os_info = status.get("os")
    version = os_info.get("version", "?") if isinstance(os_info, dict) else "?"
    return DeviceInfo(
        spec=f"ios:{url}",
        platform="ios",
        backend="wda",
        description=f"WebDriverAgent at {url} (iOS {version}, {status.get('device', 'iphone')})",
    )


def discover(env: Mapping[str, str]) -> list[DeviceInfo]:
    """iPhones usbmuxd lists (none, quickly, where there is no usbmuxd) and the WDA at ``$WDA_URL``
    when it answers ``/status`` within two seconds. Never raises for a device that does not answer."""
    found = _usbmux_devices(env)
    url = env.get("WDA_URL")
    if url:
        info = _probe_url(url)
        if info is not None:
            found.append(info)
    return found
