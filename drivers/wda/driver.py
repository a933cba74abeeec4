"""``WdaDriver``: an iPhone through WebDriverAgent, over the facebook-wda client (module ``wda``).

What it promises (see ``openspec/specs/drivers/spec.md``):

- ``observe()`` is one ``GET /source`` (XML), parsed by :func:`drivers.hierarchy.parse_source`, plus
  one ``GET /wda/activeAppInfo`` only when the tree does not name its app: at most two requests.
  While SpringBoard is in front with no alert of its own, ``GET /wda/locked`` (and, when the driver
  launched an app, that app's state) says whether the lock screen or a panel covers the app
  (``Scene.cover``, :func:`drivers.covers.springboard_cover`).
- ``tap``/``long_press``/``swipe``/``type_text``/``press`` are one request each once a session
  exists (``connect()`` opens or adopts it). ``launch_app``, ``terminate_app`` and ``current_app``
  are :class:`drivers.wda.apps.WdaApps`: the launch and one state check when the app comes to the
  front; refusals classified by FrontBoard's reason; a launch WDA before 5.1.1 never answers is an
  app error, not a timeout to repeat.
- Replies of the archived Facebook WebDriverAgent (HTTP 200 with a non-zero JSON-wire ``status``)
  are errors, mapped like W3C ones (:func:`drivers.wda.errors.json_wire_error`); its only tap route
  is ``/wda/tap/:uuid``, which the tap falls back to, so a tap never silently does nothing.
- Every request has this driver's own ``timeout`` (facebook-wda's default is a module-wide 180 s):
  :class:`~drivers.wda.client.TimedClient` applies it to each request the client makes, so
  drivers with different timeouts can share a process. A request that gets no answer in time is
  ``DeviceTimeout``.
  Limitation: over ``http+usbmux://`` (``ios:UDID``) facebook-wda 1.5.4 connects through usbmuxd
  with no timeout (the requests on that connection have one), so a usbmuxd that never answers the
  connect can block; where a bound matters, forward the port (``iproxy 8100 8100``, ``ios
  forward``) and use ``ios:http://127.0.0.1:8100``.
- One HTTP/1.1 connection is kept alive per driver (:mod:`drivers.wda.http`); facebook-wda opens a
  new one for every request.
- facebook-wda's hidden retries are not used: its error callback (which renews the session and
  repeats the call up to ten times) is removed, ``tap`` is not the client's ``tap()`` (which repeats
  any failed tap on the legacy ``/wda/tap/0`` route, so a tap that timed out would happen twice),
  and typing and ``activeAppInfo`` skip the client's retry decorators. The driver's own retries are
  explicit, bounded and in one place, :meth:`WdaDriver._call`: a lost session is renewed once; the
  command is sent again only when WDA's answer shows it never ran (WDA refuses a command under a
  lost session before any handler runs) *and* the screen it was aimed at is still there (an unknown
  session: WDA restarted) or the call is safe to repeat (it only reads). After "… is not running,
  possibly crashed" a tap, a type, a swipe, a press or a launch is not sent again: ``SessionLost``
  says the app crashed. A failure on the wire (a dropped or reset connection) is never repeated.
  The legacy tap route is tried once, only when WDA answers ``unknown command`` for ``/wda/tap``.
- Client errors become :mod:`core.errors` by the table in :mod:`drivers.wda.errors`, chained.

Constructors do no I/O; ``connect()`` (or the first call) talks to WDA.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

from ...core.apps import SPRINGBOARD
from ...core.errors import (
    AppLaunchFailed,
    ConfigError,
    DeviceError,
    DeviceOffline,
    HarnessError,
    SessionLost,
    StepArgumentError,
)
from ...core.models import Platform, Scene
from ..base import coordinate, erase_count, gesture_seconds, location
from ..covers import LOCKED_HINT, springboard_cover
from ..kinds import split_kind, wda_url_kind
from ..options import seconds, server_url, whole_number
from .answers import lost_session, not_wda
from .apps import WdaApps
from .client import TimedClient, WdaConfig
from .errors import CLIENT_ERRORS, WdaCall, map_error, wda_error
from .simctl import Simctl, XcrunSimctl
from .simulator import WdaSimulator
from .state import IosState

__all__ = ["WdaConfig", "WdaDriver", "connect_spec"]

log = logging.getLogger(__name__)

T = TypeVar("T")
SUPPORTED_KEYS: Final = ("home", "enter", "volume_up", "volume_down")
SPEC_OPTIONS: Final = frozenset({"timeout", "launch_timeout", "device_id", "port"})
_UDID = re.compile(r"[0-9A-Fa-f][0-9A-Fa-f-]{19,63}")


def _png_or_jpeg(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") or data.startswith(b"\xff\xd8\xff")


class WdaDriver(WdaSimulator, WdaApps, IosState):
    """One iPhone (or iOS simulator) through a WebDriverAgent server, implementing ``Driver``."""

    backend = "wda"
    animates = True  # a phone's screen moves on after an action: the loop waits for it to settle

    def __init__(
        self,
        url: str,
        *,
        device_id: str | None = None,
        config: WdaConfig | None = None,
        on_close: Callable[[], None] | None = None,
        kind: str | None = None,
        simctl: Simctl | None = None,
    ) -> None:
        try:
            server_url(url, "the WebDriverAgent URL", ("http", "https", "http+usbmux"))
        except ConfigError as exc:
            raise ConfigError(
                exc.message,
                hint="use http://HOST:PORT (e.g. http://127.0.0.1:8100) or http+usbmux://UDID:8100",
            ) from exc
        self.url = url.rstrip("/")
        self.config = config or WdaConfig()
        self._device_id = device_id or f"wda@{urlsplit(url).netloc}"
        self._on_close = on_close
        self._client: TimedClient | None = None
        self._session_id: str | None = None
        self._owns_session = False
        self._legacy_tap = False
        self._closed = False
        self._lock = threading.RLock()
        self._wda_version: tuple[int, ...] | None = None  # from /status build.version (WDA 8.3.0+)
        self._os_version: str | None = None
        self._launched: str | None = None  # the app the last successful launch_app brought up
        self._app_names: dict[str, str] = {}  # application element name -> bundle id (WDA < 10.1.0)
        # An iOS Simulator or a device (amc.drivers.kinds), and the simctl that reaches a Simulator.
        self.kind = kind or ("device" if url.startswith("http+usbmux") else wda_url_kind(url))
        self._simctl: Simctl | None = (
            simctl if simctl is not None else (XcrunSimctl() if self.kind == "simulator" else None)
        )
        self._on_phone = False  # /status says a physical iPhone, though the spec said a Simulator
        self._notifications: dict[str, str] = {}  # bundle id -> allow/deny for its notification alert

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        device_id: str | None = None,
        timeout: float = WdaConfig.timeout,
        launch_timeout: float = WdaConfig.launch_timeout,
        on_close: Callable[[], None] | None = None,
        kind: str | None = None,
        simctl: Simctl | None = None,
    ) -> WdaDriver:
        """A driver for the WDA at ``url`` (``http://HOST:PORT``, ``?kind=`` taken off: its kind,
        :mod:`amc.drivers.kinds`). No I/O until ``connect()``."""
        config = WdaConfig(timeout=timeout, launch_timeout=launch_timeout)
        bare, given = split_kind(url)
        return cls(
            bare,
            device_id=device_id,
            config=config,
            on_close=on_close,
            kind=kind or given or wda_url_kind(url),
            simctl=simctl,
        )

    @classmethod
    def from_udid(
        cls,
        udid: str,
        *,
        port: int = 8100,
        timeout: float = WdaConfig.timeout,
        launch_timeout: float = WdaConfig.launch_timeout,
    ) -> WdaDriver:
        """A USB iPhone through usbmuxd: the URL ``wda.USBClient(udid, port)`` uses, without the
        ``USBClient`` constructor's own network check. No I/O until ``connect()``."""
        if not isinstance(udid, str) or not _UDID.fullmatch(udid):
            raise ConfigError(f"{udid!r} does not look like an iPhone UDID")
        config = WdaConfig(timeout=timeout, launch_timeout=launch_timeout)
        return cls(f"http+usbmux://{udid}:{int(port)}", device_id=udid, config=config)

    # --- Driver properties ------------------------------------------------------------------

    @property
    def device_id(self) -> str:
        return self._device_id

    @property
    def platform(self) -> Platform:
        return "ios"

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def os_version(self) -> str | None:
        """The iOS version ``/status`` reported at connect."""
        return self._os_version

    @property
    def wda_version(self) -> str | None:
        """WebDriverAgent's version when ``/status`` tells it (``build.version``, WDA 8.3.0 and later)."""
        return ".".join(map(str, self._wda_version)) if self._wda_version else None

    # --- plumbing ---------------------------------------------------------------------------

    def _ensure_client(self) -> TimedClient:
        if self._closed:
            raise DeviceError(f"the WdaDriver for {self.device_id} is closed")
        if self._client is None:
            self._client = TimedClient(self.url, self.config.timeout)
        return self._client

    def _request(self, op: str, fn: Callable[[TimedClient], T], *, app_id: str | None = None) -> T:
        """One client call, its errors mapped through the table (no session handling, no retry)."""
        client = self._ensure_client()
        try:
            return fn(client)
        except CLIENT_ERRORS as exc:
            raise map_error(exc, WdaCall(op, self.url, self.config.timeout, app_id)) from exc

    def _call(self, op: str, fn: Callable[[TimedClient], T], *, repeat: bool, app_id: str | None = None) -> T:
        """A session call (a session is opened if there is none): the one place that decides whether
        a command goes out again after WDA lost the session (see the module docstring). WDA refused
        it before running it (FBRoute.m, FBSession.m), so the session is renewed once; the command is
        sent again only if the screen it was aimed at is still there (an unknown session) or
        ``repeat`` says the call is safe to repeat. After a crash an action fails as ``SessionLost``."""
        self._ensure_session()
        client = self._ensure_client()
        try:
            return fn(client)
        except CLIENT_ERRORS as exc:
            lost = lost_session(exc)
            if lost is None:
                raise map_error(exc, WdaCall(op, self.url, self.config.timeout, app_id)) from exc
            first = exc
        log.warning("WDA at %s: %s (%s); opening a new session", self.url, lost.what, op)
        self._new_session()
        if not (lost.screen_kept or repeat):
            raise SessionLost(
                f"{lost.what}; WebDriverAgent has a new session, but {op} was not sent again: "
                "the screen it was aimed at is gone",
                hint="the app crashed: check its crash log (Xcode's Devices window, or Settings > Privacy > "
                "Analytics Data), launch it again and observe the screen before the next step",
            ) from first
        try:
            return fn(client)
        except CLIENT_ERRORS as exc:
            raise map_error(exc, WdaCall(op, self.url, self.config.timeout, app_id)) from exc

    def _new_session(self) -> str:
        payload: dict[str, Any] = {"capabilities": {}, "desiredCapabilities": {}}
        reply = self._request("POST /session", lambda c: c.http.post("session", payload))
        value = reply.get("value") if isinstance(reply, dict) else None
        sid = reply.get("sessionId") if isinstance(reply, dict) else None
        if not sid and isinstance(value, dict):
            sid = value.get("sessionId")
        if not isinstance(sid, str) or not sid:
            raise DeviceError(
                f"WebDriverAgent at {self.url} created a session but sent no session id: {reply!r}"
            )
        with self._lock:
            self._session_id, self._owns_session = sid, True
            self._ensure_client().session_id = sid
        return sid

    def _adopt(self, sid: object) -> bool:
        """Use the session WDA reports as running (not ours to delete); False when there is none."""
        if not isinstance(sid, str) or not sid:
            return False
        with self._lock:
            self._session_id, self._owns_session = sid, False
            self._ensure_client().session_id = sid
        return True

    def _ensure_session(self) -> None:
        with self._lock:
            if self._session_id is None and not self._adopt(self.status().get("sessionId")):
                self._new_session()

    def _locked(self) -> bool | None:
        """``GET /wda/locked``; None when this WDA has no such route (the archived Facebook WDA)."""
        try:
            return self._request("GET /wda/locked", lambda c: c.locked()) is True
        except DeviceError as exc:
            if exc.__cause__ is not None and wda_error(exc.__cause__)[0] == "unknown command":
                return None
            raise

    def _check_unlocked(self) -> None:
        if self._locked() is True:
            raise DeviceOffline(
                f"the iPhone behind {self.url} is locked",
                state="locked",
                hint=LOCKED_HINT,
            )

    def _active_bundle(self) -> str | None:
        info = self._request("GET /wda/activeAppInfo", lambda c: c.http.get("/wda/activeAppInfo").value)
        if not isinstance(info, dict):
            raise DeviceError(f"WebDriverAgent at {self.url} answered activeAppInfo with {info!r}")
        bundle = info.get("bundleId")
        return bundle if isinstance(bundle, str) and bundle and bundle != "unknown" else None

    # --- connection -------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """``GET /status``: WDA's status (``ready``, ``os``, ``build`` …) with the top-level ``sessionId``."""
        reply = self._request("GET /status", lambda c: c.http.get("status"))
        value = reply.get("value") if isinstance(reply, dict) else None
        if not isinstance(value, dict):
            raise DeviceError(
                f"the server at {self.url} does not answer /status as WebDriverAgent: {reply!r}"
            )
        return {**value, "sessionId": reply.get("sessionId")}

    def connect(self) -> WdaDriver:
        """Check that WDA answers and the phone is unlocked, and open (or adopt) a session."""
        status = self.status()
        other = not_wda(status, self.url)
        if other is not None:
            raise other
        if status.get("ready") is False:
            raise DeviceError(f"WebDriverAgent at {self.url} is not ready: {status!r}")
        self._learn(status)
        self._check_unlocked()
        with self._lock:
            if not self._adopt(status.get("sessionId")):
                self._new_session()
        return self

    def _learn(self, status: Mapping[str, Any]) -> None:
        os_info, build = status.get("os"), status.get("build")
        if isinstance(os_info, dict) and isinstance(os_info.get("version"), str):
            self._os_version = os_info["version"]
        ios = status.get("ios")
        if self.kind == "simulator" and isinstance(ios, dict) and "simulatorVersion" not in ios:
            self._on_phone = True  # FBSessionCommands.m: simulatorVersion only under TARGET_OS_SIMULATOR
        version = build.get("version") if isinstance(build, dict) else None
        if isinstance(version, str) and re.fullmatch(r"\d+(\.\d+)*", version):
            self._wda_version = tuple(int(part) for part in version.split("."))

    def close(self) -> None:
        """Delete the session this driver opened (best effort, short timeout) and release the face."""
        if self._closed:
            return
        try:
            if self._owns_session and self._session_id is not None and self._client is not None:
                wait = min(self.config.timeout, 2.0)
                self._request("DELETE /session", lambda c: c._session_http.delete("/", timeout=wait))
        except HarnessError as exc:
            log.info("closing the WDA session at %s failed: %s", self.url, exc)
        finally:
            self._closed = True
            self._session_id = None
            if self._client is not None:
                self._client.http_connection.close()
            if self._on_close is not None:
                self._on_close()

    # --- Driver -----------------------------------------------------------------------------

    def observe(self) -> Scene:
        from ..hierarchy import parse_source

        started = time.perf_counter()
        source = self._request("GET /source", lambda c: c.source())
        if not isinstance(source, str):
            raise DeviceError(
                f"WebDriverAgent at {self.url} sent a source that is not text: {type(source).__name__}"
            )
        scene = parse_source(source, platform="ios", device_id=self.device_id, backend=self.backend)
        if scene.foreground_app is None:
            scene = dataclasses.replace(scene, foreground_app=self._bundle_of(scene))
        if scene.foreground_app == SPRINGBOARD:  # the home screen, or something over the app
            launched = self._launched
            cover = springboard_cover(
                scene, self._locked, lambda: self._app_state(launched) if launched is not None else None
            )
            scene = dataclasses.replace(scene, cover=cover)
        return dataclasses.replace(scene, capture_duration=time.perf_counter() - started)

    def _bundle_of(self, scene: Scene) -> str | None:
        """The bundle id of the application a source without ``bundleId`` (WDA before 10.1.0) shows:
        asked once per application name with ``/wda/activeAppInfo``, then remembered, so observing
        costs one request once an app has been seen."""
        root = scene.root
        name = (root.identifier or root.label or "") if root.type == "XCUIElementTypeApplication" else ""
        known = self._app_names.get(name) if name else None
        if known is not None:
            return known
        bundle = self._active_bundle()
        if name and bundle:
            self._app_names[name] = bundle
        return bundle

    def tap(self, x: int, y: int) -> None:
        point = {"x": coordinate(x, "x"), "y": coordinate(y, "y")}
        if not self._legacy_tap:
            try:
                self._call("POST /wda/tap", lambda c: c._session_http.post("/wda/tap", point), repeat=False)
                return
            except DeviceError as exc:
                if exc.__cause__ is None or wda_error(exc.__cause__)[0] != "unknown command":
                    raise
                log.info("WDA at %s has no /wda/tap (WDA < 6); using /wda/tap/0", self.url)
                self._legacy_tap = True
        self._call("POST /wda/tap/0", lambda c: c._session_http.post("/wda/tap/0", point), repeat=False)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        px, py = coordinate(x, "x"), coordinate(y, "y")
        held = gesture_seconds(duration, "long_press duration", held=True)
        # WDA answers once XCTest's press is over (pressForDuration: blocks that long): the request
        # may take the hold on top of the usual answer time.
        data = {"x": px, "y": py, "duration": held}
        wait = self.config.timeout + held
        self._call(
            "POST /wda/touchAndHold",
            lambda c: c._session_http.post("/wda/touchAndHold", data, wait),
            repeat=False,
        )

    def type_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise StepArgumentError(f"type_text needs a string, got {text!r}")
        if not text:
            return
        self._call(
            "POST /wda/keys",
            lambda c: c._session_http.post("/wda/keys", {"value": list(text)}),
            repeat=False,
        )

    def erase_text(self, count: int) -> None:
        """``POST /wda/keys`` with ``count`` backspaces: XCUITest types a backspace character as
        the keyboard's delete key (XCUIKeyboardKeyDelete is U+0008)."""
        n = erase_count(count)
        self._call(
            "POST /wda/keys",
            lambda c: c._session_http.post("/wda/keys", {"value": ["\b"] * n}),
            repeat=False,
        )

    def set_location(self, latitude: float, longitude: float) -> None:
        """``POST /wda/simulatedLocation`` (Appium's WebDriverAgent, from 4.10 on iOS 16.4 and
        later: XCUIDevice's ``location``)."""
        lat, lon = location(latitude, longitude)
        body = {"latitude": lat, "longitude": lon}
        self._call(
            "POST /wda/simulatedLocation",
            lambda c: c._session_http.post("/wda/simulatedLocation", body),
            repeat=True,
        )

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        points = [coordinate(v, n) for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2))]
        travel = gesture_seconds(duration, "swipe duration", held=False)
        data = dict(zip(("fromX", "fromY", "toX", "toY"), points, strict=True)) | {"duration": travel}
        wait = self.config.timeout + travel  # the press before the drag lasts ``duration``
        self._call(
            "POST /wda/dragfromtoforduration",
            lambda c: c._session_http.post("/wda/dragfromtoforduration", data, wait),
            repeat=False,
        )

    def press(self, key: str) -> None:
        if key == "home":
            self._request("POST /wda/homescreen", lambda c: c.home())
        elif key == "enter":
            self.type_text("\n")
        elif key in ("volume_up", "volume_down"):
            name = "volumeUp" if key == "volume_up" else "volumeDown"
            self._call("POST /wda/pressButton", lambda c: c.press(name), repeat=False)
        else:
            raise StepArgumentError(
                f"key {key!r} is not supported on iOS through WebDriverAgent; "
                f"supported: {', '.join(SUPPORTED_KEYS)}",
                hint="iOS has no back key: tap the app's back button (often the top-left one) instead"
                if key == "back"
                else None,
            )

    def screenshot(self) -> bytes:
        data = self._request("GET /screenshot", lambda c: c.screenshot(format="raw"))
        if not isinstance(data, bytes) or not _png_or_jpeg(data):
            raise DeviceError(
                f"WebDriverAgent at {self.url} sent a screenshot that is not a PNG or JPEG image"
            )
        return data

    def hide_keyboard(self) -> None:
        """``POST /session/:id/wda/keyboard/dismiss`` (WebDriverAgent's FBCustomCommands route; the
        iPhone's keyboard has no generic hide key, so WDA tries the usual dismiss keys). facebook-wda's
        own ``keyboard_dismiss`` refuses to run ("not pass tests"), so the request is sent directly."""
        self._call(
            "POST /wda/keyboard/dismiss",
            lambda c: c._session_http.post("/wda/keyboard/dismiss", {}),
            repeat=False,
        )

    def open_link(self, url: str, app_id: str | None = None) -> None:
        """``POST /session/:id/url`` with ``{"url": …}`` (FBSessionCommands' handleOpenURL, what
        facebook-wda's ``open_url`` sends), plus ``bundleId`` when an app is named (WDA opens it with
        that app where iOS allows, 16.4 and later). A link iOS cannot open is ``AppLaunchFailed``."""
        body: dict[str, str] = {"url": url}
        if app_id is not None:
            body["bundleId"] = app_id
        try:
            self._call("POST /url", lambda c: c._session_http.post("/url", body), repeat=False, app_id=app_id)
        except DeviceError as exc:
            if exc.__cause__ is None or wda_error(exc.__cause__)[0] not in (
                "unknown error",
                "invalid argument",
            ):
                raise
            raise AppLaunchFailed(
                f"the iPhone could not open {url}: {wda_error(exc.__cause__)[1][:300]}",
                app_id=app_id,
                hint="check the link, and that the app that handles its scheme is installed",
            ) from exc

    def __repr__(self) -> str:
        return f"WdaDriver(url={self.url!r}, device_id={self.device_id!r})"


