"""``describe_screen``: the latest screen in words (the app, the page's texts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, Screen
from .targets import describe_scene


def _describe(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    latest = screen.latest or screen.observe()
    return describe_scene(latest.scene)


ACTION = Action("describe_screen", "describe the latest screen", _describe, idempotent=True)
