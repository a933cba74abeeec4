"""The seam between the harness and a device: the ``Driver`` protocol, and ``DeviceInfo``, an
attached device as a backend's discovery reports it.

Every backend (the simulated device, WebDriverAgent, uiautomator2, Appium) implements this
protocol and raises only errors from :mod:`core.errors`, mapped from its client library's
exceptions by a table and chained to the original. Constructors do no I/O; the first call that
needs the device connects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..core.models import Platform, Scene

__all__ = ["KEYS", "DeviceInfo", "Driver"]

# Key names every driver accepts for press(); a backend may accept more.
KEYS: tuple[str, ...] = ("home", "back", "enter", "volume_up", "volume_down")


@runtime_checkable
class Driver(Protocol):
    """One device, driven through one backend."""

    @property
    def device_id(self) -> str: ...

    @property
    def platform(self) -> Platform: ...

    @property
    def backend(self) -> str: ...

    def observe(self) -> Scene:
        """The current screen as a Scene (one UI-tree request where the backend allows)."""
        ...

    def launch_app(self, app_id: str) -> None:
        """Bring ``app_id`` to the foreground; ``AppNotInstalled`` if the device has no such app."""
        ...

    def terminate_app(self, app_id: str) -> None:
        """Stop ``app_id``; stopping an app that is not running is not an error."""
        ...

    def current_app(self) -> str | None:
        """The package / bundle id in front, or None on the home screen or when nothing is focused."""
        ...

    def tap(self, x: int, y: int) -> None: ...

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        """Touch and hold at a point for ``duration`` seconds."""
        ...

    def type_text(self, text: str) -> None:
        """Type into the focused field."""
        ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None: ...

    def press(self, key: str) -> None:
        """Press a named key (see ``KEYS``); an unknown name is a ``StepArgumentError``."""
        ...

    def screenshot(self) -> bytes:
        """The screen as image bytes (PNG or JPEG, as the backend returns it)."""
        ...

    def hide_keyboard(self) -> None:
        """Hide the on-screen keyboard; nothing happens when none is shown."""
        ...

    def open_link(self, url: str, app_id: str | None = None) -> None:
        """Open a URL or deep link (in ``app_id`` when given, where the backend can say so)."""
        ...

    def clear_state(self, app_id: str) -> None:
        """Stop ``app_id`` and clear its data; ``Unsupported`` where the backend cannot."""
        ...

    def close(self) -> None:
        """Release connections; the driver is not used afterwards."""
        ...


@dataclass(frozen=True)
class DeviceInfo:
    """An attached device as discovery sees it; ``spec`` is what ``connect`` takes."""

    spec: str
    platform: str
    backend: str
    state: str = "device"
    description: str = ""

    @property
    def usable(self) -> bool:
        return self.state == "device"

    def to_dict(self) -> dict[str, str]:
        return {
            "spec": self.spec,
            "platform": self.platform,
            "backend": self.backend,
            "state": self.state,
            "description": self.description,
        }
