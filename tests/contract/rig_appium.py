"""AppiumDriver under contract: the real Appium-Python-Client against the simulated Appium face
(``sim+appium:PLATFORM?profile``)."""

from __future__ import annotations

PLATFORMS = ("android", "ios")
SCHEME = "sim+appium"
