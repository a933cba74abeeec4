"""The versions in the field, per backend, and what each supports: one table the faces play and the
docs' matrix is derived from (``docs/versions.md``, :func:`matrix_rows`).

**adb servers** (:data:`ADB_SERVERS`, the ``adb=`` key of ``sim+adb:android``), from the oldest a
Linux distribution still ships to Google's current platform-tools. What differs, from AOSP adb's
source (``system/core/adb`` up to Android 10, ``packages/modules/adb`` after):

- ``host:version`` answers ``ADB_SERVER_VERSION`` (``adb.h``) as 4 hex digits: 39 (platform-tools
  26-27, the Android 8 sources Debian bullseye and Ubuntu 20.04 package as ``1:8.1.0+r23``), 40
  (platform-tools 28), 41 (29 and everything since);
- ``host:tport:`` (a transport switch that answers the 8-byte transport id) exists from 41 on; an
  older server answers ``FAIL`` ``unknown host service`` (``sockets.cpp`` ``smart_socket_enqueue``),
  which is why clients ask ``host:version`` first (adbutils ``_device_base.py``: "compatible with old
  adb version", openatx/adbutils#145);
- ``host:devices-l`` prints `` transport_id:N`` last from 40 on (``transport.cpp``
  ``append_transport``), none before;
- ``host:host-features`` lists the server's own features (``transport.cpp`` ``supported_features()``
  plus ``push_sync``, ``adb.cpp`` ``handle_host_request``); ``host-serial:S:features`` the phone's adbd
  features, which go by its Android release (:data:`ADBD_FEATURES`). A client may use a feature only
  when both list it (``CanUseFeature``, ``transport.cpp``).

The feature names are the ``kFeature*`` constants of ``transport.cpp``; the release that first lists
each in ``supported_features()``: ``shell_v2``, ``cmd`` (Android 7), ``stat_v2`` (8), ``ls_v2``,
``fixed_push_mkdir`` (9), ``apex``, ``abb``, ``fixed_push_symlink_timestamp``, ``abb_exec``,
``remount_shell`` (10), ``track_app``, ``sendrecv_v2`` and its ``_brotli``/``_lz4``/``_zstd``/
``_dry_run_send`` (11), ``delayed_ack`` (12/platform-tools 31), ``openscreen_mdns`` (platform-tools 34),
``devicetracker_proto_format``, ``devraw``, ``app_info``, ``server_status``, ``track_mdns``
(platform-tools 35, with the ``host:track-devices-proto-*`` and ``host:server-status`` services). The
per-release split is read from the constants' order and the comments beside them in
``transport.cpp``/``transport.h`` as mirrored publicly: Android 8's ``supported_features()`` is
``{kFeatureShell2, kFeatureCmd, kFeatureStat2}`` under the comment "Increment ADB_SERVER_VERSION
whenever the feature list changes" (so 40 adds Android 9's and 41 Android 10's; later ones came
without a bump). The releases of the last rows (31, 34, 35) are not confirmed against a tag, and no
platform-tools binary was run to collect any of it.

**uiautomator2 servers** (:data:`U2_SERVERS`): openatx/android-uiautomator-server, as the uiautomator2
client installs it. Before uiautomator2 3.0 an APK pair (``com.github.uiautomator`` and its ``.test``
package) served JSON-RPC at ``/jsonrpc/0`` behind atx-agent (port 7912); from 3.0 one ``u2.jar`` run by
``app_process`` (``com.wetest.uia2.Main``) serves it on port 9008. The face plays the jar.

**WebDriverAgent** (:data:`~sim.profiles.WDA_GENERATIONS`, the ``wda=`` key): the rows are the
profiles', with the ``/status`` fields each generation answers (:func:`wda_status_fields`).

**Appium** (:data:`APPIUM_SERVERS`): the server's ``/status`` is ``{"value": {"ready": true, "message":
…, "build": {"version": …}}}`` in 2 and 3 alike (appium ``lib/appium.js`` ``getStatus``), the base path
``/`` in both (``/wd/hub`` was Appium 1's). Appium 3 (appium.io "Migrating to Appium 3") removes the
endpoints 2 had deprecated (``/appium/app/launch``, ``/appium/app/close``, …; use ``mobile:`` commands),
needs driver-prefixed security flags (``uiautomator2:adb_shell``) and serves ``GET /appium/sessions``
only when asked to. The drivers are those a device cloud pairs with each (Sauce Labs' "Migrating from
Appium 2 to Appium 3": Appium 2.19.0 with UiAutomator2 4.2.9 and XCUITest 9.10.5, Appium 3.9.1 with
8.7.3 and 12.22.8). The face plays 3 (``build.version`` 3.8.0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import ConfigError
from .profiles import ANDROID_APIS, WDA_GENERATIONS, IosProfile

__all__ = [
    "ADBD_FEATURES",
    "ADB_SERVERS",
    "APPIUM_SERVERS",
    "DEFAULT_ADB",
    "U2_SERVERS",
    "AdbServer",
    "AppiumServer",
    "U2Server",
    "adb_server",
    "adbd_features",
    "matrix_markdown",
    "matrix_rows",
    "wda_status_fields",
]

# Each feature and the Android release whose adbd (and the platform-tools built with it) first lists it.
_FEATURES: tuple[tuple[str, int], ...] = (
    ("shell_v2", 24),
    ("cmd", 24),
    ("stat_v2", 26),
    ("ls_v2", 28),
    ("fixed_push_mkdir", 28),
    ("apex", 29),
    ("abb", 29),
    ("fixed_push_symlink_timestamp", 29),
    ("abb_exec", 29),
    ("remount_shell", 29),
    ("track_app", 30),
    ("sendrecv_v2", 30),
    ("sendrecv_v2_brotli", 30),
    ("sendrecv_v2_lz4", 30),
    ("sendrecv_v2_zstd", 30),
    ("sendrecv_v2_dry_run_send", 30),
    ("delayed_ack", 31),
    ("openscreen_mdns", 34),
    ("devicetracker_proto_format", 35),
    ("devraw", 35),
    ("app_info", 35),
    ("server_status", 35),
    ("track_mdns", 35),
)


def _up_to(api: int) -> tuple[str, ...]:
    return tuple(name for name, since in _FEATURES if since <= api)


def adbd_features(api: int) -> tuple[str, ...]:
    """What the adbd of an Android release lists in its banner (``host-serial:S:features``)."""
    return _up_to(api)


# The phone side, per played API level (sim.profiles.ANDROID_APIS).
ADBD_FEATURES: dict[int, tuple[str, ...]] = {api: adbd_features(api) for api in ANDROID_APIS}


@dataclass(frozen=True)
class AdbServer:
    """One adb server release as the face plays it."""

    key: str  # the adb= value
    tools: str  # the platform-tools release (or the distribution's own version of it)
    version: int  # ADB_SERVER_VERSION, what host:version answers
    shipped: str  # who ships it
    api: int  # the Android sources it is built from (its features are that release's)
    extra_services: tuple[str, ...] = ()  # host services only this release and later know

    @property
    def features(self) -> tuple[str, ...]:
        """``host:host-features``: ``supported_features()`` of its sources, and ``push_sync``."""
        return (*_up_to(self.api), "push_sync")

    @property
    def has_tport(self) -> bool:
        """``host:tport:`` (ADB_SERVER_VERSION 41 on)."""
        return self.version >= 41

    @property
    def lists_transport_id(self) -> bool:
        """`` transport_id:N`` in ``host:devices-l`` (ADB_SERVER_VERSION 40 on)."""
        return self.version >= 40

    def supports(self, feature: str, device_api: int) -> bool:
        """``CanUseFeature``: both this server and the phone's adbd list ``feature``."""
        return feature in self.features and feature in adbd_features(device_api)


