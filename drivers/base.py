"""The seam between the harness and a device: the ``Driver`` protocol, and ``DeviceInfo``, an
attached device as a backend's discovery reports it.

Every backend (the simulated device, WebDriverAgent, uiautomator2, Appium) implements this
protocol and raises only errors from :mod:`core.errors`, mapped from its client library's
exceptions by a table (:mod:`drivers.error_table`) and chained to the original. Constructors do no
I/O; the first call that needs the device connects. The bounds every backend shares (how long a
timeout or a gesture may be, what a coordinate is) are here, checked by :func:`timeout_seconds`,
:func:`gesture_seconds` and :func:`coordinate`, so a value one backend accepts is accepted by all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..core.durations import check_seconds
from ..core.errors import StepArgumentError, Unsupported
from ..core.models import Platform, Scene

__all__ = [
    "KEYS",
    "MAX_ERASE",
    "MAX_GESTURE",
    "MAX_LATENCY",
    "MAX_TIMEOUT",
    "ORIENTATIONS",
    "DeviceInfo",
    "Driver",
    "coordinate",
    "erase_count",
    "gesture_seconds",
    "ios_cannot_clear",
    "location",
    "on_a_phone",
    "timeout_seconds",
]

# The key names press() takes, on every backend. An adapter that cannot press one of them (iOS has
# no back, menu or recent key) raises StepArgumentError naming the keys it can press.
KEYS: tuple[str, ...] = ("home", "back", "enter", "volume_up", "volume_down", "menu", "recent", "power")

MAX_ERASE = 10_000  # characters one erase_text deletes at most

# The orientations set_orientation takes, on every backend: Maestro's four (DeviceOrientation, read by
# maestro-orchestra's YamlSetOrientation.kt), the device turned so that its top points up, to the
# left (Android's user_rotation 1, ROTATION_90), down, or to the right (user_rotation 3).
ORIENTATIONS: tuple[str, ...] = ("portrait", "landscape_left", "upside_down", "landscape_right")

# Bounds every backend shares, in seconds, checked by the functions below and nowhere else.
MAX_TIMEOUT = 3600.0  # one request, an app coming to the front, an automation server starting
MAX_GESTURE = 60.0  # a long press held, a swipe's travel
MAX_LATENCY = 60.0  # what the simulated device may add to each call (in process, or per face request)


def coordinate(value: object, name: str) -> int:
    """A screen coordinate as the pixel it names (a finite number, rounded); else ``StepArgumentError``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise StepArgumentError(f"{name} must be a finite number of pixels, got {value!r}")
    return round(value)


def erase_count(value: object) -> int:
    """How many characters an ``erase_text`` deletes: a whole number from 1 to :data:`MAX_ERASE`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ERASE:
        raise StepArgumentError(
            f"erase_text count must be a whole number from 1 to {MAX_ERASE}, got {value!r}"
        )
    return value


def location(latitude: object, longitude: object) -> tuple[float, float]:
    """A position on Earth (latitude -90..90, longitude -180..180); else ``StepArgumentError``."""
    for name, value, bound in (("latitude", latitude, 90.0), ("longitude", longitude, 180.0)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise StepArgumentError(f"{name} must be a number, got {value!r}")
        if abs(value) > bound:
            raise StepArgumentError(f"{name} must be from -{bound:g} to {bound:g}, got {value!r}")
    return float(latitude), float(longitude)  # type: ignore[arg-type]


def timeout_seconds(value: object, what: str) -> float:
    """A backend's timeout: above 0 and at most :data:`MAX_TIMEOUT`; else ``ConfigError`` naming ``what``."""
    return check_seconds(value, what, maximum=MAX_TIMEOUT, above_zero=True)


def gesture_seconds(value: object, what: str, *, held: bool) -> float:
    """A gesture's duration, at most :data:`MAX_GESTURE`: a press is ``held`` for more than 0 s, a
    swipe may take 0 s. Anything else is a ``StepArgumentError`` naming ``what``."""
    return check_seconds(value, what, maximum=MAX_GESTURE, above_zero=held, error=StepArgumentError)


