"""What ``WdaDriver`` does beyond WebDriverAgent on an iOS Simulator, through ``simctl``
(:mod:`drivers.wda.simctl`), and launch arguments through WebDriverAgent's own launch; the mixin
:class:`WdaSimulator`.

- ``clear_state``: the app stopped (``/wda/apps/terminate``), its data container emptied
  (``simctl get_app_container <udid> <bundle> data``) and its permissions reset (``simctl privacy
  <udid> reset all <bundle>``: Maestro's clearState also sets ``{all: unset}``, Orchestra.kt).
- ``set_permissions``: ``simctl privacy`` per service (:func:`drivers.permissions.ios_plan`); the
  notification permission, which simctl has no service for, is kept and answered on the system's
  alert after the app's next launch (``/alert/accept`` / ``/alert/dismiss``), as Maestro's XCTest
  runner answers it (SystemPermissionHelper.swift).
- ``clear_keychain``: ``simctl keychain <udid> reset``.
- ``launch_with``: ``POST /wda/apps/launch`` with ``arguments`` (Maestro's iOS list,
  :func:`drivers.launching.ios_arguments`) and ``environment`` ``{}``: the JSON facebook-wda's
  ``app_launch`` sends and FBSessionCommands.m ``handleSessionAppLaunch`` reads.

On a physical iPhone (``kind`` device) each is ``Unsupported`` before any request, as the check
foresees (:mod:`amc.actions.permits`); a WebDriverAgent taken for a Simulator whose ``/status``
carries no ``ios.simulatorVersion`` is refused the same way, with a hint to say ``?kind=device``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from ...core.errors import HarnessError, Unsupported
from ..base import ios_cannot_clear, on_a_phone
from ..launching import ios_arguments
from ..permissions import check_permissions, ios_plan
from .errors import LAUNCH
from .simctl import Simctl, clear_container

__all__ = ["WdaSimulator"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Driver(Protocol):
    url: str
    kind: str
    _simctl: Simctl | None
    _on_phone: bool
    _notifications: dict[str, str]

    def _call(self, op: str, fn: Callable[[Any], T], *, repeat: bool, app_id: str | None = None) -> T: ...

    def terminate_app(self, app_id: str) -> None: ...

    def launch_app(self, app_id: str) -> None: ...

    def _wait_in_front(self, app_id: str) -> None: ...

    def _answer_alert(self, app_id: str) -> None: ...


def _simctl(driver: _Driver, what: str) -> Simctl:
    if driver.kind != "simulator":
        raise on_a_phone(what, f"WebDriverAgent at {driver.url}")
    if driver._on_phone or driver._simctl is None:
        raise Unsupported(
            f"WebDriverAgent at {driver.url} runs on a physical iPhone (its /status names no "
            f"simulatorVersion), so nothing can {what} there",
            hint="write the spec as ios:URL?kind=device, so `amc check --device` foresees it",
        )
    return driver._simctl


class WdaSimulator:
    """clear_state, set_permissions, clear_keychain and launch_with (see the module docstring)."""

    def clear_state(self: _Driver, app_id: str) -> None:
        if self.kind != "simulator":
            raise ios_cannot_clear(app_id)
        simctl = _simctl(self, f"clear {app_id}'s data")
        self.terminate_app(app_id)
        clear_container(simctl.run(["get_app_container", simctl.udid, app_id, "data"]))
        simctl.run(["privacy", simctl.udid, "reset", "all", app_id])
        self._notifications.pop(app_id, None)

    def set_permissions(self: _Driver, app_id: str, permissions: Mapping[str, str]) -> None:
        wanted = check_permissions(permissions)
        simctl = _simctl(self, "set permissions")
        actions, notifications, skipped = ios_plan(wanted)
        for action, service in actions:
            simctl.run(["privacy", simctl.udid, action, service, app_id])
        if notifications is not None:
            self._notifications[app_id] = notifications
        if skipped:
            log.info("simctl has no privacy service for %s (passed over, as Maestro does)", skipped)

    def clear_keychain(self: _Driver) -> None:
        simctl = _simctl(self, "clear the keychain")
        simctl.run(["keychain", simctl.udid, "reset"])

    def launch_with(self: _Driver, app_id: str, arguments: Mapping[str, object]) -> None:
        payload = {"bundleId": app_id, "arguments": list(ios_arguments(arguments)), "environment": {}}
        self._call(
            LAUNCH,  # classified by the launch's error table, as launch_app's
            lambda c: c._session_http.post("/wda/apps/launch", payload),
            repeat=False,
            app_id=app_id,
        )
        self._wait_in_front(app_id)
        if app_id in self._notifications:
            self._answer_alert(app_id)

    def _answer_alert(self: _Driver, app_id: str) -> None:
        """After a launch: answer the notification alert the flow's permissions decided, if it shows."""
        wanted = self._notifications.get(app_id)
        if wanted is None:
            return
        try:
            text = self._call("GET /alert/text", lambda c: c._session_http.get("/alert/text"), repeat=True)
        except HarnessError:
            return  # no alert up
        if "Notifications" not in str(getattr(text, "value", text)):
            return
        route = "/alert/accept" if wanted == "allow" else "/alert/dismiss"
        self._call(f"POST {route}", lambda c: c._session_http.post(route, {}), repeat=False, app_id=app_id)
