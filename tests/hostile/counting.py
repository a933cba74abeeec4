"""A simulated phone that keeps every action that reached it: what a hostile test asserts stayed empty."""

from __future__ import annotations

from amc.connect.simulated import SimDriver
from amc.core.models import Platform

__all__ = ["CountingSim"]


class CountingSim(SimDriver):
    """The in-process simulated device; ``acted`` lists each tap, press, swipe, typing and launch."""

    def __init__(self, platform: Platform) -> None:
        super().__init__(platform)
        self.acted: list[str] = []

    def tap(self, x: int, y: int) -> None:
        self.acted.append(f"tap {x} {y}")
        super().tap(x, y)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        self.acted.append(f"long_press {x} {y}")
        super().long_press(x, y, duration)

    def type_text(self, text: str) -> None:
        self.acted.append(f"type {text}")
        super().type_text(text)

    def press(self, key: str) -> None:
        self.acted.append(f"press {key}")
        super().press(key)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        self.acted.append(f"swipe {x1} {y1} {x2} {y2}")
        super().swipe(x1, y1, x2, y2, duration)

    def launch_app(self, app_id: str) -> None:
        self.acted.append(f"launch {app_id}")
        super().launch_app(app_id)
