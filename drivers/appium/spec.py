"""Appium device specs: ``appium:http://HOST:PORT[/path]?platform=android|ios&udid=…&app=…``.

:func:`connect_spec` is what ``drivers.connect.connect("appium:…")`` calls. The URL is any Appium
3 server or Selenium Grid hub (``http://hub:4444``); query parameters become the client's typed
options (``UiAutomator2Options`` for ``platform=android``, ``XCUITestOptions`` for ``ios``)
through :data:`QUERY_OPTIONS`, or harness settings through :data:`QUERY_SETTINGS`. An unknown
parameter, a repeated one or a value of the wrong type is a ``ConfigError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlunsplit

from ...core.durations import check_seconds
from ...core.errors import ConfigError
from ...core.models import Platform
from ..base import MAX_TIMEOUT
from ..options import server_url
from .capabilities import options_for, platform_of, split_url
from .driver import AppiumDriver

__all__ = [
    "CONNECT_OPTIONS",
    "QUERY_OPTIONS",
    "QUERY_SETTINGS",
    "connect_spec",
    "options_for",
    "platform_of",
    "split_url",
]


def _text(value: str) -> str:
    return value


def _flag(value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError("expected true or false")


def _whole(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("expected a whole number >= 0")
    return number


def _kind(value: str) -> str:
    if value.strip().lower() not in ("simulator", "device"):
        raise ValueError("kind is simulator or device")
    return value.strip().lower()


def _seconds(value: str) -> float:
    return check_seconds(
        value, "the value", maximum=MAX_TIMEOUT, above_zero=True, text=True, error=ValueError
    )


# query parameter -> (platforms, typed option attribute, converter)
QUERY_OPTIONS: dict[str, tuple[frozenset[str], str, Callable[[str], Any]]] = {
    "udid": (frozenset({"android", "ios"}), "udid", _text),
    "app": (frozenset({"android", "ios"}), "app", _text),
    "deviceName": (frozenset({"android", "ios"}), "device_name", _text),
    "platformVersion": (frozenset({"android", "ios"}), "platform_version", _text),
    "automationName": (frozenset({"android", "ios"}), "automation_name", _text),
    "noReset": (frozenset({"android", "ios"}), "no_reset", _flag),
    "fullReset": (frozenset({"android", "ios"}), "full_reset", _flag),
    "newCommandTimeout": (frozenset({"android", "ios"}), "new_command_timeout", _whole),
    "language": (frozenset({"android", "ios"}), "language", _text),
    "locale": (frozenset({"android", "ios"}), "locale", _text),
    "appPackage": (frozenset({"android"}), "app_package", _text),
    "appActivity": (frozenset({"android"}), "app_activity", _text),
    "appWaitActivity": (frozenset({"android"}), "app_wait_activity", _text),
    "autoGrantPermissions": (frozenset({"android"}), "auto_grant_permissions", _flag),
    "systemPort": (frozenset({"android"}), "system_port", _whole),
    "avd": (frozenset({"android"}), "avd", _text),
    "bundleId": (frozenset({"ios"}), "bundle_id", _text),
    "wdaLocalPort": (frozenset({"ios"}), "wda_local_port", _whole),
    "useNewWDA": (frozenset({"ios"}), "use_new_wda", _flag),
}

# query parameter -> (AppiumDriver keyword, converter): the harness's, not capabilities.
QUERY_SETTINGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "timeout": ("timeout", _seconds),
    "sessionTimeout": ("session_timeout", _seconds),
    "launchTimeout": ("launch_timeout", _seconds),
    "kind": ("kind", _kind),  # an iOS Simulator or a device (amc.drivers.kinds), not a capability
}
# query parameter -> Appium setting applied once per session (iOS: cut page-source time).
_APPIUM_SETTINGS: dict[str, Callable[[str], Any]] = {
    "snapshotMaxDepth": _whole,
    "pageSourceExcludedAttributes": _text,
}
# connect(spec, **options) keywords accepted besides the query.
CONNECT_OPTIONS = frozenset(
    {"timeout", "session_timeout", "launch_timeout", "settings", "capabilities", "device_id"}
)


def _bad(spec: str, why: str) -> ConfigError:
    return ConfigError(
        f"bad device spec 'appium:{spec}': {why}",
        hint="appium:http://HOST:PORT[/path]?platform=android|ios&udid=…&app=…&automationName=…",
    )


def connect_spec(target: str, options: Mapping[str, Any]) -> AppiumDriver:
    """A connected ``AppiumDriver`` for ``appium:TARGET`` (see the module docstring).

    ``options`` may add ``timeout``, ``session_timeout``, ``launch_timeout`` (seconds),
    ``settings`` (Appium settings), ``capabilities`` (more raw capabilities) and ``device_id``.
    ``platformName`` in the query overrides the W3C platform (e.g. ``Fake`` for Appium's fake
    driver) while ``platform`` still says which Scene format to expect.
    """
    try:
        parts = server_url(target, "the Appium server URL")
    except ConfigError as exc:  # an unclosed IPv6 bracket, ftp://, a port outside 1-65535
        raise _bad(target, exc.message) from exc
    pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=False)
    seen: dict[str, str] = {}
    for key, value in pairs:
        if key in seen:
            raise _bad(target, f"query parameter {key!r} is given twice")
        if not value:
            raise _bad(target, f"query parameter {key!r} has no value")
        seen[key] = value
    platform = seen.pop("platform", "").lower()
    if platform not in ("android", "ios"):
        raise _bad(target, "it needs platform=android or platform=ios")
    plat: Platform = "android" if platform == "android" else "ios"
    typed = options_for(plat)
    keywords: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    for key, value in seen.items():
        try:
            if key in QUERY_OPTIONS:
                platforms, attribute, convert = QUERY_OPTIONS[key]
                if plat not in platforms:
                    raise _bad(target, f"query parameter {key!r} is for {'/'.join(sorted(platforms))} only")
                setattr(typed, attribute, convert(value))
            elif key in QUERY_SETTINGS:
                name, convert = QUERY_SETTINGS[key]
                keywords[name] = convert(value)
            elif key in _APPIUM_SETTINGS:
                settings[key] = _APPIUM_SETTINGS[key](value)
            elif key == "platformName":
                typed.set_capability("platformName", value)
            else:
                known = sorted(
                    {"platform", "platformName", *QUERY_OPTIONS, *QUERY_SETTINGS, *_APPIUM_SETTINGS}
                )
                raise _bad(target, f"unknown query parameter {key!r}; accepted: {', '.join(known)}")
        except ValueError as exc:
            raise _bad(target, f"query parameter {key!r}={value!r}: {exc}") from exc
    unknown = sorted(set(options) - CONNECT_OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown option(s) {', '.join(unknown)} for appium:; "
            f"accepted: {', '.join(sorted(CONNECT_OPTIONS))}"
        )
    extra = options.get("capabilities") or {}
    if not isinstance(extra, Mapping):
        raise ConfigError(f"option 'capabilities' must be a mapping, got {type(extra).__name__}")
    for name, value in extra.items():
        typed.set_capability(str(name), value)
    given_settings = options.get("settings") or {}
    if not isinstance(given_settings, Mapping):
        raise ConfigError(f"option 'settings' must be a mapping, got {type(given_settings).__name__}")
    settings.update(given_settings)
    for name in ("timeout", "session_timeout", "launch_timeout"):
        if name in options:
            keywords[name] = options[name]
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    driver = AppiumDriver(
        url, typed, platform=plat, device_id=options.get("device_id"), settings=settings, **keywords
    )
    return driver.connect()
