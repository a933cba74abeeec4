"""Apps on an iPhone through WebDriverAgent: launching one and checking it came to the front, and
which app is in front, as the mixin :class:`WdaApps` that ``WdaDriver`` inherits.

``launch_app`` is the launch (``POST /wda/apps/launch``, facebook-wda's ``app_activate``) and
``POST /wda/apps/state`` until the app answers 4 (running in foreground): two requests when it
comes to the front at once, also when a system alert covers it (WebDriverAgent then reports
SpringBoard as the active app, but the app's state is 4). A launch WDA refuses is classified by
:mod:`drivers.frontboard` through the launch's error table (``AppNotInstalled``, else
``AppLaunchFailed`` with FrontBoard's reason); a refusal or an app that never comes to the front
asks ``/wda/locked`` once, so a locked phone is ``DeviceOffline``. WebDriverAgent before 5.1.1
never answers a launch of an app that is not installed (appium/WebDriverAgent PR #704): the launch
request is bounded by ``launch_timeout``, the app's state is asked once, and the outcome is
``AppNotInstalled`` or ``AppLaunchFailed``, never a timeout the task loop would repeat. Asking the
state before every launch would cost a request each time and could not tell a missing app from one
that is not running: XCTest answers 1 for both (facebook-wda's e2e_benchmarks, WDA 6.1.1/7.1.1).

``current_app`` is ``/wda/activeAppInfo``; when it names SpringBoard right after a launch, one
``/wda/apps/state`` of the launched app tells an alert over it (4) from the home screen.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ...core.apps import SPRINGBOARD
from ...core.errors import (
    AppError,
    AppLaunchFailed,
    AppNotInstalled,
    DeviceError,
    DeviceOffline,
    DeviceTimeout,
    HarnessError,
    StepArgumentError,
)
from ..covers import LOCKED_HINT
from .errors import LAUNCH

__all__ = ["WdaApps"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Config(Protocol):
    @property
    def timeout(self) -> float: ...

    @property
    def launch_timeout(self) -> float: ...

    @property
    def launch_poll_interval(self) -> float: ...


class _Driver(Protocol):
    """What the mixin needs from ``WdaDriver``."""

    @property
    def url(self) -> str: ...

    @property
    def config(self) -> _Config: ...

    _launched: str | None
    _wda_version: tuple[int, ...] | None

    def _call(self, op: str, fn: Callable[[Any], T], *, repeat: bool, app_id: str | None = None) -> T: ...

    def _locked(self) -> bool | None: ...

    def _active_bundle(self) -> str | None: ...

    def _app_state(self, app_id: str, *, timeout: float | None = None) -> int | None: ...

    def _unanswered_launch(self, app_id: str, exc: DeviceTimeout) -> None: ...

    def _refused(self, app_id: str, exc: AppError) -> None: ...

    def _raise_if_locked(self, cause: BaseException | None) -> None: ...

    def _wait_in_front(self, app_id: str) -> None: ...

    _notifications: dict[str, str]

    def _answer_alert(self, app_id: str) -> None: ...


class WdaApps:
    """Launches and the app in front (see the module docstring); mixed into ``WdaDriver``."""

    _launched: str | None  # the app the last successful launch_app brought up (set by the driver)

    def launch_app(self: _Driver, app_id: str) -> None:
        """Launch (or bring forward) ``app_id`` and check it is in front: two requests when it is."""
        if not isinstance(app_id, str) or not app_id.strip():
            raise StepArgumentError(f"launch_app needs a bundle id, got {app_id!r}")
        payload = {"bundleId": app_id}
        bound = self.config.launch_timeout
        try:
            self._call(
                LAUNCH,
                lambda c: c._session_http.post("/wda/apps/launch", payload, timeout=bound),
                repeat=False,
                app_id=app_id,
            )
        except DeviceTimeout as exc:
            self._unanswered_launch(app_id, exc)
        except AppLaunchFailed as exc:
            self._refused(app_id, exc)
        self._wait_in_front(app_id)
        self._launched = app_id
        if app_id in self._notifications:
            self._answer_alert(app_id)

    def _app_state(self: _Driver, app_id: str, *, timeout: float | None = None) -> int | None:
        """``/wda/apps/state`` (XCUIApplicationState: 1 not running … 4 foreground), None if unreadable."""
        wait = timeout if timeout is not None else self.config.timeout
        reply = self._call(
            "POST /wda/apps/state",
            lambda c: c._session_http.post("/wda/apps/state", {"bundleId": app_id}, timeout=wait),
            repeat=True,
            app_id=app_id,
        )
        value = getattr(reply, "value", None)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _unanswered_launch(self: _Driver, app_id: str, exc: DeviceTimeout) -> None:
        """The launch got no answer within ``launch_timeout``: ask the app's state once and say why,
        with an error the task loop does not repeat (a repeat would hang the same way)."""
        try:
            state = self._app_state(app_id, timeout=min(self.config.timeout, 5.0))
        except DeviceTimeout as again:
            raise DeviceError(
                f"WebDriverAgent at {self.url} stopped answering after the launch of {app_id}",
                hint="restart WebDriverAgent; before 5.1.1 it freezes this way when the app is not installed "
                "(appium/WebDriverAgent PR #704), so check the bundle id",
            ) from again
        if state == 4:
            log.info("the launch of %s answered late, but the app is in front", app_id)
            return
        old = self._wda_version is None or self._wda_version < (5, 1, 1)
        if old and state in (None, 0, 1):
            raise AppNotInstalled(
                f"{app_id} did not start: WebDriverAgent did not answer its launch within "
                f"{self.config.launch_timeout:g} s and the app is not running, which is how WebDriverAgent "
                "before 5.1.1 answers a launch of an app that is not installed",
                app_id=app_id,
                hint="check the bundle id (`ideviceinstaller -l`); if the app is installed and slow to "
                "start, "
                "raise launch_timeout",
            ) from exc
        raise AppLaunchFailed(
            f"{app_id} was not in front {self.config.launch_timeout:g} s after its launch (state {state})",
            app_id=app_id,
            hint="the app may be slow to start or crash on start; raise launch_timeout if it is slow",
        ) from exc

    def _refused(self: _Driver, app_id: str, exc: AppError) -> None:
        """A launch WDA refused: a locked phone is ``DeviceOffline`` (checked only now, so a launch
        costs no lock check), anything else the ``AppLaunchFailed`` as classified."""
        self._raise_if_locked(exc)
        raise exc

    def _raise_if_locked(self: _Driver, cause: BaseException | None) -> None:
        try:
            locked = self._locked()
        except HarnessError as exc:
            log.info("could not ask WebDriverAgent at %s whether the phone is locked: %s", self.url, exc)
            return
        if locked is True:
            raise DeviceOffline(
                f"the iPhone behind {self.url} is locked",
                state="locked",
                hint=LOCKED_HINT,
            ) from cause

    def _wait_in_front(self: _Driver, app_id: str) -> None:
        deadline = time.monotonic() + self.config.launch_timeout
        checks = 0
        while True:
            state = self._app_state(app_id)
            checks += 1
            if state == 4:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                failure = AppLaunchFailed(
                    f"{app_id} was launched but is not in front after {self.config.launch_timeout:g} s "
                    f"({checks} checks; its state: {state}, "
                    f"in front: {self._active_bundle() or 'the home screen'})",
                    app_id=app_id,
                    hint="the app may crash on start; raise launch_timeout if it is slow",
                )
                self._raise_if_locked(failure)
                raise failure
            time.sleep(min(self.config.launch_poll_interval, remaining))

    def terminate_app(self: _Driver, app_id: str) -> None:
        if not isinstance(app_id, str) or not app_id.strip():
            raise StepArgumentError(f"terminate_app needs a bundle id, got {app_id!r}")
        self._call("POST /wda/apps/terminate", lambda c: c.app_terminate(app_id), repeat=True, app_id=app_id)
        if self._launched == app_id:
            self._launched = None

    def current_app(self: _Driver) -> str | None:
        """The app in front (one request); SpringBoard is None, unless it is in front because its
        alert covers the app the driver launched (one more request: that app's state is 4)."""
        bundle = self._active_bundle()
        if bundle == SPRINGBOARD and self._launched is not None and self._app_state(self._launched) == 4:
            return self._launched
        return None if bundle in (None, SPRINGBOARD) else bundle
