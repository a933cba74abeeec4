"""The composition root for drivers: one string in, one connected ``Driver`` out.

Accepted specs (see :data:`SPEC_FORMS`):

- ``sim:android`` / ``sim:ios``: the simulated device, in process.
- ``android:SERIAL``: a phone or emulator through the adb server at
  ``$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT`` (as adb itself reads them).
- ``ios:http://HOST:PORT``: a running WebDriverAgent; ``ios:UDID``: a USB iPhone over usbmux.
- ``appium:http://HOST:PORT[/path]?platform=android|ios&…``: any Appium server or Selenium Grid.
- ``sim+wda:ios``, ``sim+adb:android``, ``sim+appium:android|ios``: the simulated device served
  over that backend's real protocol on 127.0.0.1, driven by the real adapter.

Backends are looked up in :data:`BACKENDS` and imported only when used, so a machine without
one client library can still use the others. Constructors do no I/O; ``connect`` does.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError, HarnessError
from ..core.models import Platform
from .base import Driver
from .options import check_names, seconds

__all__ = ["BACKENDS", "SPEC_FORMS", "DeviceInfo", "connect", "discover", "parse_spec"]

log = logging.getLogger(__name__)

SPEC_FORMS: tuple[str, ...] = (
    "sim:android",
    "sim:ios",
    "android:SERIAL",
    "ios:http://HOST:PORT",
    "ios:UDID",
    "appium:http://HOST:PORT?platform=android|ios",
    "sim+wda:ios",
    "sim+adb:android",
    "sim+appium:android",
    "sim+appium:ios",
)

# scheme -> "module:function", the module relative to this package; the function takes (target,
# options) and returns a connected Driver.
BACKENDS: dict[str, str] = {
    "sim": ".connect:_connect_sim",
    "android": ".u2:connect_spec",
    "ios": ".wda:connect_spec",
    "appium": ".appium:connect_spec",
    "sim+wda": "..sim.wda_face:connect_face",
    "sim+adb": "..sim.adb_face:connect_face",
    "sim+appium": "..sim.appium_face:connect_face",
}

# Backends asked by discover(): "module:function" returning a list of DeviceInfo.
DISCOVERERS: tuple[str, ...] = (".u2:discover_android", ".wda:discover_ios")


@dataclass(frozen=True)
class DeviceInfo:
    """An attached device as discovery sees it; ``spec`` is what ``connect`` takes."""

    spec: str
    platform: str
    backend: str
    state: str = "device"
    description: str = ""

    @property
    def usable(self) -> bool:
        return self.state == "device"

    def to_dict(self) -> dict[str, str]:
        return {
            "spec": self.spec,
            "platform": self.platform,
            "backend": self.backend,
            "state": self.state,
            "description": self.description,
        }


def _bad_spec(spec: object, why: str) -> ConfigError:
    shown = repr(spec)
    if len(shown) > 120:
        shown = f"{shown[:100]}… ({len(shown)} characters)"
    return ConfigError(
        f"bad device spec {shown}: {why}",
        hint="accepted forms: " + ", ".join(SPEC_FORMS),
    )


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``spec`` into (scheme, target), checking only its shape."""
    if not isinstance(spec, str):
        raise _bad_spec(spec, "it must be a string")
    text = spec.strip()
    if not text or len(text) > 2048 or any(ord(c) < 32 for c in text):
        raise _bad_spec(spec, "it is empty, too long or has control characters")
    scheme, sep, target = text.partition(":")
    if not sep or not target:
        raise _bad_spec(spec, "expected SCHEME:TARGET")
    scheme = scheme.lower()
    if scheme not in BACKENDS:
        raise _bad_spec(spec, f"unknown scheme {scheme!r}")
    return scheme, target


def _resolve(path: str) -> Callable[..., Any]:
    module_name, _, func_name = path.partition(":")
    try:
        module = importlib.import_module(module_name, __package__)
    except ImportError as exc:
        raise ConfigError(f"backend {module_name} is not available: {exc}") from exc
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ConfigError(f"backend {module_name} has no {func_name}()")
    return func  # type: ignore[no-any-return]


def connect(spec: str, **options: Any) -> Driver:
    """Build and connect the driver ``spec`` names. Options go to the backend (e.g. ``timeout``)."""
    scheme, target = parse_spec(spec)
    builder = _resolve(BACKENDS[scheme])
    driver = builder(target, options)
    return driver  # type: ignore[no-any-return]


def _connect_sim(target: str, options: Mapping[str, Any]) -> Driver:
    from .simulated import SimDriver

    if target not in ("android", "ios"):
        raise _bad_spec(f"sim:{target}", "the simulated device is 'sim:android' or 'sim:ios'")
    check_names("sim", options, ("latency", "device_id"))
    latency = seconds(options, "latency", 0.0, maximum=60.0)
    device_id = options.get("device_id")
    if device_id is not None and (not isinstance(device_id, str) or not device_id.strip()):
        raise ConfigError(f"option device_id={device_id!r} must be a non-empty string")
    platform: Platform = "android" if target == "android" else "ios"
    return SimDriver(platform, latency=latency, device_id=device_id)


def discover(environ: Mapping[str, str] | None = None) -> list[DeviceInfo]:
    """Every attached device each backend can see.

    A backend that cannot look (its client library missing, nothing answering) is skipped and
    logged; a malformed address in the environment (``ANDROID_ADB_SERVER_PORT=abc``, a bad
    ``WDA_URL``) is a ``ConfigError`` naming it, never mistaken for "no device attached".
    """
    env = os.environ if environ is None else environ
    found: list[DeviceInfo] = []
    for path in DISCOVERERS:
        try:
            finder = _resolve(path)
        except ConfigError as exc:
            log.info("discovery through %s unavailable: %s", path, exc)
            continue
        try:
            found.extend(finder(env))
        except ConfigError:
            raise
        except HarnessError as exc:
            log.info("discovery through %s skipped: %s", path, exc)
    return found
