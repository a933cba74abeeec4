"""The composition root for drivers: one string in, one connected ``Driver`` out.

Accepted specs (see :data:`SPEC_FORMS`):

- ``sim:android`` / ``sim:ios``: the simulated device, in process.
- ``android:SERIAL``: a phone or emulator through the adb server at
  ``$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT`` (as adb itself reads them).
- ``ios:http://HOST:PORT``: a running WebDriverAgent; ``ios:UDID``: a USB iPhone over usbmux.
- ``appium:http://HOST:PORT[/path]?platform=android|ios&…``: any Appium server or Selenium Grid.
- ``sim+wda:ios``, ``sim+adb:android``, ``sim+appium:android|ios``: the simulated device served
  over that backend's real protocol on 127.0.0.1, driven by the real adapter.

A simulated device plays a version profile named in the spec's query (:data:`SIM_QUERY`):
``sim:android?api=31`` (29, 31, 33, 34, 35; default 34; ``oem=miui`` … draws a skin's own
prompts: :data:`amc.sim.profiles.ANDROID_OEMS`), ``sim:ios?ios=17&wda=5`` (ios 15, 17, 18;
wda 4, 5, 9, 10; default ``ios=18&wda=10``; ``kind=simulator|device``: an iOS Simulator, the
default, or a physical iPhone, :mod:`amc.drivers.kinds`), the same on ``sim+adb:``, ``sim+wda:`` and
``sim+appium:``; ``sim+adb:android?adb=29`` also names the adb server's release
(:data:`amc.sim.versions.ADB_SERVERS`: 27, 28, 29, 34, 35; default 35);
``timing=instant|realistic`` says how it behaves in time (:func:`sim_timing`), ``locked=true``
starts it locked (``amc.sim.covers``; a WebDriverAgent driver then refuses to connect, as it does
to a locked iPhone) and ``id=NAME`` names the device. The query is parsed strictly: an unknown,
repeated or empty key and an unknown value are a ``ConfigError`` naming it.

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
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..core.config import parse_bool
from ..core.errors import ConfigError, HarnessError
from ..core.models import Platform
from .base import MAX_LATENCY, DeviceInfo, Driver
from .options import check_names, seconds, server_url

if TYPE_CHECKING:
    from ..sim.device import SimDevice, Timing
    from ..sim.faults import FaultInjector
    from ..sim.profiles import AndroidProfile, IosProfile
    from .appium import AppiumDriver
    from .u2 import U2Driver
    from .wda import WdaDriver
    from .wda.simctl import Simctl

__all__ = [
    "BACKENDS",
    "FACE_OPTIONS",
    "SIM_QUERY",
    "SPEC_FORMS",
    "SimTarget",
    "check_spec",
    "connect",
    "discover",
    "parse_sim_target",
    "parse_spec",
    "sim_timing",
]

log = logging.getLogger(__name__)
D = TypeVar("D", bound=Driver)

SPEC_FORMS: tuple[str, ...] = (
    "sim:android[?api=29|31|33|34|35&oem=aosp|miui|…]",
    "sim:ios[?ios=15|17|18&wda=4|5|9|10&kind=simulator|device]",
    "android:SERIAL",
    "ios:http://HOST:PORT[?kind=simulator|device]",
    "ios:UDID",
    "appium:http://HOST:PORT?platform=android|ios",
    "sim+wda:ios",
    "sim+adb:android[?adb=27|28|29|34|35]",
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
# fresh one named device_id), a shared FaultInjector, seconds the face adds to every request, how
# it behaves in time (sim_timing), and real outputs the face plays back (sim.replay.Reply values by
# shell command or route name).
FACE_OPTIONS: tuple[str, ...] = ("device", "device_id", "faults", "latency", "replies", "timing")

# The query keys a simulated device's spec takes, per platform: its version profile, its timing
# and its name.
SIM_QUERY: dict[str, tuple[str, ...]] = {
    "android": ("api", "adb", "oem", "timing", "locked", "id", "install"),
    "ios": ("ios", "wda", "kind", "timing", "locked", "id", "install"),
}
# query keys that do not name the device's version
_NOT_PROFILE = ("id", "timing", "locked", "adb", "install")
_FACE_KEYS = {"adb": "sim+adb"}  # query keys only one face takes: the adb server's release
_SIM_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


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


@dataclass(frozen=True)
class SimTarget:
    """A simulated device's spec, parsed: its platform, the profile it plays, its name if given."""

    platform: Platform
    profile: AndroidProfile | IosProfile
    device_id: str | None = None
    query: tuple[tuple[str, str], ...] = ()
    timing: str | None = None  # instant or realistic, when the spec says
    locked: bool = False  # the device starts locked
    install: tuple[str, ...] = ()  # stand-ins of other projects' test apps (sim/catalog_peers.py)

    @property
    def names_profile(self) -> bool:
        """Whether the query names a version (``api``, ``ios``, ``wda``), not only a name, timing or lock."""
        return any(k not in _NOT_PROFILE for k, _ in self.query)

    def spec(self, scheme: str, *, with_id: bool = True) -> str:
        """The spec back as text (``with_id=False``: without ``id=``), keys in the order given."""
        pairs = [(k, v) for k, v in self.query if with_id or k != "id"]
        query = "&".join(f"{k}={v}" for k, v in pairs)
        return f"{scheme}:{self.platform}" + (f"?{query}" if query else "")


