"""What both the driver and the ``appium:`` spec read of an Appium server's address and options:
typed options per platform (:func:`options_for`), the platform they name (:func:`platform_of`), and
the URL without its credentials (:func:`split_url`).

Its own module, under :mod:`.driver` and :mod:`.spec` (which builds a driver), so the driver does
not import the module that imports it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlunsplit

from appium.options.android import UiAutomator2Options
from appium.options.common import AppiumOptions
from appium.options.ios import XCUITestOptions

from ...core.errors import ConfigError
from ...core.models import Platform
from ..options import server_url

__all__ = ["options_for", "platform_of", "split_url"]


def options_for(platform: Platform, **capabilities: Any) -> AppiumOptions:
    """Typed options for ``platform`` (``UiAutomator2Options`` / ``XCUITestOptions``), with
    ``capabilities`` set through their typed properties (``udid=…``, ``app_package=…``)."""
    options: AppiumOptions = UiAutomator2Options() if platform == "android" else XCUITestOptions()
    for name, value in capabilities.items():
        if not isinstance(getattr(type(options), name, None), property):
            raise ConfigError(f"{type(options).__name__} has no option {name!r}")
        setattr(options, name, value)
    return options


def split_url(url: str) -> tuple[str, str | None, str | None]:
    """The server URL without credentials, and the credentials (for basic auth)."""
    if not isinstance(url, str):
        raise ConfigError(f"the Appium server URL must be a string, got {url!r}")
    parts = server_url(url, "the Appium server URL")
    port = parts.port
    assert parts.hostname is not None  # server_url checked it
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    clean = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return clean, parts.username, parts.password


def platform_of(options: AppiumOptions, platform: Platform | None) -> Platform:
    if isinstance(options, UiAutomator2Options):
        inferred: str | None = "android"
    elif isinstance(options, XCUITestOptions):
        inferred = "ios"
    else:
        name = options.get_capability("platformName")
        inferred = name.lower() if isinstance(name, str) and name.lower() in ("android", "ios") else None
    chosen = platform or inferred
    if chosen not in ("android", "ios"):
        raise ConfigError(
            "AppiumDriver needs platform='android' or 'ios' (the Scene's platform) when the options "
            "do not say it"
        )
    if inferred is not None and platform is not None and platform != inferred:
        raise ConfigError(f"platform {platform!r} contradicts the {type(options).__name__} given")
    return "android" if chosen == "android" else "ios"
