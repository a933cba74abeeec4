"""The calls of the wire fuzz: every public driver call, on every adapter, in one table.

:data:`CALLS` holds each method of the :class:`~amc.drivers.base.Driver` protocol with the arguments
it is called with, plus ``connect`` (building and connecting a new driver) and ``discover``
(discovery through the adb server or ``$WDA_URL``). :func:`protocol_calls` lists the protocol's
members, so a method added there and missing here fails the fuzz's table test by name. What a call
may return is read from the protocol's own annotation (:func:`allowed`): a ``Scene``, ``bytes``,
``str | None`` or ``None``.

:class:`Rig` is one adapter over its face on 127.0.0.1 (the uiautomator2 adapter over the adb face,
WebDriverAgent's, Appium's on Android and iOS), with short timeouts so a hostile answer that
leaves the client waiting ends within seconds, and the face's :class:`~amc.sim.faults.FaultInjector`
through which the fuzz rewrites answers.
"""

from __future__ import annotations

import contextlib
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from amc.core.models import Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.base import DeviceInfo, Driver, IdleSignal
from amc.drivers.connect import discover
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.sim.adb_face import AdbFace
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.timing import TIMINGS
from amc.sim.wda_face import WdaFace

__all__ = ["ADAPTERS", "CALLS", "EXTRA_CALLS", "Rig", "allowed", "calls_for", "protocol_calls"]

ADAPTERS: tuple[str, ...] = ("u2", "wda", "appium-android", "appium-ios")
TIMEOUT = 1.5
APPS: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
_APP = object()  # stands for the platform's app in an argument list

# Driver method -> its arguments (the app is the platform's). Properties take none.
CALLS: dict[str, tuple[Any, ...]] = {
    "device_id": (),
    "platform": (),
    "backend": (),
    "observe": (),
    "launch_app": (_APP,),
    "terminate_app": (_APP,),
    "current_app": (),
    "tap": (40, 300),
    "long_press": (40, 300, 0.05),
    "type_text": ("hi",),
    "swipe": (100, 600, 100, 200, 0.05),
    "press": ("home",),
    "erase_text": (2,),
    "set_location": (48.85, 2.35),
    "screenshot": (),
    "hide_keyboard": (),
    "open_link": ("https://example.com/a?b=1",),
    "clear_state": (_APP,),
    "launch_with": (_APP, {"onboarding": False, "user": "qa"}),
    "set_permissions": (_APP, {"all": "allow"}),
    "clear_keychain": (),
    "set_orientation": ("landscape_left",),
    "set_airplane_mode": (True,),
    "airplane_mode": (),
    "set_dark_mode": (True,),
    "dark_mode": (),
    "start_recording": (),
    "stop_recording": (),
    "add_media": ("cat.png", b"\x89PNG\r\n\x1a\n"),
    "wait_idle": (0.2,),
    "close": (),
}
# Calls that are not Driver methods: a fresh driver's connect(), and discovery.
EXTRA_CALLS: tuple[str, ...] = ("connect", "discover")
_PROPERTIES = {"device_id": str, "platform": str, "backend": str}


def calls_for(adapter: str) -> tuple[str, ...]:
    """The calls fuzzed on ``adapter``: every Driver member, connect, and discovery where the
    adapter's backend discovers (adb's listing, ``$WDA_URL``; Appium servers are not discovered)."""
    extra = EXTRA_CALLS if adapter in ("u2", "wda") else ("connect",)
    return (*CALLS, *extra)


def protocol_calls() -> set[str]:
    """Every public member of the Driver protocol and of the optional protocols beside it
    (IdleSignal)."""
    return {
        name
        for protocol in _PROTOCOLS
        for name, value in vars(protocol).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    }


_PROTOCOLS: tuple[type, ...] = (Driver, IdleSignal)


def _member(name: str) -> Any:
    """``name`` as the protocol that declares it spells it."""
    return next(vars(p)[name] for p in _PROTOCOLS if name in vars(p))


