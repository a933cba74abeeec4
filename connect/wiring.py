"""Wiring the simulated device to the adapters: a ``sim`` spec drives it in process
(:class:`amc.connect.simulated.SimDriver`); a ``sim+<backend>`` spec starts that backend's face
(``amc.sim.wda_face``, ``amc.sim.adb_face``, ``amc.sim.appium_face``, which only serve) and builds
the real adapter against its URL or port, with a ``close()`` that stops the face.

This is the one place where an adapter and a face meet: the adapters never import ``amc.sim`` and
the faces never import ``amc.drivers`` (tests/packaging/test_layers.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..core.errors import ConfigError
from ..drivers.base import MAX_LATENCY, Driver
from ..drivers.options import check_names, seconds
from .sim_options import SimTarget, install_stand_ins, parse_sim_target, sim_timing, with_timing
from .specs import bad_spec

if TYPE_CHECKING:
    from ..drivers.appium import AppiumDriver
    from ..drivers.u2 import U2Driver
    from ..drivers.wda import WdaDriver
    from ..drivers.wda.simctl import Simctl
    from ..sim.device import SimDevice
    from ..sim.faults import FaultInjector

__all__ = ["FACE_OPTIONS", "connect_adb_face", "connect_appium_face", "connect_sim", "connect_wda_face"]

D = TypeVar("D", bound=Driver)

# Options every sim+<backend> spec takes, besides its adapter's own: the SimDevice to serve (else a
# fresh one named device_id), a shared FaultInjector, seconds the face adds to every request, how
# it behaves in time (sim_timing), and real outputs the face plays back (sim.replay.Reply values by
# shell command or route name).
FACE_OPTIONS: tuple[str, ...] = ("device", "device_id", "faults", "latency", "replies", "timing")


def connect_sim(target: str, options: Mapping[str, Any]) -> Driver:
    from ..sim.device import SimDevice
    from .simulated import SimDriver

    parsed = parse_sim_target("sim", target)
    options = with_timing(f"sim:{target}", parsed, options)
    check_names("sim", options, ("latency", "device_id", "timing"))
    latency = seconds(options, "latency", 0.0, maximum=MAX_LATENCY)
    device_id = _device_id(options) or parsed.device_id
    device = SimDevice(parsed.platform, device_id, profile=parsed.profile, timing=sim_timing(options))
    install_stand_ins(device, parsed)
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
        install_stand_ins(device, parsed)
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


def connect_wda_face(target: str, options: Mapping[str, Any]) -> WdaDriver:
    """``sim+wda:ios[?ios=…&wda=…]``: the simulated iPhone served over WebDriverAgent's HTTP protocol,
    driven by a connected ``WdaDriver`` (options: the face's, and the driver's ``timeout``,
    ``launch_timeout``)."""
    from ..drivers.wda import WdaDriver
    from ..sim.wda_face import WdaFace

    parsed = parse_sim_target("sim+wda", target)
    options = with_timing(f"sim+wda:{target}", parsed, options)
    if parsed.platform != "ios":
        raise bad_spec(f"sim+wda:{target}", "the WebDriverAgent face serves 'sim+wda:ios'")
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
    from ..drivers.wda.simctl import SimctlFailed
    from ..sim.simctl import SimctlError, SimSimctl

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


def connect_adb_face(target: str, options: Mapping[str, Any]) -> U2Driver:
    """``sim+adb:android[?api=…]``: the simulated phone behind an adb server (with the uiautomator2
    server on it), driven by a connected ``U2Driver`` (options: the face's, and ``U2Config``'s)."""
    from ..drivers.u2 import U2Config, U2Driver
    from ..sim.adb_face import AdbFace
    from ..sim.versions import adb_server

    parsed = parse_sim_target("sim+adb", target)
    options = with_timing(f"sim+adb:{target}", parsed, options)
    if parsed.platform != "android":
        raise bad_spec(f"sim+adb:{target}", "the adb face serves 'sim+adb:android'")
    config = U2Config.from_options(options, {}, also=frozenset(FACE_OPTIONS))
    device = _sim_device(f"sim+adb:{target}", parsed, options)
    server = adb_server(dict(parsed.query).get("adb"))
    face = AdbFace([device], faults=_fault_injector(options), replies=_replies(options), server=server)

    def adapter(on_close: Callable[[], None]) -> U2Driver:
        served = dataclasses.replace(config, adb_host=face.host, adb_port=face.port)
        return U2Driver(device.device_id, served, on_close=on_close).connect()

    return _serve(face, options, adapter)


def connect_appium_face(target: str, options: Mapping[str, Any]) -> AppiumDriver:
    """``sim+appium:android|ios[?…]``: the simulated device behind an Appium 3 server's W3C protocol,
    driven by a connected ``AppiumDriver`` (options: the face's, and ``timeout``, ``launch_timeout``)."""
    from ..drivers.appium import AppiumDriver, options_for
    from ..sim.appium_face import AppiumFace

    parsed = parse_sim_target("sim+appium", target)
    options = with_timing(f"sim+appium:{target}", parsed, options)
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
