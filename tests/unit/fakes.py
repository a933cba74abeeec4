"""In-process fakes for unit tests of the loop (adapters are proven over real protocols elsewhere)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from amc.core.errors import HarnessError
from amc.core.models import Bounds, Platform, Scene, UIElement
from amc.semantic.models import Observation
from amc.world.models import WorldState


def scene(
    *texts: str,
    app: str | None = "com.example.app",
    activity: str | None = None,
    title: str | None = None,
    platform: Platform = "android",
) -> Scene:
    """A small Android-like Scene with a toolbar title and one TextView per text."""
    children: list[UIElement] = []
    if title is not None:
        children.append(
            UIElement(
                "android.view.ViewGroup",
                identifier=f"{app}:id/toolbar",
                bounds=Bounds(0, 63, 1080, 210),
                children=(UIElement("android.widget.TextView", text=title, bounds=Bounds(42, 90, 800, 180)),),
            )
        )
    for i, text in enumerate(texts):
        top = 210 + i * 168
        children.append(
            UIElement("android.widget.TextView", text=text, bounds=Bounds(0, top, 1080, top + 168))
        )
    root = UIElement("hierarchy", bounds=Bounds(0, 0, 1080, 2400), children=tuple(children))
    return Scene("fake-1", platform, root, foreground_app=app, activity=activity, window_size=(1080, 2400))


@dataclass
class FakeDriver:
    """Hands out scripted Scenes and records every call; raises scripted errors per method."""

    scenes: list[Scene] = field(default_factory=lambda: [scene("hello")])
    errors: dict[str, list[HarnessError | None]] = field(default_factory=dict)
    calls: list[tuple[str, tuple[object, ...]]] = field(default_factory=list)
    device_id: str = "fake-1"
    platform: Platform = "android"
    backend: str = "fake"
    foreground: str | None = None

    def _record(self, name: str, *args: object) -> None:
        self.calls.append((name, args))
        queue = self.errors.get(name)
        if queue:
            err = queue.pop(0)
            if err is not None:
                raise err

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.calls if n == name)

    def observe(self) -> Scene:
        self._record("observe")
        current = self.scenes[0]
        if len(self.scenes) > 1:
            self.scenes.pop(0)
        return current

    def launch_app(self, app_id: str) -> None:
        self._record("launch_app", app_id)
        self.foreground = app_id

    def terminate_app(self, app_id: str) -> None:
        self._record("terminate_app", app_id)
        if self.foreground == app_id:
            self.foreground = None

    def current_app(self) -> str | None:
        self._record("current_app")
        return self.foreground

    def tap(self, x: int, y: int) -> None:
        self._record("tap", x, y)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        self._record("long_press", x, y, duration)

    def type_text(self, text: str) -> None:
        self._record("type_text", text)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        self._record("swipe", x1, y1, x2, y2, duration)

    def press(self, key: str) -> None:
        self._record("press", key)

    def screenshot(self) -> bytes:
        self._record("screenshot")
        return b"\x89PNG\r\n\x1a\nfake"

    def hide_keyboard(self) -> None:
        self._record("hide_keyboard")

    def open_link(self, url: str, app_id: str | None = None) -> None:
        self._record("open_link", url, app_id)

    def clear_state(self, app_id: str) -> None:
        self._record("clear_state", app_id)

    def launch_with(self, app_id: str, arguments: Any) -> None:
        self._record("launch_with", app_id, dict(arguments))

    def set_permissions(self, app_id: str, permissions: Any) -> None:
        self._record("set_permissions", app_id, dict(permissions))

    def clear_keychain(self) -> None:
        self._record("clear_keychain")

    def close(self) -> None:
        self._record("close")


def script(*scenes: Scene) -> list[Scene]:
    return list(scenes)


def texts_of(items: Iterable[Scene]) -> list[list[str]]:
    return [s.texts() for s in items]


class SeenScreen:
    """A ``Screen`` for executor unit tests: it starts on ``first`` (nothing seen when None) and
    looks again through ``driver``. The task loop's own ``Observer`` is tested with the loop."""

    def __init__(
        self, driver: FakeDriver, first: Scene | None = None, world: WorldState | None = None
    ) -> None:
        self.driver = driver
        self._latest = Observation(first) if first is not None else None
        self._world = world

    @property
    def latest(self) -> Observation | None:
        return self._latest

    @property
    def world(self) -> WorldState | None:
        return self._world

    def observe(self) -> Observation:
        self._latest = Observation(self.driver.observe())
        return self._latest

    def current_app(self) -> str | None:
        return self.driver.current_app()

    def pause(self, seconds: float) -> None:
        time.sleep(seconds)