def allowed(name: str, value: object) -> bool:
    """Whether ``value`` is what the protocol lets ``name`` return."""
    if name in _PROPERTIES:
        return isinstance(value, _PROPERTIES[name])
    if name == "connect":
        return isinstance(value, Driver)
    if name == "discover":
        return isinstance(value, list) and all(isinstance(v, DeviceInfo) for v in value)
    hint = typing.get_type_hints(_member(name))["return"]
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return any(value is None if option is type(None) else isinstance(value, option) for option in options)


@dataclass
class Rig:
    """One adapter over its face (see the module docstring)."""

    adapter: str
    faults: FaultInjector = field(default_factory=FaultInjector)
    face: Any = None
    driver: Driver | None = None

    @property
    def platform(self) -> Platform:
        return "ios" if self.adapter in ("wda", "appium-ios") else "android"

    def start(self) -> Rig:
        device = SimDevice(self.platform, timing=TIMINGS["instant"])
        if self.adapter == "u2":
            self.face = AdbFace([device], faults=self.faults).start()
        elif self.adapter == "wda":
            self.face = WdaFace(device, faults=self.faults).start()
        else:
            self.face = AppiumFace(device, faults=self.faults).start()
        return self

    def build(self) -> Driver:
        """A new driver for the face (not connected)."""
        device_id = self.face.device.device_id if self.adapter != "u2" else self.face.phones[0].serial
        if self.adapter == "u2":
            config = U2Config(
                adb_host=self.face.host,
                adb_port=self.face.port,
                timeout=TIMEOUT,
                launch_timeout=0.5,
                launch_poll=0.05,
                server_start_timeout=0.5,
            )
            return U2Driver(device_id, config)
        if self.adapter == "wda":
            return WdaDriver.from_url(self.face.url, device_id=device_id, timeout=TIMEOUT, launch_timeout=0.5)
        platform = self.platform
        return AppiumDriver(
            self.face.url, options_for(platform, udid=device_id), timeout=TIMEOUT, launch_timeout=0.5
        )

    def connected(self) -> Driver:
        """The rig's driver, connected (a new one after :meth:`drop`)."""
        if self.driver is None:
            self.faults.set_rewrite(None)
            driver = self.build()
            driver.connect()  # type: ignore[attr-defined]
            self.driver = driver
        return self.driver

    def drop(self) -> None:
        """Forget the driver (a hostile answer may have left it in any state); the next call connects anew."""
        if self.driver is not None:
            self.faults.set_rewrite(None)
            with contextlib.suppress(Exception):
                self.driver.close()
            self.driver = None

    def reset_device(self) -> None:
        """Bring the phone back to its home screen (a call may have launched or typed)."""
        device: SimDevice = self.face.device if self.adapter != "u2" else self.face.phones[0].device
        with contextlib.suppress(Exception):
            device.press("home")

    def call(self, name: str) -> Callable[[], object]:
        """The call ``name`` as a thunk (the connected driver's method, or connect/discover)."""
        if name == "connect":

            def fresh() -> object:
                driver = self.build()
                try:
                    return driver.connect()  # type: ignore[attr-defined]
                finally:
                    with contextlib.suppress(Exception):
                        driver.close()

            return fresh
        if name == "discover":
            if self.adapter == "u2":
                environ = {
                    "ANDROID_ADB_SERVER_HOST": self.face.host,
                    "ANDROID_ADB_SERVER_PORT": str(self.face.port),
                }
            elif self.adapter == "wda":
                environ = {"ANDROID_ADB_SERVER_PORT": "1", "WDA_URL": self.face.url}
            else:
                environ = {"ANDROID_ADB_SERVER_PORT": "1"}
            return lambda: discover(environ)
        driver = self.connected()
        if name in _PROPERTIES:
            return lambda: getattr(driver, name)
        args = tuple(APPS[self.platform] if a is _APP else a for a in CALLS[name])
        method = getattr(driver, name)
        if name == "close":

            def close() -> object:
                self.driver = None
                return method()

            return close
        return lambda: method(*args)

    def stop(self) -> None:
        self.drop()
        self.face.stop()
