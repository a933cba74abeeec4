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
from .errors import server_refused, unsupported

__all__ = ["APP_ID", "DeviceCommands", "check_app_id"]

APP_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,254}$")


class _Driver(Protocol):
    @property
    def platform(self) -> Platform: ...

    server_url: str

    def _mobile(self, name: str, args: Mapping[str, Any] | None = None) -> Any: ...


class DeviceCommands:
    """``hide_keyboard``, ``open_link`` and ``clear_state`` through ``mobile:`` extensions."""

    def _extension(self: _Driver, name: str, args: Mapping[str, Any], what: str) -> None:
        try:
            self._mobile(name, args)
        except DeviceError as exc:
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
        """``mobile: clearApp`` (UiAutomator2: ``pm clear``; XCUITest: on a Simulator only)."""
        key = "appId" if self.platform == "android" else "bundleId"
        DeviceCommands._extension(self, "clearApp", {key: check_app_id(app_id)}, f"clear {app_id}'s data")


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
            hint="XCUITest clears app data only on a Simulator; on an iPhone reinstall the app",
        )
    if name == "clearApp" and "not installed" in exc.message:
        return AppNotInstalled(f"cannot {what}: {exc.message}")
    return exc
