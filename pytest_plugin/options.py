"""What the plugin was asked to do: devices to test, apps to use, where to write evidence and reports.

Everything here is parsed once from the command line and ini file into frozen values; a bad value is
a :class:`~core.errors.ConfigError` that the plugin turns into a usage error before any test runs.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from ..connect import parse_sim_target, parse_spec
from ..core.durations import MAX_LEASE_WAIT, check_seconds
from ..core.errors import ConfigError
from ..core.models import Platform
from ..storage.redaction import redact_url

__all__ = [
    "DEFAULT_APPS",
    "DEFAULT_SECOND_APPS",
    "SETTINGS_APPS",
    "AppIds",
    "DeviceTarget",
    "PluginOptions",
    "parse_app_options",
    "parse_target",
    "platform_of",
    "redact_spec",
]

PLATFORMS: tuple[Platform, ...] = ("android", "ios")
# The stock Settings app of each platform: the device tests' page-change check always uses it.
SETTINGS_APPS: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
# The app under test and a second app to switch to. com.android.deskclock ships with AOSP emulator
# images and the simulated device; Google-branded images use com.google.android.deskclock instead.
DEFAULT_APPS: dict[Platform, str] = dict(SETTINGS_APPS)
DEFAULT_SECOND_APPS: dict[Platform, str] = {
    "android": "com.android.deskclock",
    "ios": "com.apple.mobilesafari",
}


def redact_spec(spec: str) -> str:
    """``spec`` safe to show in a test id or a report: URL passwords and secret query values hidden
    (by the harness's one rule for URL credentials, :func:`amc.storage.redaction.redact_url`)."""
    return redact_url(spec)


def _query(target: str) -> dict[str, list[str]]:
    _, _, query = target.partition("?")
    return parse_qs(query, keep_blank_values=True)


def platform_of(spec: str) -> Platform | None:
    """The platform a spec names without connecting, or None when only the device can tell."""
    scheme, target = parse_spec(spec)
    if scheme in PLATFORMS:
        return "android" if scheme == "android" else "ios"
    if scheme == "sim" or scheme.startswith("sim+"):
        name = target.partition("?")[0].strip().lower()
    elif scheme == "appium":
        params = _query(target)
        values = params.get("platform") or params.get("platformName") or [""]
        name = values[0].strip().lower()
    else:
        return None
    if name == "android":
        return "android"
    if name == "ios":
        return "ios"
    return None


@dataclass(frozen=True)
class DeviceTarget:
    """One device the device tests run on.

    ``spec`` is what :func:`drivers.connect.connect` takes, except that a simulated device's spec
    may end in ``?id=NAME`` to give it a device id of its own (so several simulated devices can be
    told apart): ``connect_spec`` is the spec without it and ``sim_id`` the name, passed to
    ``connect`` as its ``device_id`` option.
    ``explicit`` is True for a device named with ``--amc-device`` (failing to reach it is an error)
    and False for one discovery found (failing to reach it is a skip).
    """

    spec: str
    platform: Platform | None = None
    explicit: bool = True
    description: str = ""
    connect_spec: str = ""
    sim_id: str | None = None

    @property
    def connect_options(self) -> dict[str, Any]:
        return {"device_id": self.sim_id} if self.sim_id is not None else {}

    @property
    def display(self) -> str:
        """The spec as shown in test ids and reports (secrets hidden)."""
        return redact_spec(self.spec)

    @property
    def scheme(self) -> str:
        return self.spec.partition(":")[0].lower()

    @property
    def in_process(self) -> bool:
        """True for the simulated device and its faces: they live inside the test process."""
        return self.scheme == "sim" or self.scheme.startswith("sim+")

    @property
    def key(self) -> str:
        """A file-name-safe key that is the same for the same spec in every process."""
        digest = hashlib.sha1(self.spec.encode()).hexdigest()[:10]
        readable = re.sub(r"[^A-Za-z0-9._-]+", "_", self.display)[:40].strip("_")
        return f"{readable}-{digest}"

    def to_wire(self) -> list[str]:
        """A plain list for passing to xdist workers (see :meth:`from_wire`)."""
        return [self.spec, "1" if self.explicit else "0", self.description]

    @classmethod
    def from_wire(cls, raw: Sequence[str]) -> DeviceTarget:
        return parse_target(raw[0], explicit=raw[1] == "1", description=raw[2])


def parse_target(spec: str, *, explicit: bool = True, description: str = "") -> DeviceTarget:
    """Check ``spec``'s shape (no I/O); a simulated device's query is parsed by
    :func:`amc.drivers.connect.parse_sim_target` (its profile, and ``id=NAME``, which is passed to
    ``connect`` as ``device_id`` so the spec stays the same for every named device)."""
    text = spec.strip() if isinstance(spec, str) else spec
    scheme, target = parse_spec(text)
    connect_spec, sim_id = text, None
    if scheme == "sim" or scheme.startswith("sim+"):
        parsed = parse_sim_target(scheme, target)
        connect_spec, sim_id = parsed.spec(scheme, with_id=False), parsed.device_id
    return DeviceTarget(
        spec=text,
        platform=platform_of(text),
        explicit=explicit,
        description=description,
        connect_spec=connect_spec,
        sim_id=sim_id,
    )


@dataclass(frozen=True)
class AppIds:
    """The apps the device tests use on one platform: ``app`` (launched and checked), ``second``
    (switched to) and ``settings`` (the stock Settings app, for the page-change check)."""

    app: str
    second: str
    settings: str


def parse_app_options(values: Iterable[str], option: str) -> dict[Platform, str]:
    """``["android=com.x", "ios=com.y"]`` -> ``{"android": "com.x", "ios": "com.y"}``."""
    out: dict[Platform, str] = {}
    for raw in values:
        name, sep, app_id = str(raw).partition("=")
        name, app_id = name.strip().lower(), app_id.strip()
        if not sep or name not in PLATFORMS or not app_id or any(c.isspace() for c in app_id):
            raise ConfigError(
                f"bad {option} value {raw!r}: expected PLATFORM=APP_ID with PLATFORM android or ios",
                hint=f"e.g. {option} android=com.android.settings {option} ios=com.apple.Preferences",
            )
        out["android" if name == "android" else "ios"] = app_id
    return out


@dataclass(frozen=True)
class PluginOptions:
    """The plugin's settings for one pytest run."""

    targets: tuple[DeviceTarget, ...] = ()
    apps: Mapping[Platform, str] = field(default_factory=lambda: dict(DEFAULT_APPS))
    second_apps: Mapping[Platform, str] = field(default_factory=lambda: dict(DEFAULT_SECOND_APPS))
    artifacts: Path = Path("amc-artifacts")
    reports: Path | None = Path("amc-reports")
    lock_dir: Path | None = None
    lease_timeout: float = 300.0

    def apps_for(self, platform: Platform) -> AppIds:
        return AppIds(self.apps[platform], self.second_apps[platform], SETTINGS_APPS[platform])

    @classmethod
    def parse(
        cls,
        *,
        devices: Sequence[str],
        apps: Sequence[str],
        second_apps: Sequence[str],
        artifacts: Path,
        reports: Path | None,
        lock_dir: Path | None,
        lease_timeout: float,
    ) -> PluginOptions:
        """Validate everything at once; the first problem is a ``ConfigError``."""
        seen: dict[str, DeviceTarget] = {}
        for spec in devices:
            target = parse_target(spec)
            seen.setdefault(target.spec, target)
        check_seconds(lease_timeout, "--amc-lease-timeout", maximum=MAX_LEASE_WAIT, above_zero=True)
        return cls(
            targets=tuple(seen.values()),
            apps={**DEFAULT_APPS, **parse_app_options(apps, "--amc-app")},
            second_apps={**DEFAULT_SECOND_APPS, **parse_app_options(second_apps, "--amc-second-app")},
            artifacts=artifacts,
            reports=reports,
            lock_dir=lock_dir,
            lease_timeout=lease_timeout,
        )
