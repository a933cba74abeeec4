"""The simulated device's options: the query of a ``sim…:`` spec, parsed strictly.

A simulated device plays a version profile named in the spec's query (:data:`SIM_QUERY`):
``sim:android?api=31`` (29, 31, 33, 34, 35; default 34; ``oem=miui`` … draws a skin's own
prompts: :data:`amc.sim.profiles.ANDROID_OEMS`), ``sim:ios?ios=17&wda=5`` (ios 15, 17, 18;
wda 4, 5, 9, 10; default ``ios=18&wda=10``; ``kind=simulator|device``: an iOS Simulator, the
default, or a physical iPhone, :mod:`amc.drivers.kinds`), the same on ``sim+adb:``, ``sim+wda:`` and
``sim+appium:``; ``sim+adb:android?adb=29`` also names the adb server's release
(:data:`amc.sim.versions.ADB_SERVERS`: 27, 28, 29, 34, 35; default 35);
``timing=instant|realistic`` says how it behaves in time (:func:`sim_timing`), ``locked=true``
starts it locked (``amc.sim.covers``; a WebDriverAgent driver then refuses to connect, as it does
to a locked iPhone), ``install=ID,ID`` installs stand-ins of other projects' test apps and
``id=NAME`` names the device. The query is parsed strictly: an unknown, repeated or empty key and
an unknown value are a ``ConfigError`` naming it.

The simulated device's modules are imported inside the functions, so reading a spec that names
no simulated device loads none of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.config import parse_bool
from ..core.errors import ConfigError
from ..core.models import Platform
from .specs import bad_spec

if TYPE_CHECKING:
    from ..sim.device import SimDevice, Timing
    from ..sim.profiles import AndroidProfile, IosProfile

__all__ = [
    "SIM_QUERY",
    "SimTarget",
    "install_stand_ins",
    "parse_sim_target",
    "sim_timing",
    "with_timing",
]

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
        raise bad_spec(f"{scheme}:{target}", f"the simulated device is '{scheme}:android' or '{scheme}:ios'")
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


def install_stand_ins(device: SimDevice, parsed: SimTarget) -> None:
    """Install the stand-ins the spec's ``install=`` names on a fresh simulated device."""
    if parsed.install:
        from ..sim.catalog_peers import stand_ins

        known = stand_ins(parsed.platform)
        device.apps.update({app_id: known[app_id] for app_id in parsed.install})


def with_timing(spec: str, parsed: SimTarget, options: Mapping[str, Any]) -> Mapping[str, Any]:
    """``options`` with the spec's ``timing=`` moved in (given both ways, a ``ConfigError``)."""
    if parsed.timing is None:
        return options
    if "timing" in options:
        raise bad_spec(spec, "timing is given twice (in the spec and as an option)")
    return {**options, "timing": parsed.timing}


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