def parse_sim_target(scheme: str, target: str) -> SimTarget:
    """Parse ``android?api=31`` / ``ios?ios=17&wda=5&timing=instant&id=NAME`` after a ``sim…:``
    scheme, strictly."""
    from ..sim.profiles import android_profile, ios_profile
    from ..sim.timing import TIMINGS

    shown = repr(f"{scheme}:{target}")
    base, sep, query = target.partition("?")
    name = base.strip().lower()
    if name not in SIM_QUERY:
        raise _bad_spec(f"{scheme}:{target}", f"the simulated device is '{scheme}:android' or '{scheme}:ios'")
    platform: Platform = "android" if name == "android" else "ios"
    accepted = SIM_QUERY[name]
    pairs: list[tuple[str, str]] = []
    if sep:
        for item in query.split("&"):
            key, eq, value = item.partition("=")
            if key not in accepted:
                raise ConfigError(
                    f"bad device spec {shown}: unknown key {key!r} for a simulated {platform} device",
                    hint="accepted keys: " + ", ".join(accepted),
                )
            if not eq or not value.strip():
                raise ConfigError(f"bad device spec {shown}: {key!r} needs a value ({key}=…)")
            if any(k == key for k, _ in pairs):
                raise ConfigError(f"bad device spec {shown}: {key!r} is given twice")
            pairs.append((key, value.strip()))
    values = dict(pairs)
    for key, face in _FACE_KEYS.items():
        if key in values and scheme != face:
            raise ConfigError(
                f"bad device spec {shown}: {key!r} names the server of '{face}:{name}', not of {scheme}",
                hint=f"use {face}:{name}?{key}={values[key]}",
            )
    if "adb" in values:
        from ..sim.versions import adb_server

        try:
            adb_server(values["adb"])
        except ConfigError as exc:
            raise ConfigError(f"bad device spec {shown}: {exc.message}", hint=exc.hint) from exc
    device_id = values.get("id")
    if device_id is not None and not _SIM_ID.match(device_id):
        raise ConfigError(
            f"bad device spec {shown}: id={device_id!r} is not a device name "
            "(letters, digits, '.', '_', ':', '-'; at most 64)"
        )
    timing = values.get("timing")
    if timing is not None and timing.lower() not in TIMINGS:
        raise ConfigError(
            f"bad device spec {shown}: timing={timing!r} is not a timing",
            hint=f"use one of {', '.join(TIMINGS)}",
        )
    try:
        profile: AndroidProfile | IosProfile = (
            android_profile(values.get("api", "34"), values.get("oem"))
            if platform == "android"
            else ios_profile(values.get("ios"), values.get("wda"), values.get("kind"))
        )
    except ConfigError as exc:
        raise ConfigError(f"bad device spec {shown}: {exc.message}", hint=exc.hint) from exc
    try:
        locked = parse_bool("locked", values.get("locked", "false"))
    except ConfigError as exc:
        raise ConfigError(f"bad device spec {shown}: {exc.message}", hint=exc.hint) from exc
    install = _stand_ins(shown, platform, values.get("install"))
    return SimTarget(platform, profile, device_id, tuple(pairs), timing and timing.lower(), locked, install)


