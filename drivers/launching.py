"""Launch arguments as each platform takes them, from Maestro's ``arguments`` (name -> value).

iOS (Maestro's IOSLaunchArguments.kt ``toIOSLaunchArguments``, what ``simctl launch`` gets after the
bundle id): each name becomes ``-name`` (kept as it is when it starts with ``-``) followed by its
value; a true/false value keeps its bare name (``isMaestro true``). An iOS app reads ``-name value``
pairs as user defaults (``UserDefaults.standard``) and the whole list as
``ProcessInfo.processInfo.arguments``. WebDriverAgent takes the list as ``arguments`` of ``POST
/wda/apps/launch`` (``FBSession launchApplicationWithBundleId:…arguments:environment:``, which sets
``XCUIApplication.launchArguments`` and launches only an app that is not running; a running one is
activated as it is), Appium's XCUITest as ``arguments`` of ``mobile: launchApp``.

Android (Maestro's AndroidLaunchArguments.kt ``toAndroidLaunchArguments`` and maestro-android's
MaestroDriverService.kt ``launchApp``, mobile-dev-inc/maestro at dcd2f206): each name becomes an
intent extra of the launch intent, typed by its value: a Boolean ``putExtra(key, Boolean)``, an Int,
a Long, a Double, anything else a String (``value.toString()``). A YAML integer that fits 32 bits is
an Int, a larger one a Long; a decimal is a Double. ``am start`` takes them as ``--ez``, ``--ei``,
``--el``, ``--ed`` (Android 11 and later) and ``--es`` (AOSP Intent.parseCommandArgs);
appium-android-driver's ``mobile: startActivity`` as ``extras``, a list of ``[type, key, value]``
with the types of its SUPPORTED_EXTRA_TYPES (lib/commands/intent.ts at 89b4be8d), which has no
double: a Maestro Double goes there as ``f`` (a float extra, which an app reading
``getDoubleExtra`` does not see; :data:`APPIUM_LACKS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..core.errors import StepArgumentError

__all__ = [
    "AM_FLAGS",
    "APPIUM_LACKS",
    "APPIUM_TYPES",
    "MAX_ARGUMENTS",
    "Extra",
    "am_extra_words",
    "android_extras",
    "ios_arguments",
]

ExtraKind = Literal["boolean", "int", "long", "double", "string"]

# am's flag for each kind (AOSP Intent.parseCommandArgs: --ez boolean, --ei int, --el long,
# --ed double, --es string).
AM_FLAGS: Mapping[ExtraKind, str] = {
    "boolean": "--ez",
    "int": "--ei",
    "long": "--el",
    "double": "--ed",
    "string": "--es",
}
# mobile: startActivity's extra types (appium-android-driver SUPPORTED_EXTRA_TYPES): no double.
APPIUM_TYPES: Mapping[ExtraKind, str] = {
    "boolean": "z",
    "int": "i",
    "long": "l",
    "double": "f",
    "string": "s",
}
APPIUM_LACKS: frozenset[ExtraKind] = frozenset({"double"})  # sent as a float extra instead
_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1


@dataclass(frozen=True)
class Extra:
    """One intent extra: its kind, key and the value's text as Maestro sends it."""

    kind: ExtraKind
    key: str
    value: str


MAX_ARGUMENTS = 200  # names one launch passes at most (each value at most 4,096 characters)


def _checked(arguments: Mapping[str, object]) -> list[tuple[str, object, str]]:
    """Each name, value and the value's text; ``StepArgumentError`` for a wrong one."""
    if not isinstance(arguments, Mapping) or len(arguments) > MAX_ARGUMENTS:
        raise StepArgumentError(f"arguments must map at most {MAX_ARGUMENTS} names to values")
    checked: list[tuple[str, object, str]] = []
    for name, value in arguments.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 200 or "\0" in name:
            raise StepArgumentError(f"arguments: {name!r:.60} is not an argument name")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str | int | float):
            text = str(value)
        else:
            raise StepArgumentError(f"arguments: {name}'s value must be a string, number or true/false")
        if len(text) > 4096 or "\0" in text:
            raise StepArgumentError(f"arguments: {name}'s value is longer than 4,096 characters or holds NUL")
        checked.append((name, value, text))
    return checked


def android_extras(arguments: Mapping[str, object]) -> tuple[Extra, ...]:
    """Maestro's typed intent extras for ``arguments``; ``StepArgumentError`` for a wrong one."""
    extras: list[Extra] = []
    for name, value, text in _checked(arguments):
        kind: ExtraKind
        if isinstance(value, bool):
            kind = "boolean"
        elif isinstance(value, int):
            if abs(value) > _LONG_MAX:
                raise StepArgumentError(f"arguments: {name}'s value does not fit a 64-bit integer")
            kind = "int" if -_INT_MAX - 1 <= value <= _INT_MAX else "long"
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise StepArgumentError(f"arguments: {name}'s value is not a finite number")
            kind = "double"
        else:
            kind = "string"
        extras.append(Extra(kind, name, text))
    return tuple(extras)


def ios_arguments(arguments: Mapping[str, object]) -> tuple[str, ...]:
    """Maestro's iOS argument list for ``arguments``; ``StepArgumentError`` for a wrong one."""
    argv: list[str] = []
    for name, value, text in _checked(arguments):
        flag = isinstance(value, bool) or text in ("true", "false")
        argv += [name if flag or name.startswith("-") else f"-{name}", text]
    return tuple(argv)


def am_extra_words(extras: tuple[Extra, ...]) -> list[str]:
    """``am start``'s words for ``extras`` (``--ez key true`` …), each a word of its own: the caller
    quotes them for the phone's shell (``shlex.join``), so no key or value is read as shell code."""
    return [word for extra in extras for word in (AM_FLAGS[extra.kind], extra.key, extra.value)]
