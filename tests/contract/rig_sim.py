"""The in-process SimDriver under contract (``sim:PLATFORM?profile``)."""

from __future__ import annotations

PLATFORMS = ("android", "ios")
SCHEME = "sim"
