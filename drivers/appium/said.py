"""What an Appium server (or a Selenium Grid in front of it) says in its error messages, by pattern.

Appium reports most of what goes wrong in a driver as W3C ``unknown error`` (Appium 3: the driver's
own message; Appium 2: "An unknown server-side error occurred while processing the command. Original
error: …", base-driver's UnknownError) and a Grid its queue's answers as ``session not created``
("Could not start a new session. …", Selenium's SessionNotCreatedException). The error name alone
says little; the words say what happened. :data:`SAID` lists those words, each from the source that
writes them (appium/appium base-driver and driver-config, appium-uiautomator2-driver,
appium-android-driver, appium-adb, appium-xcuitest-driver, SeleniumHQ/selenium's grid; every one is
an entry of ``tests/fixtures/backend_errors/appium.yaml`` or ``grid.yaml``), with the harness error
and the fix. :class:`NonW3CReply` is a reply that is not W3C JSON at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from selenium.common import exceptions as se

from ...core.errors import (
    ConfigError,
    DeviceTimeout,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    Unsupported,
)

__all__ = ["SAID", "NonW3CReply", "Said", "install_hint", "raw_reply_error"]


class NonW3CReply(se.WebDriverException):
    """A reply whose body is not W3C JSON: ``status`` its HTTP status, ``body`` the text as sent."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status} with a body that is not W3C JSON: {body[:200]!r}")
        self.status = status
        self.body = body


def raw_reply_error(response: dict[str, Any]) -> NonW3CReply | None:
    """The error a reply Selenium read (``{"status": …, "value": …}``) is, when its body was not JSON:
    an HTTP error status with a text body, or a success whose body is not JSON (a real W3C reply is
    ``{"value": …}`` with no ``status``)."""
    status, value = response.get("status"), response.get("value")
    if not isinstance(value, str) or isinstance(status, bool) or not isinstance(status, int):
        return None
    if status == 0:
        return NonW3CReply(200, value)
    if status < 400:
        return None
    try:
        json.loads(value)
    except ValueError:
        return NonW3CReply(status, value)
    return None


# automationName -> the name `appium driver install` takes.
_DRIVERS = {"uiautomator2": "uiautomator2", "xcuitest": "xcuitest", "espresso": "espresso", "mac2": "mac2"}


def install_hint(message: str) -> str:
    """The `appium driver install` line for the automationName a message names."""
    found = re.search(r"automationName '([^']+)'", message)
    name = (found.group(1) if found else "").casefold()
    driver = _DRIVERS.get(name, name or "<driver>")
    return (
        f"install the driver on the Appium server: `appium driver install {driver}` "
        "(`appium driver list --installed` shows what is there)"
    )


@dataclass(frozen=True)
class Said:
    """Words of a server message, what they mean (``what``), the harness error and the fix."""

    name: str
    pattern: re.Pattern[str]
    error: type[HarnessError]
    what: str
    hint: str

    def matches(self, message: str) -> bool:
        return self.pattern.search(message) is not None


_HINT_ATTACH = (
    "attach the phone to the computer running Appium (check `adb devices -l` or `xcrun xctrace list devices` "
    "there), or fix udid= in the device spec"
)
_HINT_GRID = "the grid could not start the session: see the hub's log, then try again"


def _said(name: str, pattern: str, error: type[HarnessError], what: str, hint: str) -> Said:
    return Said(name, re.compile(pattern), error, what, hint)


