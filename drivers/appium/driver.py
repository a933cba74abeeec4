"""``AppiumDriver``: Android (UiAutomator2) and iOS (XCUITest) through an Appium 3 server or a
Selenium Grid of them, over ``Appium-Python-Client`` 6.

Built from a server URL and the client's typed options (``UiAutomator2Options``,
``XCUITestOptions``; :func:`options_for` makes them); the constructor does no I/O, the first call
(or :meth:`AppiumDriver.connect`) creates the session. What each call costs on the wire:

======================  ==========================================================================
call                    requests
======================  ==========================================================================
session start           ``POST /session`` (+ one ``POST …/appium/settings`` when settings are set)
``observe()``           ``GET …/source``, parsed by :func:`drivers.hierarchy.parse_source`; on iOS
                        the first time an app's name is seen, + ``mobile: activeAppInfo`` to learn
                        its bundle id (the XCUITest source does not carry it)
``tap`` / ``long_press``  one ``POST …/actions`` (W3C pointer: move, down, [pause], up)
``swipe``               one ``POST …/actions`` (move, down, move over ``duration``, up)
``launch_app``          ``mobile: activateApp`` + the check that the app is in front (Android:
                        ``getCurrentPackage``, where a runtime-permission prompt it asked for counts;
                        iOS: ``queryAppState`` is 4, also under a SpringBoard alert), repeated until
                        it is or ``launch_timeout``; a refusal is read as FrontBoard's reason (iOS)
                        or ``queryAppState`` 0 (Android) tells ``AppNotInstalled`` apart
``terminate_app``       ``mobile: terminateApp``
``current_app``         ``mobile: getCurrentPackage`` (Android) / ``mobile: activeAppInfo`` (iOS)
``type_text``           one ``POST …/actions`` (W3C key actions into the focused field)
``press``               ``mobile: pressKey`` with a keycode (Android) / ``mobile: pressButton``
                        (iOS); iOS ``enter`` is the W3C Enter key as a key action
``screenshot``          ``GET …/screenshot``
======================  ==========================================================================

Client errors are mapped into :mod:`core.errors` by the table in :mod:`drivers.appium.errors`.
``urllib3``'s own retries are off (``Retry(connect=0, read=0, …)``): a call makes one attempt,
bounded by ``timeout``; retrying is the task loop's decision. After ``SessionLost`` the next call
starts a new session (one attempt, no loop).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast
from urllib.parse import ParseResult, SplitResult, urlsplit

import urllib3
from appium.options.common import AppiumOptions
from appium.webdriver.appium_connection import HEADER_IDEMOTENCY_KEY, AppiumConnection
from appium.webdriver.client_config import AppiumClientConfig
from appium.webdriver.webdriver import WebDriver
from selenium.common import exceptions as se
from selenium.webdriver.common.proxy import Proxy, ProxyType
from selenium.webdriver.remote.command import Command
from urllib3.util.retry import Retry

from ...core.apps import SPRINGBOARD
from ...core.errors import (
    ConfigError,
    DeviceError,
    SceneParseError,
    StepArgumentError,
)
from ...core.models import Platform, Scene
from ..base import coordinate, erase_count, gesture_seconds, location, timeout_seconds
from ..covers import springboard_cover
from ..hierarchy import parse_source
from .apps import AppiumApps
from .capabilities import options_for, platform_of, split_url
from .commands import DeviceCommands
from .elements import LOCATORS, AppiumElement, ServerElements
from .errors import CLIENT_ERRORS, AppiumCall, NonW3CReply, StrictErrorHandler, map_error, raw_reply_error
from .state import AppiumState
from .transport import bounded_pool_manager

__all__ = [
    "ANDROID_KEYCODES",
    "IOS_BUTTONS",
    "LOCATORS",
    "AppiumDriver",
    "AppiumElement",
    "options_for",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_TIMEOUT = 60.0
DEFAULT_SESSION_TIMEOUT = 300.0
DEFAULT_LAUNCH_TIMEOUT = 10.0
ANDROID_KEYCODES: dict[str, int] = dict(
    home=3, back=4, enter=66, volume_up=24, volume_down=25, menu=82, recent=187, power=26
)
IOS_BUTTONS: dict[str, str] = {"home": "home", "volume_up": "volumeUp", "volume_down": "volumeDown"}
W3C_ENTER = "\ue007"  # the W3C Enter key: the keyboard's return key on iOS
W3C_BACKSPACE = "\ue003"  # the W3C Backspace key
_NO_RETRIES = Retry(total=None, connect=0, read=0, redirect=3, status=0, other=0)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class _CountingConnection(AppiumConnection):
    """Appium's HTTP connection, counting the commands it sends (what a test reads as cost)."""

    def __init__(self, client_config: AppiumClientConfig, counter: Callable[[str], None]) -> None:
        super().__init__(client_config=client_config)
        self._counter = counter

    def _get_connection_manager(self) -> urllib3.PoolManager:
        """Selenium's pool manager (its options: timeout, certificates, proxy), but for a direct
        connection one whose every reply is bounded (:mod:`drivers.appium.transport`)."""
        manager = super()._get_connection_manager()  # type: ignore[no-untyped-call]
        if type(manager) is not urllib3.PoolManager:  # a proxy's: its own connection classes
            return cast(urllib3.PoolManager, manager)
        bounded = bounded_pool_manager(**manager.connection_pool_kw)
        manager.clear()
        return bounded

    def _request(self, method: str, url: str, body: str | None = None) -> dict[str, Any]:
        """Selenium's request, with the two replies it cannot read made a :class:`NonW3CReply`: a
        body that is not UTF-8 (Selenium decodes it before anything else) and a JSON body that is
        not an object (Selenium sets its ``value`` key)."""
        try:
            return cast(dict[str, Any], super()._request(method, url, body=body))
        except UnicodeDecodeError as exc:
            text = bytes(exc.object).decode("utf-8", errors="replace")
            raise NonW3CReply(0, text) from exc
        except TypeError as exc:
            raise NonW3CReply(200, "a JSON value that is not an object") from exc

    def execute(self, command: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one command; a reply whose body is not JSON is an error here already (also while a
        session starts, before :class:`StrictErrorHandler` is in place)."""
        self._counter(command)
        response: dict[str, Any] = super().execute(command, params)  # type: ignore[no-untyped-call]
        raw = raw_reply_error(response)
        if raw is not None:
            raise raw
        return response

    def get_remote_connection_headers(  # type: ignore[override]
        self, parsed_url: SplitResult | ParseResult, keep_alive: bool = True
    ) -> dict[str, str]:
        """This connection's headers, with a fresh idempotency key on a new-session request.

        ``AppiumConnection`` keeps that key in a dict shared by every connection in the process, so
        two threads starting sessions at once could send the same key and be handed one session.
        """
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/json;charset=UTF-8",
            "User-Agent": str(self.user_agent),
        }
        if keep_alive:
            headers["Connection"] = "keep-alive"
        if parsed_url.path.endswith("/session"):
            headers[HEADER_IDEMOTENCY_KEY] = str(uuid.uuid4())
        return headers


class AppiumDriver(AppiumApps, DeviceCommands, ServerElements, AppiumState):
    """One device through an Appium server (or Grid); implements :class:`drivers.base.Driver`, and
    finds and acts on server-side elements (:class:`~drivers.appium.elements.ServerElements`)."""

    backend = "appium"
    animates = True  # a phone's screen moves on after an action: the loop waits for it to settle

    def __init__(
        self,
        server_url: str,
        options: AppiumOptions,
        *,
        platform: Platform | None = None,
        device_id: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        session_timeout: float = DEFAULT_SESSION_TIMEOUT,
        launch_timeout: float = DEFAULT_LAUNCH_TIMEOUT,
        settings: Mapping[str, Any] | None = None,
        on_close: Callable[[], None] | None = None,
        kind: str | None = None,
    ) -> None:
        if not isinstance(options, AppiumOptions):
            raise ConfigError(
                f"AppiumDriver needs Appium options (e.g. UiAutomator2Options), got {options!r}"
            )
        self.server_url, self._username, self._password = split_url(server_url)
        self._platform = platform_of(options, platform)
        self.options = options
        self.timeout = timeout_seconds(timeout, "AppiumDriver timeout")
        self.session_timeout = timeout_seconds(session_timeout, "AppiumDriver session_timeout")
        self.launch_timeout = timeout_seconds(launch_timeout, "AppiumDriver launch_timeout")
        self.settings: dict[str, Any] = dict(settings or {})
        udid = options.get_capability("udid")
        netloc = urlsplit(self.server_url).netloc
        self._device_id = device_id or (udid if isinstance(udid, str) and udid else f"appium@{netloc}")
        self._on_close = on_close
        self._lock = threading.Lock()
        self._wd: WebDriver | None = None
        self._closed = False
        self._app_names: dict[str, str] = {}  # iOS: application element name -> bundle id
        self._categories: dict[str, str] = {}  # Android: package -> the launcher category that starts it
        self._launched: str | None = None  # the app the last successful launch_app brought up
        self._config: AppiumClientConfig | None = None
        self.requests = 0  # commands sent, session creation included
        self.sessions_started = 0
        # An iOS Simulator or a device (amc.drivers.kinds): an iPhone is a Simulator unless told.
        self.kind = kind or ("simulator" if self._platform == "ios" else "device")
        if self.kind not in ("simulator", "device"):
            raise ConfigError(f"AppiumDriver kind must be simulator or device, got {kind!r}")

    # --- identity ---------------------------------------------------------------------------

    @property
    def device_id(self) -> str:
        return self._device_id

    @property
    def platform(self) -> Platform:
        return self._platform

    @property
    def session_id(self) -> str | None:
        wd = self._wd
        return None if wd is None else wd.session_id

    @property
    def os_version(self) -> str | None:
        """The platform version the server reported for the session (``platformVersion``)."""
        version = self.capabilities.get("platformVersion")
        return version if isinstance(version, str) and version.strip() else None

    @property
    def capabilities(self) -> dict[str, Any]:
        """What the server said it created the session with (empty before the session)."""
        wd = self._wd
        return {} if wd is None else dict(wd.caps)

    def __repr__(self) -> str:
        return f"AppiumDriver({self.server_url!r}, platform={self.platform!r}, device_id={self.device_id!r})"

    # --- session ----------------------------------------------------------------------------

    def _count(self, command: str) -> None:
        self.requests += 1

    def connect(self) -> AppiumDriver:
        """Create the session now (otherwise the first call does). Returns self."""
        self._driver()
        return self

    def _driver(self) -> WebDriver:
        if self._closed:
            raise DeviceError(f"the AppiumDriver for {self.device_id} is closed")
        with self._lock:
            if self._wd is None:
                self._wd = self._start_session()
            return self._wd

    def _start_session(self) -> WebDriver:
        proxy = Proxy({"proxyType": ProxyType.DIRECT["string"]}) if _is_loopback(self.server_url) else None
        config = AppiumClientConfig(
            remote_server_addr=self.server_url,
            keep_alive=True,
            proxy=proxy,
            username=self._username,
            password=self._password,
            init_args_for_pool_manager={"init_args_for_pool_manager": {"retries": _NO_RETRIES}},
        )
        config.timeout = self.session_timeout
        self._config = config
        connection = _CountingConnection(config, self._count)
        try:
            wd = WebDriver(command_executor=connection, options=self.options)
        except CLIENT_ERRORS as exc:
            connection.close()  # type: ignore[no-untyped-call]
            call = AppiumCall(
                "starting an Appium session", self.server_url, self.session_timeout, creating_session=True
            )
            raise map_error(exc, call) from exc
        wd.error_handler = StrictErrorHandler()
        config.timeout = self.timeout
        other = _not_appium(wd.capabilities, self.server_url)
        if other is not None:
            _quit_quietly(wd)
            raise other
        self.sessions_started += 1
        log.info("Appium session %s on %s (%s)", wd.session_id, self.server_url, self.platform)
        if self.settings:
            try:
                wd.update_settings(dict(self.settings))
            except CLIENT_ERRORS as exc:
                _quit_quietly(wd)
                call = AppiumCall("applying Appium settings", self.server_url, self.timeout)
                raise map_error(exc, call) from exc
        return wd

    def _discard_session(self, *, end: bool = False) -> None:
        """Forget the session, so the next call starts a new one; ``end`` first ends it on the
        server (``DELETE /session/ID``, errors only logged), for a session the server still holds
        though what it drives died (a crashed UiAutomator2 instrumentation, a dead WebDriverAgent)."""
        with self._lock:
            wd, self._wd = self._wd, None
        if wd is None:
            return
        if end:
            _quit_quietly(wd)
        else:
            wd.command_executor.close()  # type: ignore[no-untyped-call]

    def _run(self, action: str, call: Callable[[WebDriver], T]) -> T:
        """One client call with errors mapped, never repeated here; a lost session is dropped (and
        ended on the server when it still holds it) so the next call starts a new one: the one
        recovery, left to the caller to use."""
        wd = self._driver()
        try:
            return call(wd)
        except CLIENT_ERRORS as exc:
            error = map_error(exc, AppiumCall(action, self.server_url, self.timeout))
            if error.kind == "SessionLost":
                self._discard_session(end=not isinstance(exc, se.InvalidSessionIdException))
            raise error from exc

    def _mobile(self, name: str, args: Mapping[str, Any] | None = None) -> Any:
        script = f"mobile: {name}"
        return self._run(script, lambda wd: wd.execute_script(script, dict(args or {})))

    def close(self) -> None:
        """End the session (``DELETE /session/ID``, errors only logged) and release connections."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            wd, self._wd = self._wd, None
        try:
            if wd is not None:
                _quit_quietly(wd)
        finally:
            if self._on_close is not None:
                self._on_close()

    # --- observe ----------------------------------------------------------------------------

    def observe(self) -> Scene:
        started = time.perf_counter()
        source = self._run("reading the page source", lambda wd: wd.page_source)
        if not isinstance(source, str):
            raise SceneParseError(
                f"the page source reply is {type(source).__name__}, not text", format="appium"
            )
        scene = parse_source(source, platform=self.platform, device_id=self.device_id, backend=self.backend)
        if self.platform == "ios" and scene.foreground_app is None:
            scene = dataclasses.replace(scene, foreground_app=self._ios_app_for(scene))
        if self.platform == "ios" and scene.foreground_app == SPRINGBOARD:  # home, or over the app
            launched = self._launched
            cover = springboard_cover(
                scene, self._locked, lambda: self._app_state(launched) if launched is not None else None
            )
            scene = dataclasses.replace(scene, cover=cover)
        return dataclasses.replace(
            scene, captured_at=time.time(), capture_duration=time.perf_counter() - started
        )

    def _ios_app_for(self, scene: Scene) -> str | None:
        """The bundle id of the application the XCUITest source shows (it does not carry one): known
        from an earlier Scene with the same application name, else asked once with activeAppInfo."""
        root = scene.root
        if root.type != "XCUIElementTypeApplication":
            return None
        name = root.identifier or root.label or ""  # WDA's name: the identifier, else the label
        known = self._app_names.get(name)
        if known is not None:
            return known
        bundle, shown = self._active_app()
        if shown and shown != name:
            return None  # another app came to the front between the two requests
        self._app_names[name] = bundle
        return bundle

    # --- apps -------------------------------------------------------------------------------

    # --- input ------------------------------------------------------------------------------

    def _pointer(self, *moves: dict[str, Any]) -> None:
        source = {
            "type": "pointer",
            "id": "finger1",
            "parameters": {"pointerType": "touch"},
            "actions": list(moves),
        }
        self._run("performing W3C actions", lambda wd: wd.execute(Command.W3C_ACTIONS, {"actions": [source]}))

    def tap(self, x: int, y: int) -> None:
        self._pointer(_move(x, y), _DOWN, _UP)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        held = _ms(gesture_seconds(duration, "long_press duration", held=True))
        self._pointer(_move(x, y), _DOWN, {"type": "pause", "duration": held}, _UP)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        travel = _ms(gesture_seconds(duration, "swipe duration", held=False))
        start, end = _move(x1, y1, names=("x1", "y1")), _move(x2, y2, travel, names=("x2", "y2"))
        self._pointer(start, _DOWN, end, _UP)

    def _keys(self, text: str) -> None:
        """W3C key actions typing ``text`` (one keyDown/keyUp pair per character) into the focus."""
        actions: list[dict[str, Any]] = []
        for ch in text:
            actions += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        source = {"type": "key", "id": "keyboard", "actions": actions}
        self._run("typing", lambda wd: wd.execute(Command.W3C_ACTIONS, {"actions": [source]}))

    def type_text(self, text: str) -> None:
        """Type into the focused field as W3C key actions (one request; with nothing focused the
        keys go nowhere, as on a phone). UiAutomator2 types ASCII this way; XCUITest any text."""
        if not isinstance(text, str):
            raise StepArgumentError(f"type_text needs a string, got {text!r}")
        if text:
            self._keys(text)

    def erase_text(self, count: int) -> None:
        """W3C key actions pressing Backspace (U+E003) ``count`` times: one request on either
        platform (UiAutomator2 sends KEYCODE_DEL, XCUITest the keyboard's delete key)."""
        self._keys(W3C_BACKSPACE * erase_count(count))

    def set_location(self, latitude: float, longitude: float) -> None:
        """``POST /session/ID/location`` (Appium's setGeoLocation, Appium-Python-Client's
        ``set_location``): the emulator's or simulator's position, or a mock location on a phone."""
        lat, lon = location(latitude, longitude)
        self._run("set location", lambda wd: wd.set_location(lat, lon))

    def press(self, key: str) -> None:
        if self.platform == "android":
            code = ANDROID_KEYCODES.get(key)
            if code is None:
                raise _bad_key(key, ANDROID_KEYCODES)
            self._mobile("pressKey", {"keycode": code})
        elif key == "enter":
            self._keys(W3C_ENTER)
        else:
            button = IOS_BUTTONS.get(key)
            if button is None:
                raise _bad_key(key, {**IOS_BUTTONS, "enter": ""})
            self._mobile("pressButton", {"name": button})

    def screenshot(self) -> bytes:
        encoded = self._run("taking a screenshot", lambda wd: wd.get_screenshot_as_base64())
        try:
            data = base64.b64decode(encoded, validate=True) if isinstance(encoded, str) else b""
        except (binascii.Error, ValueError) as exc:
            raise DeviceError(f"the screenshot reply is not base64 ({self.server_url})") from exc
        if not (data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8")):
            raise DeviceError(f"the screenshot reply is not a PNG or JPEG image ({len(data)} bytes)")
        return data

    @property
    def client(self) -> WebDriver:
        """The live ``appium.webdriver.WebDriver`` (the session starts if needed): an escape hatch for
        what this class does not wrap. Its exceptions are the client's own, not mapped."""
        return self._driver()


_DOWN: dict[str, Any] = {"type": "pointerDown", "button": 0}
_UP: dict[str, Any] = {"type": "pointerUp", "button": 0}


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _move(x: float, y: float, duration: int = 0, *, names: tuple[str, str] = ("x", "y")) -> dict[str, Any]:
    px, py = coordinate(x, names[0]), coordinate(y, names[1])
    return {"type": "pointerMove", "duration": duration, "origin": "viewport", "x": px, "y": py}


def _bad_key(key: str, known: Mapping[str, object]) -> StepArgumentError:
    return StepArgumentError(f"key {key!r} is not supported here; supported: {', '.join(sorted(known))}")


def _quit_quietly(wd: WebDriver) -> None:
    try:
        wd.quit()
    except CLIENT_ERRORS as exc:
        log.info("ending the Appium session failed (ignored): %s", exc)


def _not_appium(capabilities: object, url: str) -> ConfigError | None:
    """A session that WebDriverAgent itself created (its capabilities are ``device``, ``sdkVersion``,
    ``CFBundleIdentifier``, with no ``platformName``: a real reply in tests/fixtures/real/ios/
    wda-ios12.5.5-session-response-…), as when the Appium URL given is WebDriverAgent's; else None."""
    if not isinstance(capabilities, dict) or any(k.lower().endswith("platformname") for k in capabilities):
        return None
    if "CFBundleIdentifier" not in capabilities and "sdkVersion" not in capabilities:
        return None
    return ConfigError(
        f"WebDriverAgent answers at {url}, not Appium (the session's capabilities are WebDriverAgent's: "
        f"{', '.join(sorted(capabilities))})",
        hint=f"drive it as WebDriverAgent: ios:{url}, or give the Appium server's URL (port 4723 by default)",
    )


def _is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in _LOOPBACK