def _stand_ins(shown: str, platform: Platform, raw: str | None) -> tuple[str, ...]:
    """``install=ID,ID``: app ids of stand-ins (``sim.catalog_peers.stand_ins``), each once."""
    if raw is None:
        return ()
    from ..sim.catalog_peers import stand_ins

    known = stand_ins(platform)
    ids = tuple(part.strip() for part in raw.split(","))
    for app_id in ids:
        if app_id not in known:
            raise ConfigError(
                f"bad device spec {shown}: install={app_id!r} is not an app the simulated {platform} "
                "device has a stand-in of",
                hint="installable: " + ", ".join(known) + " (docs/simulated-device.md)",
            )
    if len(set(ids)) != len(ids):
        raise ConfigError(f"bad device spec {shown}: install= names an app twice")
    return ids


def _install(device: SimDevice, parsed: SimTarget) -> None:
    """Install the stand-ins the spec's ``install=`` names on a fresh simulated device."""
    if parsed.install:
        from ..sim.catalog_peers import stand_ins

        known = stand_ins(parsed.platform)
        device.apps.update({app_id: known[app_id] for app_id in parsed.install})


def _with_timing(spec: str, parsed: SimTarget, options: Mapping[str, Any]) -> Mapping[str, Any]:
    """``options`` with the spec's ``timing=`` moved in (given both ways, a ``ConfigError``)."""
    if parsed.timing is None:
        return options
    if "timing" in options:
        raise _bad_spec(spec, "timing is given twice (in the spec and as an option)")
    return {**options, "timing": parsed.timing}


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
        parse_sim_target(scheme, target)
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
    builder = _resolve(BACKENDS[scheme])
    driver = builder(target, options)
    return driver  # type: ignore[no-any-return]


def _connect_sim(target: str, options: Mapping[str, Any]) -> Driver:
    from ..sim.device import SimDevice
    from .simulated import SimDriver

    parsed = parse_sim_target("sim", target)
    options = _with_timing(f"sim:{target}", parsed, options)
    check_names("sim", options, ("latency", "device_id", "timing"))
    latency = seconds(options, "latency", 0.0, maximum=MAX_LATENCY)
    device_id = _device_id(options) or parsed.device_id
    device = SimDevice(parsed.platform, device_id, profile=parsed.profile, timing=sim_timing(options))
    _install(device, parsed)
    if parsed.locked:
        device.lock()
    return SimDriver(parsed.platform, device=device, latency=latency)


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


def _sim_device(spec: str, parsed: SimTarget, options: Mapping[str, Any]) -> SimDevice:
    """The simulated device a face serves: ``options['device']``, or a fresh one playing the profile."""
    from ..sim.device import SimDevice

    device = options.get("device")
    if device is None:
        device = SimDevice(
            parsed.platform,
            _device_id(options) or parsed.device_id,
            profile=parsed.profile,
            timing=sim_timing(options),
        )
        _install(device, parsed)
        if parsed.locked:
            device.lock()
        return device
    if "timing" in options:
        raise ConfigError(f"option 'timing' for {spec} is the given device's own (SimDevice(timing=…))")
    if not isinstance(device, SimDevice) or device.platform != parsed.platform:
        raise ConfigError(
            f"option 'device' for {spec} must be a simulated {parsed.platform} device, got {device!r}"
        )
    if parsed.names_profile and device.profile != parsed.profile:
        raise ConfigError(
            f"{spec} names the profile {parsed.profile.label}, "
            f"but the device given plays {device.profile.label}",
            hint="build the SimDevice with that profile, or leave the query out",
        )
    if parsed.locked:
        device.lock()
    return device


