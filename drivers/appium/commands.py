"""The device commands of ``AppiumDriver`` that are Appium ``mobile:`` extensions: hiding the
keyboard, opening a link, clearing an app's data (``mobile: hideKeyboard``, ``mobile: deepLink``,
``mobile: clearApp`` of the UiAutomator2 and XCUITest drivers).

A mixin, declaring what it needs of the driver through :class:`_Driver`. A driver without the
command is ``Unsupported``; a refusal is said in the error tree's words (a link the device cannot
open is ``AppLaunchFailed``; XCUITest refusing to clear an app off a Simulator is ``Unsupported``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

from ...core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    DeviceError,
    HarnessError,
    StepArgumentError,
    Unsupported,
)
from ...core.models import Platform
from ..base import on_a_phone
from ..launching import APPIUM_TYPES, android_extras, ios_arguments
from ..permissions import android_names, android_verb, check_permissions, ios_plan
from .errors import server_refused, unsupported

_ACCESS = {"grant": "yes", "revoke": "no", "reset": "unset"}
# Commands on one app, whose "The application '…' is not installed on the device" is AppNotInstalled.
_APP_COMMANDS = frozenset({"changePermissions", "setPermission", "launchApp"})

__all__ = ["APP_ID", "DeviceCommands", "check_app_id"]

APP_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,254}$")


class _Driver(Protocol):
    @property
    def platform(self) -> Platform: ...

    server_url: str
    kind: str

    def _mobile(self, name: str, args: Mapping[str, Any] | None = None) -> Any: ...

    def launch_app(self, app_id: str) -> None: ...

    def launch_extras(self, app_id: str, extras: list[list[str]] | None) -> None: ...


class DeviceCommands:
    """``hide_keyboard``, ``open_link`` and ``clear_state`` through ``mobile:`` extensions."""

    def _extension(self: _Driver, name: str, args: Mapping[str, Any], what: str) -> None:
        try:
            self._mobile(name, args)
        except DeviceError as exc:
            if name in _APP_COMMANDS and "is not installed" in exc.message:
                raise AppNotInstalled(f"cannot {what}: {exc.message}") from exc
            if name == "clearApp" and self.platform == "ios":
                # appium-xcuitest-driver refuses it on a real iPhone as 'unknown method' (405):
                # "This extension is only supported on simulators …" (mobileClearApp)
                raise _refused(name, what, self.platform, exc) from exc
            if unsupported(exc.__cause__):
                raise Unsupported(
                    f"the Appium {self.platform} driver at {self.server_url} cannot {what}: {exc.message}",
                    hint="check the Appium driver's version and its `mobile:` commands",
                ) from exc
            if not server_refused(exc.__cause__):
                raise
            raise _refused(name, what, self.platform, exc) from exc

    def hide_keyboard(self: _Driver) -> None:
        """``mobile: hideKeyboard`` (what the Python client's ``hide_keyboard()`` sends)."""
        DeviceCommands._extension(self, "hideKeyboard", {}, "hide the keyboard")

    def open_link(self: _Driver, url: str, app_id: str | None = None) -> None:
        """``mobile: deepLink`` with ``url`` and, when named, ``package`` (UiAutomator2) or
        ``bundleId`` (XCUITest)."""
        args: dict[str, Any] = {"url": url}
        if app_id is not None:
            args["package" if self.platform == "android" else "bundleId"] = check_app_id(app_id)
        DeviceCommands._extension(self, "deepLink", args, f"open {url}")

    def clear_state(self: _Driver, app_id: str) -> None:
        """``mobile: clearApp`` (UiAutomator2: ``pm clear``; XCUITest: on a Simulator only, so refused
        before any request on a physical iPhone)."""
        if self.platform == "ios" and self.kind == "device":
            raise on_a_phone(f"clear {app_id}'s data", "Appium's XCUITest driver")
        key = "appId" if self.platform == "android" else "bundleId"
        DeviceCommands._extension(self, "clearApp", {key: check_app_id(app_id)}, f"clear {app_id}'s data")

    def set_permissions(self: _Driver, app_id: str, permissions: Mapping[str, str]) -> None:
        """UiAutomator2: ``mobile: changePermissions`` ({permissions, appPackage, action: grant|revoke};
        ``permissions: "all"`` is every permission the app requests, the driver's docs); XCUITest (a
        Simulator): ``mobile: setPermission`` ({bundleId, access: {service: yes|no|unset}}, the
        services of simctl privacy; ``notifications`` through AppleSimulatorUtils where installed)."""
        wanted = check_permissions(permissions)
        check_app_id(app_id)
        if self.platform == "android":
            for name, value in wanted.items():
                names: Any = "all" if name == "all" else list(android_names(name))
                args = {"permissions": names, "appPackage": app_id, "action": android_verb(value)}
                try:
                    DeviceCommands._extension(self, "changePermissions", args, f"set {app_id}'s permissions")
                except AppNotInstalled:
                    raise
                except DeviceError as exc:  # pm refused one the app does not declare: passed over, as Maestro
                    if "has not requested permission" not in exc.message:
                        raise
            return
        if self.kind == "device":
            raise on_a_phone("set permissions", "Appium's XCUITest driver")
        actions, notifications, _skipped = ios_plan(wanted)
        access = {service: _ACCESS[action] for action, service in actions}
        if notifications is not None:
            access["notifications"] = "yes" if notifications == "allow" else "no"
        if access:
            args = {"bundleId": app_id, "access": access}
            DeviceCommands._extension(self, "setPermission", args, f"set {app_id}'s permissions")

    def clear_keychain(self: _Driver) -> None:
        """XCUITest's ``mobile: clearKeychains`` (a Simulator's; refused on a physical iPhone); nothing
        on Android, which has no keychain."""
        if self.platform == "android":
            return
        if self.kind == "device":
            raise on_a_phone("clear the keychain", "Appium's XCUITest driver")
        DeviceCommands._extension(self, "clearKeychains", {}, "clear the keychain")

    def launch_with(self: _Driver, app_id: str, arguments: Mapping[str, object]) -> None:
        """iOS: XCUITest's ``mobile: launchApp`` with ``arguments`` and ``environment``. Android:
        UiAutomator2's ``mobile: startActivity`` with Maestro's typed extras as its ``extras``
        (``[type, key, value]``, :data:`drivers.launching.APPIUM_TYPES`); the driver has no double
        type (:data:`drivers.launching.APPIUM_LACKS`), so a Maestro Double goes as a float extra."""
        if self.platform == "android":
            extras = [[APPIUM_TYPES[e.kind], e.key, e.value] for e in android_extras(arguments)]
            self.launch_extras(app_id, extras)
            return
        args = {
            "bundleId": check_app_id(app_id),
            "arguments": list(ios_arguments(arguments)),
            "environment": {},
        }
        DeviceCommands._extension(self, "launchApp", args, f"launch {app_id}")
        self.launch_app(app_id)  # in front now: this checks it, as every launch is checked


def check_app_id(app_id: str) -> str:
    """``app_id`` when it is a package name or bundle id, else a ``StepArgumentError``."""
    if not isinstance(app_id, str) or not APP_ID.match(app_id):
        raise StepArgumentError(f"{app_id!r} is not a package name or bundle id")
    return app_id


def _refused(name: str, what: str, platform: str, exc: DeviceError) -> HarnessError:
    if name == "deepLink":
        return AppLaunchFailed(f"the device could not {what}: {exc.message}")
    if name == "clearApp" and platform == "ios":
        return Unsupported(
            f"XCUITest could not {what}: {exc.message}",
            hint="XCUITest clears app data only on a Simulator; on an iPhone reinstall the app, and "
            "write the spec with `&kind=device` so that `amc check --device` foresees it",
        )
    if name == "clearApp" and "not installed" in exc.message:
        return AppNotInstalled(f"cannot {what}: {exc.message}")
    return exc
