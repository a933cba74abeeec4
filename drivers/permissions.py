"""Maestro's permission names and values, and what each platform makes of them (facts from Maestro's
source, mobile-dev-inc/maestro at dcd2f206).

A flow names permissions as Maestro does: ``all`` or a name (``camera``, ``notifications``,
``location`` …) with ``allow``, ``deny`` or ``unset`` (``location`` also ``always``, ``inuse``,
``never``: LocalSimulatorUtils.kt ``setLocationPermission``). ``launchApp`` sets ``{all: allow}``
when the flow gives no ``permissions`` (Orchestra.kt ``launchAppCommand``: "For testing convenience,
default to allow all on app launch"), ``clearState`` then ``{all: unset}``.

- Android (maestro-client AndroidDriver.kt ``setPermissions``): ``all`` is every permission the app
  declares (the APK's uses-permission list; here ``dumpsys package``'s requested permissions), a
  name becomes the Android permissions of :data:`ANDROID` (any other name is taken as an Android
  permission name, stripped to ``[A-Za-z0-9._]``); ``allow`` is ``pm grant``, ``deny`` and ``unset``
  ``pm revoke``; what ``pm`` refuses (a normal permission, one the app does not declare) is passed
  over, as Maestro does.
- iOS Simulator: ``simctl privacy <udid> grant|revoke|reset <service> <bundle>`` for the services
  simctl has (:data:`IOS_SERVICES`; its help lists all, calendar, contacts-limited, contacts,
  location, location-always, photos-add, photos, media-library, microphone, motion, reminders,
  siri). ``notifications`` is no simctl service (``grant notifications`` exits 1 "Operation not
  permitted"): Maestro's XCTest runner answers the system's notification alert when it shows
  (SystemPermissionHelper.swift: "Allow" for allow, "Don't Allow" for deny), and so does the
  harness. Names simctl has no service for (``camera``, ``faceid``, ``homekit``, ``speech``,
  ``userTracking``; Maestro hands them to applesimutils when installed, and goes on when it fails)
  are passed over with a note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..core.errors import StepArgumentError, Unsupported

__all__ = [
    "ANDROID",
    "IOS_NOT_SET",
    "IOS_SERVICES",
    "MAESTRO_DEFAULT",
    "VALUES",
    "android_names",
    "android_verb",
    "check_permissions",
    "ios_plan",
    "ios_refuses",
    "requested_permissions",
]

VALUES = ("allow", "deny", "unset")
_LOCATION_VALUES = ("always", "inuse", "never")
MAESTRO_DEFAULT: Mapping[str, str] = {"all": "allow"}

# AndroidDriver.kt translatePermissionName.
ANDROID: dict[str, tuple[str, ...]] = {
    "location": ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"),
    "camera": ("android.permission.CAMERA",),
    "contacts": ("android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS"),
    "phone": ("android.permission.CALL_PHONE", "android.permission.ANSWER_PHONE_CALLS"),
    "microphone": ("android.permission.RECORD_AUDIO",),
    "bluetooth": ("android.permission.BLUETOOTH_CONNECT", "android.permission.BLUETOOTH_SCAN"),
    "storage": ("android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.READ_EXTERNAL_STORAGE"),
    "notifications": ("android.permission.POST_NOTIFICATIONS",),
    "medialibrary": (
        "android.permission.WRITE_EXTERNAL_STORAGE",
        "android.permission.READ_EXTERNAL_STORAGE",
        "android.permission.READ_MEDIA_AUDIO",
        "android.permission.READ_MEDIA_IMAGES",
        "android.permission.READ_MEDIA_VIDEO",
    ),
    "calendar": ("android.permission.WRITE_CALENDAR", "android.permission.READ_CALENDAR"),
    "sms": ("android.permission.READ_SMS", "android.permission.RECEIVE_SMS", "android.permission.SEND_SMS"),
}
# Maestro's iOS names -> simctl privacy's services (location: Maestro grants location-always).
IOS_SERVICES: dict[str, str] = {
    "calendar": "calendar",
    "contacts": "contacts",
    "location": "location-always",
    "medialibrary": "media-library",
    "microphone": "microphone",
    "motion": "motion",
    "photos": "photos",
    "reminders": "reminders",
    "siri": "siri",
}
# Maestro's iOS names simctl cannot set (Maestro's applesimutils list less simctl's services).
IOS_NOT_SET = ("camera", "faceid", "homekit", "speech", "userTracking")
_SIMCTL_ACTION = {"allow": "grant", "deny": "revoke", "unset": "reset"}
_LOCATION_ACTION = {
    "always": ("grant", "location-always"),
    "inuse": ("grant", "location"),
    "never": ("revoke", "location-always"),
    "allow": ("grant", "location-always"),
    "deny": ("revoke", "location-always"),
    "unset": ("reset", "location-always"),
}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9._-]{0,199}$")


def check_permissions(value: object, what: str = "permissions") -> dict[str, str]:
    """``value`` as permission name -> value (as text, lowercased), or a ``StepArgumentError``
    naming what is wrong. Any value is taken here: on Android a value other than allow is a revoke
    (an unknown or empty one too, with no error: Maestro's own e2e flow
    ``e2e/demo_app/.maestro/permission_interpolation.yaml`` says so); iOS refuses one it does not
    know when the step runs (:func:`ios_plan`), as Maestro does."""
    if not isinstance(value, Mapping) or not value:
        raise StepArgumentError(f"{what} must map permission names (or all) to allow, deny or unset")
    out: dict[str, str] = {}
    for name, wanted in value.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise StepArgumentError(f"{what}: {name!r:.60} is not a permission name", argument=what)
        if isinstance(wanted, bool):
            text = "allow" if wanted else "deny"
        elif isinstance(wanted, str | int | float) or wanted is None:
            text = "" if wanted is None else str(wanted).strip().lower()
        else:
            raise StepArgumentError(f"{what}: {name}'s value must be allow, deny or unset", argument=what)
        if len(text) > 100:
            raise StepArgumentError(f"{what}: {name}'s value is longer than 100 characters", argument=what)
        out[name] = text
    return out


def ios_refuses(permissions: Mapping[str, str]) -> str | None:
    """Why iOS cannot take ``permissions``' values, or None: Maestro's iOS driver throws
    IllegalArgumentException for a value other than allow, deny or unset (location: also always,
    inuse, never), where Android takes any as a revoke (LocalSimulatorUtils.kt: "Permission 'all'
    can be set to 'allow', 'deny' or 'unset'", "wrong argument value … for 'location' permission")."""
    for name, value in permissions.items():
        allowed = VALUES + _LOCATION_VALUES if name == "location" else VALUES
        if value not in allowed:
            return f"on iOS {name} can be set to {', '.join(allowed)}, not {value!r:.60}"
    return None


def _ios_value(name: str, value: str) -> str:
    why = ios_refuses({name: value})
    if why is not None:
        raise Unsupported(f"permissions: {why}", hint="give iOS one of these values (Android takes any)")
    return value


def android_names(name: str) -> tuple[str, ...]:
    """The Android permissions Maestro's ``name`` stands for."""
    return ANDROID.get(name) or (re.sub(r"[^A-Za-z0-9._]+", "", name),)


def android_verb(value: str) -> str:
    """``pm grant`` for allow (and location's always/inuse), ``pm revoke`` otherwise."""
    return "grant" if value in ("allow", "always", "inuse") else "revoke"


def ios_plan(
    permissions: Mapping[str, str],
) -> tuple[list[tuple[str, str]], str | None, list[str]]:
    """(simctl privacy (action, service) pairs in order, the notification alert's answer
    (``allow``/``deny``/None: leave it), the names passed over) for ``permissions``."""
    actions: list[tuple[str, str]] = []
    notifications: str | None = None
    skipped: list[str] = []
    permissions = {name: _ios_value(name, value) for name, value in permissions.items()}
    everything = permissions.get("all")
    if everything is not None:
        actions.append((_SIMCTL_ACTION.get(everything, "reset"), "all"))
        notifications = everything if everything in ("allow", "deny") else None
    for name, value in permissions.items():
        if name == "all":
            continue
        if name == "notifications":
            notifications = value if value in ("allow", "deny") else None
        elif name == "location":
            actions.append(_LOCATION_ACTION[value])
        elif name in IOS_SERVICES:
            actions.append((_SIMCTL_ACTION.get(value, "reset"), IOS_SERVICES[name]))
        else:
            skipped.append(name)
    return actions, notifications, skipped


def requested_permissions(dumpsys: str) -> list[str]:
    """The ``requested permissions:`` block of ``dumpsys package PKG`` (one name a line, indented
    under its heading, up to the next heading)."""
    found: list[str] = []
    inside, indent = False, 0
    for line in dumpsys.splitlines()[:20_000]:
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if stripped == "requested permissions:":
            inside, indent = True, depth
            continue
        if inside:
            if depth <= indent or not stripped or stripped.endswith(":"):
                break
            name = stripped.split(":", 1)[0].split(",", 1)[0].strip()
            if _NAME.match(name):
                found.append(name)
    return found