@runtime_checkable
class Driver(Protocol):
    """One device, driven through one backend.

    A driver whose screen goes on changing for a while after an action (a phone's animations and
    transitions) says so with a true ``animates`` attribute; after an action that changes the
    screen, the task loop then looks until the screen has settled. A driver without it (a test's
    scripted fake) is looked at once per step."""

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
        """Touch and hold at a point for ``duration`` seconds (above 0, at most ``MAX_GESTURE``)."""
        ...

    def type_text(self, text: str) -> None:
        """Type into the focused field."""
        ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        """Drag from one point to another over ``duration`` seconds (0 to ``MAX_GESTURE``)."""
        ...

    def press(self, key: str) -> None:
        """Press a named key (see ``KEYS``); an unknown name is a ``StepArgumentError``."""
        ...

    def erase_text(self, count: int) -> None:
        """Delete up to ``count`` characters (1 to ``MAX_ERASE``) before the caret of the focused
        field, as that many presses of the keyboard's delete key do."""
        ...

    def set_location(self, latitude: float, longitude: float) -> None:
        """Make the device report this position; ``Unsupported`` where the backend cannot."""
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

    def launch_with(self, app_id: str, arguments: Mapping[str, object]) -> None:
        """Launch ``app_id`` with launch arguments (name -> value, as Maestro's ``arguments``: on
        iOS ``-name value``, a true/false value as ``name true``; on Android typed intent extras),
        which a new process receives (a running app is brought forward as it is); ``Unsupported``
        where the backend cannot."""
        ...

    def set_permissions(self, app_id: str, permissions: Mapping[str, str]) -> None:
        """Set ``app_id``'s permissions, named as Maestro names them (``all``, ``notifications``,
        ``camera`` …, or a platform's own name), to ``allow``, ``deny`` or ``unset``
        (:mod:`drivers.permissions`); ``Unsupported`` where the device cannot (a physical iPhone)."""
        ...

    def clear_keychain(self) -> None:
        """Reset the iOS keychain (a Simulator's; nothing on Android, which has none);
        ``Unsupported`` where the device cannot (a physical iPhone)."""
        ...

    def close(self) -> None:
        """Release connections; the driver is not used afterwards."""
        ...

    # --- the device's own state (orientation, airplane mode, appearance, recording, media) ------

    def set_orientation(self, orientation: str) -> None:
        """Turn the screen to one of :data:`ORIENTATIONS`; ``Unsupported`` where the backend cannot."""
        ...

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on or off; ``Unsupported`` where the backend cannot."""
        ...

    def airplane_mode(self) -> bool:
        """Whether airplane mode is on."""
        ...

    def set_dark_mode(self, enabled: bool) -> None:
        """Switch the system appearance to dark (or light); ``Unsupported`` where the backend cannot."""
        ...

    def dark_mode(self) -> bool:
        """Whether the system appearance is dark."""
        ...

    def start_recording(self) -> None:
        """Start recording the screen (a recording already under way goes on)."""
        ...

    def stop_recording(self) -> bytes:
        """Stop the recording and return it (an MP4 video, or an animated PNG of the frames)."""
        ...

    def add_media(self, name: str, data: bytes) -> None:
        """Put a picture or video (``name`` with its extension) into the device's gallery."""
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


def on_a_phone(what: str, backend: str) -> Unsupported:
    """What a Simulator-only step is on a physical iPhone, on every backend alike (the rule the
    check reads is :mod:`amc.actions`' ``Unsupported`` entries of ``kinds={'device'}``)."""
    return Unsupported(
        f"{backend} cannot {what} on a physical iPhone: only a Simulator's simctl can",
        hint="run the flow on an iOS Simulator, or mark the step `optional: true` to go on",
    )


def ios_cannot_clear(app_id: str) -> Unsupported:
    """What ``clear_state`` is on an iPhone, over WebDriverAgent and on the simulated iPhone alike:
    XCTest gives WDA no way to delete an app's data (it can launch, activate, terminate and query
    apps, never reset one)."""
    return Unsupported(
        f"WebDriverAgent cannot clear {app_id}'s data: XCTest has no API to reset an app on iOS",
        hint="uninstall and reinstall the app (e.g. `xcrun devicectl device uninstall app`, "
        "`ideviceinstaller`), use `xcrun simctl` on a Simulator (Appium's `mobile: clearApp`, "
        "Simulator only), or sign out inside the app; mark the step `optional: true` to go on",
    )
