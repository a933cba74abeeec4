"""What the airplane-mode actions share: Maestro's value words (``AirplaneValue`` in
maestro-orchestra-models ``Commands.kt``: ``enabled``, ``disabled``) and where a backend cannot."""

from __future__ import annotations

from .base import Unsupported
from .kinds import Choice

__all__ = ["AIRPLANE_UNSUPPORTED", "SWITCH"]

SWITCH = Choice(("enabled", "disabled"))

AIRPLANE_UNSUPPORTED = (
    Unsupported(
        "WebDriverAgent cannot switch airplane mode: XCTest has no API for it on an iPhone (Maestro's "
        "iOS driver does not either)",
        backends=frozenset({"wda"}),
    ),
    Unsupported(
        "XCUITest cannot switch airplane mode on an iPhone or a Simulator (its `mobile: setConnectivity` "
        "is Android-only in UiAutomator2)",
        backends=frozenset({"appium"}),
        platforms=frozenset({"ios"}),
    ),
    Unsupported(
        "the simulated iPhone cannot switch airplane mode: on iOS neither XCTest nor simctl can, on an "
        "iPhone or a Simulator",
        backends=frozenset({"sim"}),
        platforms=frozenset({"ios"}),
    ),
)