def _replies(options: Mapping[str, Any]) -> dict[str, Any]:
    from ..sim.replay import Reply

    replies = options.get("replies") or {}
    if not isinstance(replies, Mapping) or not all(
        isinstance(k, str) and isinstance(v, Reply) for k, v in replies.items()
    ):
        raise ConfigError(
            "option 'replies' must map shell commands or route names to sim.replay.Reply values"
        )
    return dict(replies)


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
    """``sim+wda:ios[?ios=…&wda=…]``: the simulated iPhone served over WebDriverAgent's HTTP protocol,
    driven by a connected ``WdaDriver`` (options: the face's, and the driver's ``timeout``,
    ``launch_timeout``)."""
    from ..sim.wda_face import WdaFace
    from .wda import WdaDriver

    parsed = parse_sim_target("sim+wda", target)
    options = _with_timing(f"sim+wda:{target}", parsed, options)
    if parsed.platform != "ios":
        raise _bad_spec(f"sim+wda:{target}", "the WebDriverAgent face serves 'sim+wda:ios'")
    check_names("sim+wda", options, (*FACE_OPTIONS, "timeout", "launch_timeout"))
    device = _sim_device(f"sim+wda:{target}", parsed, options)
    timeouts = {k: seconds(options, k, 0.0) for k in ("timeout", "launch_timeout") if k in options}
    face = WdaFace(device, faults=_fault_injector(options), replies=_replies(options))

    kind = str(getattr(device.profile, "kind", "simulator"))
    simctl = _sim_simctl(device) if kind == "simulator" else None

    def adapter(on_close: Callable[[], None]) -> WdaDriver:
        driver = WdaDriver.from_url(
            face.url, device_id=device.device_id, on_close=on_close, kind=kind, simctl=simctl, **timeouts
        )
        return driver.connect()

    return _serve(face, options, adapter)


def _sim_simctl(device: SimDevice) -> Simctl:
    """The Mac's ``simctl`` beside a simulated Simulator: the simulated one (``amc.sim.simctl``),
    its failures in the adapter's words (``SimctlFailed``, as a non-zero exit of the real one)."""
    from ..sim.simctl import SimctlError, SimSimctl
    from .wda.simctl import SimctlFailed

    simulated = SimSimctl(device)

    class _Bridge:
        udid = simulated.udid

        @staticmethod
        def run(args: Sequence[str]) -> str:
            try:
                return simulated.run(args)
            except SimctlError as exc:
                raise SimctlFailed(
                    f"xcrun simctl {' '.join(list(args)[:3])} failed ({exc.code}): {exc.stderr}"
                ) from exc

    return _Bridge()


def _connect_adb_face(target: str, options: Mapping[str, Any]) -> U2Driver:
    """``sim+adb:android[?api=…]``: the simulated phone behind an adb server (with the uiautomator2
    server on it), driven by a connected ``U2Driver`` (options: the face's, and ``U2Config``'s)."""
    from ..sim.adb_face import AdbFace
    from ..sim.versions import adb_server
    from .u2 import U2Config, U2Driver

    parsed = parse_sim_target("sim+adb", target)
    options = _with_timing(f"sim+adb:{target}", parsed, options)
    if parsed.platform != "android":
        raise _bad_spec(f"sim+adb:{target}", "the adb face serves 'sim+adb:android'")
    config = U2Config.from_options(options, {}, also=frozenset(FACE_OPTIONS))
    device = _sim_device(f"sim+adb:{target}", parsed, options)
    server = adb_server(dict(parsed.query).get("adb"))
    face = AdbFace([device], faults=_fault_injector(options), replies=_replies(options), server=server)

    def adapter(on_close: Callable[[], None]) -> U2Driver:
        served = dataclasses.replace(config, adb_host=face.host, adb_port=face.port)
        return U2Driver(device.device_id, served, on_close=on_close).connect()

    return _serve(face, options, adapter)


def _connect_appium_face(target: str, options: Mapping[str, Any]) -> AppiumDriver:
    """``sim+appium:android|ios[?…]``: the simulated device behind an Appium 3 server's W3C protocol,
    driven by a connected ``AppiumDriver`` (options: the face's, and ``timeout``, ``launch_timeout``)."""
    from ..sim.appium_face import AppiumFace
    from .appium import AppiumDriver, options_for

    parsed = parse_sim_target("sim+appium", target)
    options = _with_timing(f"sim+appium:{target}", parsed, options)
    check_names("sim+appium", options, (*FACE_OPTIONS, "timeout", "launch_timeout"))
    device = _sim_device(f"sim+appium:{target}", parsed, options)
    timeout = seconds(options, "timeout", 30.0)
    launch_timeout = seconds(options, "launch_timeout", 5.0)
    face = AppiumFace(device, faults=_fault_injector(options), replies=_replies(options))

    def adapter(on_close: Callable[[], None]) -> AppiumDriver:
        capabilities = options_for(parsed.platform, udid=device.device_id)
        driver = AppiumDriver(
            face.url,
            capabilities,
            timeout=timeout,
            launch_timeout=launch_timeout,
            on_close=on_close,
            kind=str(getattr(device.profile, "kind", "device")),
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
