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

This is the one place where an adapter and the simulated device meet: a ``sim+<backend>`` spec
starts that backend's face (``amc.sim.wda_face``, ``adb_face``, ``appium_face``, which only serve)
and builds the real adapter against its URL or port, with a ``close()`` that stops the face. The
adapters never import ``amc.sim`` and the faces never import ``amc.drivers``.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import parse_qsl

from ..core.errors import ConfigError, HarnessError
from ..core.models import Platform
from .base import MAX_LATENCY, DeviceInfo, Driver
from .options import check_names, seconds, server_url

if TYPE_CHECKING:
    from ..sim.device import SimDevice, Timing
    from ..sim.faults import FaultInjector
    from .appium import AppiumDriver
    from .u2 import U2Driver
    from .wda import WdaDriver

__all__ = [
    "BACKENDS",
    "FACE_OPTIONS",
    "SPEC_FORMS",
    "check_spec",
    "connect",
    "discover",
    "parse_spec",
    "sim_timing",
]

log = logging.getLogger(__name__)
D = TypeVar("D", bound=Driver)

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
    "sim+wda": ".connect:_connect_wda_face",
    "sim+adb": ".connect:_connect_adb_face",
    "sim+appium": ".connect:_connect_appium_face",
}

# Backends asked by discover(): "module:function" returning a list of DeviceInfo.
DISCOVERERS: tuple[str, ...] = (".u2:discover_android", ".wda:discover_ios")

# Options every sim+<backend> spec takes, besides its adapter's own: the SimDevice to serve (else a
# fresh one named device_id), a shared FaultInjector, and seconds the face adds to every request.
FACE_OPTIONS: tuple[str, ...] = ("device", "device_id", "faults", "latency", "timing")


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


def check_spec(spec: str) -> tuple[str, str]:
    """``parse_spec`` plus the checks that need no device: a server URL's shape (IPv6 brackets, the
    scheme, a port from 1 to 65535) and a simulated spec's query, so a list of specs can be checked
    whole before the first is connected."""
    scheme, target = parse_spec(spec)
    if scheme == "appium" or (scheme == "ios" and "://" in target):
        what = "the Appium server URL" if scheme == "appium" else "the WebDriverAgent URL"
        schemes = ("http", "https") if scheme == "appium" else ("http", "https", "http+usbmux")
        try:
            server_url(target, what, schemes)
        except ConfigError as exc:
            raise _bad_spec(spec, exc.message) from exc
    elif scheme.startswith("sim"):
        _sim_query(spec, scheme, target, {})
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


def _sim_query(spec: str, scheme: str, target: str, options: dict[str, Any]) -> str:
    """A simulated spec's ``?timing=instant|realistic`` moved into ``options``; the target without it."""
    if not scheme.startswith("sim") or "?" not in target:
        return target
    target, _, query = target.partition("?")
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key != "timing":
            raise _bad_spec(spec, f"unknown query parameter {key!r} (the simulated device takes timing=)")
        if "timing" in options:
            raise _bad_spec(spec, "timing is given twice (in the spec and as an option)")
        options["timing"] = value
    return target