SAID: tuple[Said, ...] = (
    _said(
        "UiAutomator2 instrumentation crashed",
        r"instrumentation process is not running",
        SessionLost,
        "the UiAutomator2 server on the phone crashed",
        "read `adb logcat` for why the UiAutomator2 instrumentation died; the next call starts a new session",
    ),
    _said(
        "the server behind the driver died",
        r"Could not proxy command to the remote server",
        SessionLost,
        "the server behind the Appium driver stopped answering (WebDriverAgent on iOS, the UiAutomator2 "
        "server on Android)",
        "WebDriverAgent or the UiAutomator2 server died (a crash, a locked or unplugged phone); the next "
        "call starts a new session",
    ),
    _said(
        "no driver for the automationName",
        r"Could not find a driver for automationName",
        ConfigError,
        "the Appium server has no driver for these capabilities",
        "",  # install_hint: names the driver from the message
    ),
    _said(
        "the udid is not attached",
        r"was not in the list of connected devices|Unknown device or simulator UDID",
        ConfigError,
        "the Appium server has no device with that udid attached",
        _HINT_ATTACH,
    ),
    _said(
        "a capability is missing",
        r"You must include an? (?:platformName|automationName) capability",
        ConfigError,
        "the session's capabilities lack what Appium needs",
        "name the platform in the device spec (appium:URL?platform=android|ios)",
    ),
    _said(
        "no Android device at all",
        r"Could not find a connected Android device",
        DriverUnavailable,
        "the Appium server sees no Android device",
        "attach an Android phone or start an emulator on the computer running Appium (`adb devices -l` "
        "there)",
    ),
    _said(
        "WebDriverAgent did not start",
        r"Unable to launch WebDriverAgent",
        DriverUnavailable,
        "XCUITest could not start WebDriverAgent on the phone",
        "build and sign WebDriverAgent for the phone, unlock it and trust the developer; the Appium log "
        "says more",
    ),
    _said(
        "the instrumentation did not start",
        r"instrumentation process cannot be initialized",
        DriverUnavailable,
        "UiAutomator2 could not start its server on the phone",
        "read `adb logcat` around the start; make sure the app under test does not crash at launch",
    ),
    _said(
        "the systemPort is taken",
        r"cannot start because the local port #?\d+ is busy",
        DriverUnavailable,
        "UiAutomator2's local port is taken by another session",
        "end the old session, or give each parallel session its own `appium:systemPort`",
    ),
    _said(
        "the Android version is too old",
        r"only supports Android [\d.]+",
        Unsupported,
        "the UiAutomator2 driver does not support this phone",
        "UiAutomator2 needs Android 8.0 (Oreo) or later: use a newer phone or emulator",
    ),
    _said(
        "the shell may not access another user",
        r"Shell does not have permission to access user \d+",
        ConfigError,
        "the phone has a user the adb shell may not access (a work profile, an MDM-managed profile, "
        "Samsung's Secure Folder)",
        "list the phone's users with `adb shell pm list users`; start the session for the user the app is "
        "in (UiAutomator2's appium:userProfile capability, 0 for the owner), or remove the profile the "
        "shell may not touch",
    ),
    _said(
        "no free device in the device farm",
        r"No device found for filters",
        DriverUnavailable,
        "the device farm in front of Appium has no free device for these capabilities",
        "the device farm (the appium-device-farm plugin) found no free device matching the filters it "
        "quotes within its deviceAvailabilityTimeout: wait for one, raise appium:deviceAvailabilityTimeout, "
        "or widen the capabilities; its dashboard shows which devices are busy",
    ),
    _said(
        "no grid node matches",
        r"No nodes support the capabilities",
        DriverUnavailable,
        "no node of the grid offers these capabilities",
        "compare platform, automationName and udid with the grid nodes' stereotypes (the hub's /status); "
        "a node may be down",
    ),
    _said(
        "every grid node is busy",
        r"New session request timed out|Timed out creating session",
        DeviceTimeout,
        "the grid found no free node in time",
        "every matching node is busy: try again later, add nodes, or raise the hub's "
        "--session-request-timeout",
    ),
    _said(
        "the grid gave up",
        r"Request queue was cleared|An error occurred creating the session|Interrupted when creating the "
        r"session",
        DriverUnavailable,
        "the grid dropped the session request",
        _HINT_GRID,
    ),
)
