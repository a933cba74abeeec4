"""Apps through an Appium server: launching one and checking it came to the front, which app is in
front, stopping one, as the mixin :class:`AppiumApps` that ``AppiumDriver`` inherits.

``launch_app`` is ``mobile: activateApp`` and one check that the app is in front, repeated until it
is or ``launch_timeout``: on Android ``mobile: getCurrentPackage`` (a runtime-permission prompt the
app asked for counts: it is the app starting), on iOS ``mobile: queryAppState`` is 4 (also under a
SpringBoard alert, where ``activeAppInfo`` names SpringBoard). A refused activation is read:
XCUITest relays WebDriverAgent's FrontBoard error (``invalid argument`` since WDA 5.1.4), which says
whether the app is missing (:mod:`drivers.frontboard`); UiAutomator2's ``Unable to resolve the
launchable activity`` is the same for a missing and a non-launchable app, so the app's state tells
(0: not installed). An activation that gets no answer within ``launch_timeout`` (or XCUITest's
``Could not proxy command … timeout of …ms exceeded``: WebDriverAgent before 5.1.1 waits forever for
a missing app) is decided by one state query, never as a timeout the task loop would repeat.

The lock screen: UiAutomator2's ``getCurrentPackage`` names the app behind it (appium-adb's
getFocusedPackageAndActivity prefers ``mFocusedApp``, which names it while the keyguard's window has
the focus: ``tests/fixtures/real/android/pixel7-…``), so on Android ``current_app`` and a launch
that found its app in front ask ``mobile: isLocked`` once (appium-adb's isScreenLocked): a locked
phone has no app in front, and a launch on it fails as ``DeviceOffline``. That is one request more
than ``getCurrentPackage`` alone, on every call. On iOS the
activation is refused by FrontBoard (``Locked``), which is ``DeviceOffline`` too, and the active
app is SpringBoard.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from typing import Any, Protocol

from appium.webdriver.client_config import AppiumClientConfig

from ...core.apps import ANDROID_SYSTEM_SERVER, SPRINGBOARD, is_home_screen, is_permission_dialog
from ...core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    DeviceError,
    DeviceTimeout,
    HarnessError,
    Unsupported,
)
from ...core.models import Platform, Scene
from ..am_start import LAUNCHER, LEANBACK, MAIN, read_start
from ..covers import dialog_launch_failed, locked, system_dialog
from ..frontboard import launch_refusal
from .commands import APP_ID, check_app_id
from .errors import server_refused, unsupported

__all__ = ["LAUNCH_POLL", "AppiumApps"]

log = logging.getLogger(__name__)

LAUNCH_POLL = 0.25
# XCUITest's answer when WebDriverAgent never answered the command it passed on (appium#14923:
# "Could not proxy command to the remote server. Original error: timeout of 240000ms exceeded").
_PROXY_TIMEOUT = re.compile(
    r"Could not proxy command to the remote server\. Original error: timeout of \d+ms"
)


_SYSTEMUI_LABEL = "System UI "


class _Driver(Protocol):
    """What the mixin needs from ``AppiumDriver``."""

    server_url: str
    timeout: float
    launch_timeout: float
    _launched: str | None
    _config: AppiumClientConfig | None
    _app_names: dict[str, str]
    _categories: dict[str, str]

    @property
    def platform(self) -> Platform: ...

    @property
    def device_id(self) -> str: ...

    def _mobile(self, name: str, args: Mapping[str, Any] | None = None) -> Any: ...

    def _app_key(self) -> str: ...

    def _active_app(self) -> tuple[str, str | None]: ...

    def _foreground(self) -> str: ...

    def _app_state(self, app_id: str) -> int | None: ...

    def _in_front(self, app_id: str) -> tuple[bool, str]: ...

    def _bounded(self, seconds: float) -> _Timeout: ...

    def _refused(self, app_id: str, exc: HarnessError) -> None: ...

    def _unanswered_launch(self, app_id: str, exc: DeviceTimeout) -> None: ...

    def _launch_failed(self, app_id: str, why: str, cause: BaseException | None) -> None: ...

    def _start_activity(self, app_id: str, extras: list[list[str]] | None = None) -> bool: ...

    def _locked(self) -> bool | None: ...

    def observe(self) -> Scene: ...

    def _dialog_over_launch(self, app_id: str) -> None: ...


class _Timeout:
    """Bound the requests sent inside a ``with`` block by ``seconds`` (the client reads its
    ``ClientConfig.timeout`` per request); the driver's own timeout comes back afterwards."""

    def __init__(self, config: AppiumClientConfig | None, seconds: float) -> None:
        self._config, self._seconds = config, seconds
        self._saved: float | None = None

    def __enter__(self) -> _Timeout:
        if self._config is not None:
            self._saved = self._config.timeout
            self._config.timeout = self._seconds
        return self

    def __exit__(self, *exc: object) -> None:
        if self._config is not None and self._saved is not None:
            self._config.timeout = self._saved