def sim_timing(options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Timing:
    """How the simulated device behaves in time: ``options['timing']`` (``instant``, ``realistic``
    or a ``Timing``), else ``$AMC_SIM_TIMING``, else realistic (screens take time, as on a phone)."""
    from ..sim.device import TIMINGS, Timing

    value = options.get("timing")
    where = "the timing option"
    if value is None:
        value = (os.environ if environ is None else environ).get("AMC_SIM_TIMING") or "realistic"
        where = "AMC_SIM_TIMING"
    if isinstance(value, Timing):
        return value
    if not isinstance(value, str) or value.strip().lower() not in TIMINGS:
        raise ConfigError(f"{where}={value!r} is not a timing", hint=f"use one of {', '.join(TIMINGS)}")
    return TIMINGS[value.strip().lower()]


def connect(spec: str, **options: Any) -> Driver:
    """Build and connect the driver ``spec`` names. Options go to the backend (e.g. ``timeout``);
    a simulated spec takes ``?timing=instant|realistic`` (see :func:`sim_timing`)."""
    scheme, target = parse_spec(spec)
    target = _sim_query(spec, scheme, target, options)
    builder = _resolve(BACKENDS[scheme])
    driver = builder(target, options)
    return driver  # type: ignore[no-any-return]


def _connect_sim(target: str, options: Mapping[str, Any]) -> Driver:
    from .simulated import SimDriver

    if target not in ("android", "ios"):
        raise _bad_spec(f"sim:{target}", "the simulated device is 'sim:android' or 'sim:ios'")
    from ..sim.device import SimDevice

    check_names("sim", options, ("latency", "device_id", "timing"))
    latency = seconds(options, "latency", 0.0, maximum=MAX_LATENCY)
    platform: Platform = "android" if target == "android" else "ios"
    device = SimDevice(platform, _device_id(options), timing=sim_timing(options))
    return SimDriver(platform, device=device, latency=latency)


class _Face(Protocol):
    """What composing needs of a face of the simulated device (``amc.sim.*_face``)."""

    @property
    def faults(self) -> FaultInjector: ...

    def start(self) -> Any: ...

    def stop(self) -> None: ...


def _device_id(options: Mapping[str, Any]) -> str | None:
    device_id = options.get("device_id")
    if device_id is not None and (not isinstance(device_id, str) or not device_id.strip()):
        raise ConfigError(f"option device_id={device_id!r} must be a non-empty string")
    return device_id


def _sim_device(spec: str, platform: Platform, options: Mapping[str, Any]) -> SimDevice:
    """The simulated device a face serves: ``options['device']``, or a fresh one."""
    from ..sim.device import SimDevice

    device = options.get("device")
    if device is None:
        return SimDevice(platform, _device_id(options), timing=sim_timing(options))
    if "timing" in options:
        raise ConfigError(f"option 'timing' for {spec} is the given device's own (SimDevice(timing=…))")
    if not isinstance(device, SimDevice) or device.platform != platform:
        raise ConfigError(f"option 'device' for {spec} must be a simulated {platform} device, got {device!r}")
    return device


def _fault_injector(options: Mapping[str, Any]) -> FaultInjector | None:
    from ..sim.faults import FaultInjector

    faults = options.get("faults")
    if faults is not None and not isinstance(faults, FaultInjector):
        raise ConfigError(f"option 'faults' must be a FaultInjector, got {type(faults).__name__}")
    return faults


def _serve(face: _Face, options: Mapping[str, Any], adapter: Callable[[Callable[[], None]], D]) -> D:
    """Start ``face`` and return ``adapter(face.stop)``: the real adapter, connected to the face,
    whose ``close()`` calls the callback it was given. The face stops if connecting fails."""
    face.faults.set_latency(seconds(options, "latency", 0.0, maximum=MAX_LATENCY))
    face.start()
    try:
        return adapter(face.stop)
    except BaseException:
        face.stop()
        raise


def _connect_wda_face(target: str, options: Mapping[str, Any]) -> WdaDriver:
    """``sim+wda:ios``: the simulated iPhone served over WebDriverAgent's HTTP protocol, driven by a
    connected ``WdaDriver`` (options: the face's, and the driver's ``timeout``, ``launch_timeout``)."""
    from ..sim.wda_face import WdaFace
    from .wda import WdaDriver

    if target != "ios":
        raise _bad_spec(f"sim+wda:{target}", "the WebDriverAgent face serves 'sim+wda:ios'")
    check_names("sim+wda", options, (*FACE_OPTIONS, "timeout", "launch_timeout"))
    device = _sim_device("sim+wda:ios", "ios", options)
    timeouts = {k: seconds(options, k, 0.0) for k in ("timeout", "launch_timeout") if k in options}
    face = WdaFace(device, faults=_fault_injector(options))

    def adapter(on_close: Callable[[], None]) -> WdaDriver:
        driver = WdaDriver.from_url(face.url, device_id=device.device_id, on_close=on_close, **timeouts)
        return driver.connect()

    return _serve(face, options, adapter)


def _connect_adb_face(target: str, options: Mapping[str, Any]) -> U2Driver:
    """``sim+adb:android``: the simulated phone behind an adb server (with the uiautomator2 server on
    it), driven by a connected ``U2Driver`` (options: the face's, and ``U2Config``'s)."""
    from ..sim.adb_face import AdbFace
    from .u2 import U2Config, U2Driver

    if target != "android":
        raise _bad_spec(f"sim+adb:{target}", "the adb face serves 'sim+adb:android'")
    config = U2Config.from_options(options, {}, also=frozenset(FACE_OPTIONS))
    device = _sim_device("sim+adb:android", "android", options)
    face = AdbFace([device], faults=_fault_injector(options))

    def adapter(on_close: Callable[[], None]) -> U2Driver:
        served = dataclasses.replace(config, adb_host=face.host, adb_port=face.port)
        return U2Driver(device.device_id, served, on_close=on_close).connect()

    return _serve(face, options, adapter)


def _connect_appium_face(target: str, options: Mapping[str, Any]) -> AppiumDriver:
    """``sim+appium:android|ios``: the simulated device behind an Appium 3 server's W3C protocol,
    driven by a connected ``AppiumDriver`` (options: the face's, and ``timeout``, ``launch_timeout``)."""
    from ..sim.appium_face import AppiumFace
    from .appium import AppiumDriver, options_for

    if target not in ("android", "ios"):
        raise _bad_spec(
            f"sim+appium:{target}", "the Appium face serves 'sim+appium:android' or 'sim+appium:ios'"
        )
    check_names("sim+appium", options, (*FACE_OPTIONS, "timeout", "launch_timeout"))
    platform: Platform = "android" if target == "android" else "ios"
    device = _sim_device(f"sim+appium:{target}", platform, options)
    timeout = seconds(options, "timeout", 30.0)
    launch_timeout = seconds(options, "launch_timeout", 5.0)
    face = AppiumFace(device, faults=_fault_injector(options))

    def adapter(on_close: Callable[[], None]) -> AppiumDriver:
        capabilities = options_for(platform, udid=device.device_id)
        driver = AppiumDriver(
            face.url, capabilities, timeout=timeout, launch_timeout=launch_timeout, on_close=on_close
        )
        driver.connect()
        return driver

    return _serve(face, options, adapter)


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