ADB_SERVERS: dict[str, AdbServer] = {
    server.key: server
    for server in (
        AdbServer("27", "1:8.1.0+r23", 39, "Debian 11 bullseye, Ubuntu 20.04 focal (package adb)", 27),
        AdbServer("28", "28.0.2", 40, "platform-tools 28 (2018-2019)", 28),
        AdbServer("29", "1:29.0.6", 41, "Debian 12 bookworm (1:29.0.6-28), Ubuntu 22.04 jammy", 29),
        AdbServer("34", "1:34.0.5", 41, "Debian 13 trixie, Ubuntu 24.04 noble (1:34.0.4)", 34),
        AdbServer(
            "35",
            "35.0.2",
            41,
            "Google platform-tools 35-36 (today's)",
            35,
            ("track-devices-proto-binary", "track-devices-proto-text", "server-status"),
        ),
    )
}
DEFAULT_ADB = ADB_SERVERS["35"]


def adb_server(key: str | None) -> AdbServer:
    """The adb server an ``adb=`` value names (None: today's); ``ConfigError`` listing the keys."""
    if key is None:
        return DEFAULT_ADB
    server = ADB_SERVERS.get(str(key).strip())
    if server is None:
        raise ConfigError(
            f"no simulated adb server for adb={key!r}",
            hint="accepted adb values: " + ", ".join(ADB_SERVERS),
        )
    return server