class AppiumApps:
    """Launches, the app in front and stopping apps (see the module docstring)."""

    _launched: str | None  # the app the last successful launch_app brought up (set by the driver)

    def _app_key(self: _Driver) -> str:
        return "appId" if self.platform == "android" else "bundleId"

    def _active_app(self: _Driver) -> tuple[str, str | None]:
        """iOS: the foreground bundle id and the app's identifier when it has one (remembered)."""
        info = self._mobile("activeAppInfo")
        bundle = info.get("bundleId") if isinstance(info, dict) else None
        if not isinstance(bundle, str) or not APP_ID.match(bundle):
            raise DeviceError(
                f"mobile: activeAppInfo answered {info!r}, not an app description ({self.server_url})"
            )
        name = info.get("name")  # the application's identifier: often empty on real devices
        shown = name if isinstance(name, str) and name.strip() else None
        if shown is not None:
            self._app_names[shown] = bundle
        return bundle, shown

    def _foreground(self: _Driver) -> str:
        """The package / bundle id in front, launchers and SpringBoard included."""
        if self.platform == "ios":
            return self._active_app()[0]
        package = self._mobile("getCurrentPackage")
        if not isinstance(package, str) or not APP_ID.match(package):
            raise DeviceError(
                f"mobile: getCurrentPackage answered {package!r}, not a package ({self.server_url})"
            )
        return package

    def _app_state(self: _Driver, app_id: str) -> int | None:
        """``mobile: queryAppState`` (0 not installed … 4 foreground), or None when it cannot say."""
        try:
            state = self._mobile("queryAppState", {self._app_key(): app_id})
        except HarnessError as exc:
            log.info("queryAppState for %s failed: %s", app_id, exc)
            return None
        return state if isinstance(state, int) and not isinstance(state, bool) else None

    def current_app(self: _Driver) -> str | None:
        """The app in front; the app the driver launched when a system prompt covers it (one more
        request: its state); None on the home screen and on a locked phone (Android asks
        ``mobile: isLocked`` first: two requests, the same on every screen)."""
        if self.platform == "android" and self._locked():
            return None  # getCurrentPackage would name the app behind the lock screen
        app = self._foreground()
        covering = is_permission_dialog(app) if self.platform == "android" else app == SPRINGBOARD
        if covering and self._launched is not None:
            state = self._app_state(self._launched)
            if state == 4 or (self.platform == "android" and state == 3):
                return self._launched  # UiAutomator2 says 3 for an app under its permission prompt
        return (
            None if is_home_screen(app) or is_permission_dialog(app) or app == ANDROID_SYSTEM_SERVER else app
        )

    def _locked(self: _Driver) -> bool | None:
        """``mobile: isLocked``; None when the server cannot say (no such command, an error)."""
        try:
            answer = self._mobile("isLocked")
        except HarnessError as exc:
            log.info("mobile: isLocked failed on %s: %s", self.server_url, exc)
            return None
        return answer if isinstance(answer, bool) else None

    def _in_front(self: _Driver, app_id: str) -> tuple[bool, str]:
        """Whether ``app_id`` is in front, and what is: Android reads the foreground package (the
        permission controller right after a launch is the app asking); iOS the app's state."""
        if self.platform == "android":
            front = self._foreground()
            return front == app_id or is_permission_dialog(front), front
        state = self._app_state(app_id)
        return state == 4, f"its state is {state}"

    def launch_app(self: _Driver, app_id: str) -> None:
        AppiumApps.launch_extras(self, app_id, None)

    def launch_extras(self: _Driver, app_id: str, extras: list[list[str]] | None) -> None:
        """The launch, and the check that the app is in front after it. Android with ``extras``
        (``[type, key, value]``, :data:`drivers.launching.APPIUM_TYPES`): they go with ``mobile:
        startActivity``; a server without that command starts nothing and is ``Unsupported``
        (activateApp carries no extras)."""
        check_app_id(app_id)
        if extras is not None and (self.platform != "android" or not self._start_activity(app_id, extras)):
            raise Unsupported(
                f"launch arguments on {self.device_id}: this Appium server has no mobile: startActivity, "
                "the only command whose launch intent carries extras"
            )
        if extras is None and (self.platform != "android" or not self._start_activity(app_id)):
            try:
                with self._bounded(self.launch_timeout):
                    self._mobile("activateApp", {self._app_key(): app_id})
            except DeviceTimeout as exc:
                self._unanswered_launch(app_id, exc)
            except HarnessError as exc:
                if not server_refused(exc.__cause__):
                    raise
                self._refused(app_id, exc)
        deadline = time.monotonic() + self.launch_timeout
        looked = False
        while True:
            ok, front = self._in_front(app_id)
            if ok and self.platform == "android" and self._locked():
                raise locked(
                    self.device_id, what="the phone is locked (the lock screen is up)", app_id=app_id
                )
            if self.platform == "android" and (ok or not looked):
                looked = True
                self._dialog_over_launch(app_id)
            if ok:
                self._launched = app_id
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(LAUNCH_POLL)
        self._launch_failed(
            app_id, f"it was not in front after {self.launch_timeout:g} s (in front: {front})", None
        )

    def _dialog_over_launch(self: _Driver, app_id: str) -> None:
        """Android: one page source after the launch, as UiAutomator2's getCurrentPackage names
        the app behind a crash or ANR dialog (appium-adb reads ``mFocusedApp`` first) and a crash
        leaves the launcher in front: the system's dialog there fails the launch, quoting it,
        unless it is SystemUI's own ("System UI isn't responding", AOSP's label for it)."""
        try:
            found = system_dialog(self.observe())
        except HarnessError as exc:
            log.info("launch_app: the page source after launching %s was not read: %s", app_id, exc)
            return
        if found is not None and not found[1].startswith(_SYSTEMUI_LABEL):
            raise dialog_launch_failed(self.device_id, app_id, found[0], found[1])

    def _start_activity(self: _Driver, app_id: str, extras: list[list[str]] | None = None) -> bool:
        """Android: ``mobile: startActivity`` with ``wait`` (``am start-activity -W``, see
        :mod:`drivers.am_start`) for the app's launcher activity, LEANBACK_LAUNCHER when it has
        none (Android TV). True when it started; False when the server has no such command (the
        caller activates the app instead). No activity in either category: the app's state says
        whether it is installed."""
        first = self._categories.get(app_id, LAUNCHER)
        for category in (first, LEANBACK if first == LAUNCHER else LAUNCHER):
            args: dict[str, Any] = {"wait": True, "action": MAIN, "categories": [category], "package": app_id}
            if extras:
                args["extras"] = extras
            try:
                with self._bounded(self.launch_timeout):
                    output = self._mobile("startActivity", args)
            except DeviceTimeout as exc:
                log.info("startActivity for %s got no answer in time (%s)", app_id, exc)
                return True  # am's wait outlasted ours: the check after it decides
            except HarnessError as exc:
                if unsupported(exc.__cause__):
                    return False
                raise
            outcome = read_start(output if isinstance(output, str) else "")
            if outcome is None:
                raise DeviceError(
                    f"mobile: startActivity for {app_id} answered {output!r}, not am's report "
                    f"({self.server_url})"
                )
            if outcome.kind == "refused":
                raise AppLaunchFailed(
                    f"the phone refused to start {app_id} on {self.device_id}: {outcome.detail}",
                    app_id=app_id,
                )
            if outcome.kind == "started":
                self._categories[app_id] = category
                return True
            if category == first and self._app_state(app_id) == 0:
                raise AppNotInstalled(
                    f"{app_id} is not installed on {self.device_id}",
                    app_id=app_id,
                    hint="install it, or check the id",
                )
        raise AppLaunchFailed(
            f"{app_id} is installed on {self.device_id} but declares no launcher activity "
            "(neither LAUNCHER nor LEANBACK_LAUNCHER)",
            app_id=app_id,
            hint="start one of its activities with `mobile: startActivity` and a component",
        )

    def _bounded(self: _Driver, seconds: float) -> _Timeout:
        return _Timeout(self._config, min(seconds, self.timeout))

    def _refused(self: _Driver, app_id: str, exc: HarnessError) -> None:
        """The server refused the activation. XCUITest relays WebDriverAgent's FrontBoard error (an
        ``invalid argument`` since WDA 5.1.4), which says whether the app is missing; otherwise (and
        on UiAutomator2, whose ``Unable to resolve the launchable activity`` covers both) the app's
        state tells: 0 is not installed."""
        said = getattr(exc.__cause__, "msg", None)
        text = said if isinstance(said, str) and said else exc.message
        if _PROXY_TIMEOUT.search(text):  # XCUITest waited for WDA until its proxy timeout
            self._unanswered_launch(app_id, DeviceTimeout(text))
            return
        refusal = launch_refusal(text)
        if refusal is not None and refusal.kind == "locked":
            raise locked(
                self.device_id, what="the phone is locked (iOS refused the launch)", app_id=app_id
            ) from exc
        if refusal is not None and refusal.kind == "not_installed":
            raise AppNotInstalled(
                f"{app_id} is not installed on {self.device_id} ({refusal.reason})",
                app_id=app_id,
                hint=refusal.hint,
            ) from exc
        if refusal is not None:
            raise AppLaunchFailed(
                f"launching {app_id} on {self.device_id} failed: {refusal.reason}",
                app_id=app_id,
                hint=refusal.hint,
            ) from exc
        self._launch_failed(app_id, f"the server refused to activate it: {exc.message}", exc)

    def _unanswered_launch(self: _Driver, app_id: str, exc: DeviceTimeout) -> None:
        """No answer to the activation within ``launch_timeout`` (XCUITest in front of a WebDriverAgent
        before 5.1.1 waits forever for a missing app): one state query decides, and the error is not a
        timeout the task loop would repeat."""
        state = self._app_state(app_id)
        if state == 4:
            return
        if state in (0, 1) or state is None:
            raise AppNotInstalled(
                f"{app_id} did not start on {self.device_id}: the server did not answer its activation "
                f"within "
                f"{self.launch_timeout:g} s and the app is not running (WebDriverAgent before 5.1.1 never "
                "answers a launch of an app that is not installed)",
                app_id=app_id,
                hint="check the app id; if it is installed and slow to start, raise launch_timeout",
            ) from exc
        raise AppLaunchFailed(
            f"launching {app_id} on {self.device_id} got no answer within {self.launch_timeout:g} s "
            f"(state {state})",
            app_id=app_id,
        ) from exc

    def _launch_failed(self: _Driver, app_id: str, why: str, cause: BaseException | None) -> None:
        if self._app_state(app_id) == 0:
            raise AppNotInstalled(
                f"{app_id} is not installed on {self.device_id}",
                app_id=app_id,
                hint="install it, or check the id",
            ) from cause
        raise AppLaunchFailed(
            f"launching {app_id} on {self.device_id} failed: {why}", app_id=app_id
        ) from cause

    def terminate_app(self: _Driver, app_id: str) -> None:
        check_app_id(app_id)
        try:
            self._mobile("terminateApp", {self._app_key(): app_id})
        except DeviceError as exc:
            # Stopping an app that is not running (or not there) is not an error.
            if not server_refused(exc.__cause__) or self._app_state(app_id) not in (0, 1):
                raise
        if self._launched == app_id:
            self._launched = None

    # --- input ------------------------------------------------------------------------------
