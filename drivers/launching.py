"""Launch arguments as each platform takes them, from Maestro's ``arguments`` (name -> value).

iOS (Maestro's IOSLaunchArguments.kt ``toIOSLaunchArguments``, what ``simctl launch`` gets after the
bundle id): each name becomes ``-name`` (kept as it is when it starts with ``-``) followed by its
value; a true/false value keeps its bare name (``isMaestro true``). An iOS app reads ``-name value``
pairs as user defaults (``UserDefaults.standard``) and the whole list as
``ProcessInfo.processInfo.arguments``. WebDriverAgent takes the list as ``arguments`` of ``POST
/wda/apps/launch`` (``FBSession launchApplicationWithBundleId:…arguments:environment:``, which sets
``XCUIApplication.launchArguments`` and launches only an app that is not running; a running one is
activated as it is), Appium's XCUITest as ``arguments`` of ``mobile: launchApp``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import StepArgumentError

__all__ = ["MAX_ARGUMENTS", "ios_arguments"]

MAX_ARGUMENTS = 200  # names one launch passes at most (each value at most 4,096 characters)


def ios_arguments(arguments: Mapping[str, object]) -> tuple[str, ...]:
    """Maestro's iOS argument list for ``arguments``; ``StepArgumentError`` for a wrong one."""
    if not isinstance(arguments, Mapping) or len(arguments) > MAX_ARGUMENTS:
        raise StepArgumentError(f"arguments must map at most {MAX_ARGUMENTS} names to values")
    argv: list[str] = []
    for name, value in arguments.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise StepArgumentError(f"arguments: {name!r:.60} is not an argument name")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str | int | float):
            text = str(value)
        else:
            raise StepArgumentError(f"arguments: {name}'s value must be a string, number or true/false")
        if len(text) > 4096:
            raise StepArgumentError(f"arguments: {name}'s value is longer than 4,096 characters")
        flag = isinstance(value, bool) or text in ("true", "false")
        argv += [name if flag or name.startswith("-") else f"-{name}", text]
    return tuple(argv)