@dataclass(frozen=True)
class U2Server:
    """A uiautomator2 server generation (openatx/android-uiautomator-server)."""

    client: str  # the uiautomator2 client releases that install it
    form: str  # what runs on the phone
    port: int
    played: bool


U2_SERVERS: tuple[U2Server, ...] = (
    U2Server("2.x", "APK com.github.uiautomator(+.test), behind atx-agent", 7912, False),
    U2Server("3.x", "u2.jar run by app_process (com.wetest.uia2.Main)", 9008, True),
)


@dataclass(frozen=True)
class AppiumServer:
    """An Appium major version and the drivers it runs."""

    major: str
    release: str  # a release of it, as device clouds run it
    drivers: str
    legacy_endpoints: bool  # /appium/app/launch and the other endpoints 2 deprecated
    played: bool


APPIUM_SERVERS: tuple[AppiumServer, ...] = (
    AppiumServer("2", "2.19.0", "uiautomator2 4.2.9, xcuitest 9.10.5", True, False),
    AppiumServer("3", "3.9.1", "uiautomator2 8.7.3, xcuitest 12.22.8", False, True),
)


def wda_status_fields(profile: IosProfile) -> tuple[str, ...]:
    """The keys of ``/status``'s ``value`` a WebDriverAgent generation answers (sim.wda_routes)."""
    fields = ["ready", "message", "state", "os", "ios", "build"]
    if profile.wda_at_least("5.9.0"):
        fields.append("device")
    if profile.wda_at_least("8.3.0"):
        fields.append("build.version")
    return tuple(fields)


def matrix_rows() -> list[tuple[str, str, str, str]]:
    """(backend, version, who ships or runs it, what it supports) for every version in the tables."""
    rows: list[tuple[str, str, str, str]] = []
    for adb in ADB_SERVERS.values():
        supports = [f"host:version {adb.version}"]
        supports.append("host:tport" if adb.has_tport else "no host:tport (host:transport)")
        if adb.lists_transport_id:
            supports.append("transport_id in devices-l")
        supports.append("features " + ",".join(adb.features))
        supports.extend(f"host:{s} (not played)" for s in adb.extra_services)
        rows.append(("adb server", f"adb={adb.key} ({adb.tools})", adb.shipped, "; ".join(supports)))
    for u2 in U2_SERVERS:
        played = "played" if u2.played else "not played"
        rows.append(("uiautomator2 server", f"client {u2.client}", u2.form, f"port {u2.port} ({played})"))
    for key, release in WDA_GENERATIONS.items():
        profile = IosProfile(wda=key)
        extra = ["/wda/tap" if profile.has_coordinate_tap else "/wda/tap/:uuid only"]
        if profile.hangs_on_missing_app:
            extra.append("a launch of a missing app hangs")
        if profile.app_attributes:
            extra.append("processId/bundleId in the source")
        status = "/status " + ",".join(wda_status_fields(profile))
        rows.append(
            ("WebDriverAgent", f"wda={key} ({release})", "appium/WebDriverAgent", "; ".join([status, *extra]))
        )
    for appium in APPIUM_SERVERS:
        legacy = (
            "the deprecated /appium/app/* endpoints" if appium.legacy_endpoints else "mobile: commands only"
        )
        played = "played" if appium.played else "not played"
        what = f"/status ready,message,build.version; base path /; {legacy} ({played})"
        rows.append(("Appium", f"{appium.major} ({appium.release})", appium.drivers, what))
    return rows


def matrix_markdown() -> str:
    """The matrix as the Markdown table ``docs/versions.md`` holds (between its markers)."""
    lines = ["| backend | version | who ships or runs it | what it supports |", "|---|---|---|---|"]
    for row in matrix_rows():
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    return "\n".join(lines) + "\n"