# --- composition root hooks -------------------------------------------------------------------


def connect_spec(target: str, options: Mapping[str, Any]) -> WdaDriver:
    """``ios:http://HOST:PORT`` or ``ios:UDID`` (USB, through usbmuxd) as a connected ``WdaDriver``.

    Options: ``timeout`` and ``launch_timeout`` (seconds), ``device_id`` (for a URL), ``port`` (the
    WDA port on the phone, for a UDID; default 8100).
    """
    unknown = sorted(set(options) - SPEC_OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown option(s) {', '.join(unknown)} for ios:; accepted: {', '.join(sorted(SPEC_OPTIONS))}"
        )
    timeout = seconds(options, "timeout", WdaConfig.timeout)
    launch_timeout = seconds(options, "launch_timeout", WdaConfig.launch_timeout)
    if re.match(r"(https?|http\+usbmux)://", target):
        driver = WdaDriver.from_url(
            target, device_id=options.get("device_id"), timeout=timeout, launch_timeout=launch_timeout
        )
    elif _UDID.fullmatch(target):
        port = whole_number(options, "port", 8100, low=1, high=65535)
        driver = WdaDriver.from_udid(target, port=port, timeout=timeout, launch_timeout=launch_timeout)
    else:
        raise ConfigError(
            f"bad iOS target {target!r}",
            hint="use ios:http://HOST:PORT for a running WebDriverAgent or ios:UDID for a USB iPhone",
        )
    return driver.connect()
