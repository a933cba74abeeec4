"""The simulated device's state machine.

One :class:`SimDevice` is one phone: installed apps, which one is in front, each running app's
screen stack, field contents and switches, the keyboard and alerts. It knows nothing about wire
protocols; the in-process :class:`~drivers.simulated.SimDriver` and the protocol faces call the
same methods, under one lock, so a device can be driven from several server threads at once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.apps import SPRINGBOARD
from ..core.errors import AppNotInstalled, StepArgumentError
from ..core.models import Platform
from . import layout
from .catalog import (
    ANDROID_LAUNCHER,
    DEMO_PASSWORD,
    DEMO_USER,
    AppSpec,
    Screen,
    Widget,
    catalog,
)
from .nodes import SimNode
from .picture import PictureCache

__all__ = ["SCREEN_SCALES", "WINDOW_SIZES", "AppRun", "SimDevice"]

WINDOW_SIZES: dict[str, tuple[int, int]] = {"android": (1080, 2400), "ios": (390, 844)}
# Screenshot pixels per window unit: Android windows are in pixels already; an iPhone 14's
# 390x844-point window is a 1170x2532-pixel screenshot.
SCREEN_SCALES: dict[str, float] = {"android": 1.0, "ios": 3.0}
ANDROID_KEYS = frozenset({"home", "back", "enter", "menu", "recent", "volume_up", "volume_down", "power"})
IOS_KEYS = frozenset({"home", "enter", "volume_up", "volume_down"})


@dataclass
class AppRun:
    """A running app's state: its screen stack and what the user has entered."""

    spec: AppSpec
    stack: list[str]
    values: dict[str, str] = field(default_factory=dict)
    switches: dict[str, bool] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    focused: str | None = None
    alert: tuple[str, str] | None = None
    user: str | None = None

    @property
    def screen(self) -> Screen:
        return self.spec.screen(self.stack[-1])

    def previous_title(self) -> str | None:
        if len(self.stack) < 2:
            return None
        return self.spec.screen(self.stack[-2]).title

    def switch_on(self, widget: Widget) -> bool:
        return self.switches.get(widget.key, widget.on)


class SimDevice:
    """A phone in memory. Thread-safe; every public method takes the device lock."""

    def __init__(
        self,
        platform: Platform = "android",
        device_id: str | None = None,
        *,
        apps: Mapping[str, AppSpec] | None = None,
        window_size: tuple[int, int] | None = None,
        os_version: str | None = None,
        screen_scale: float | None = None,
    ) -> None:
        if platform not in WINDOW_SIZES:
            raise ValueError(f"simulated platform must be 'android' or 'ios', got {platform!r}")
        self.platform: Platform = platform
        self.device_id = device_id or ("emulator-5554" if platform == "android" else "SIM-IPHONE-15")
        self.window_size = window_size or WINDOW_SIZES[platform]
        self.screen_scale = screen_scale or SCREEN_SCALES[platform]
        if not 0 < self.screen_scale <= 4:
            raise ValueError(f"screen_scale must be above 0 and at most 4, got {self.screen_scale!r}")
        self.os_version = os_version or ("14" if platform == "android" else "17.5")
        self.model = "sdk_gphone64_x86_64" if platform == "android" else "iPhone 15"
        self.apps: dict[str, AppSpec] = dict(apps if apps is not None else catalog(platform))
        self.launcher = ANDROID_LAUNCHER if platform == "android" else SPRINGBOARD
        self._lock = threading.RLock()
        self._pictures = PictureCache()
        self._running: dict[str, AppRun] = {}
        self._foreground: str | None = None
        self.changes = 0  # bumped on every state change; tests and faces read it

    # --- queries ----------------------------------------------------------------------------

    def installed_apps(self) -> tuple[str, ...]:
        return tuple(self.apps)

    def is_installed(self, app_id: str) -> bool:
        return app_id in self.apps or app_id == self.launcher

    def foreground(self) -> str:
        """The package / bundle id in front; the launcher (or SpringBoard) on the home screen."""
        with self._lock:
            return self._foreground or self.launcher

    def foreground_activity(self) -> str | None:
        with self._lock:
            run = self._current()
            if run is None:
                return (
                    "com.android.launcher3.uioverride.QuickstepLauncher"
                    if self.platform == "android"
                    else None
                )
            return run.screen.activity

    def running_apps(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._running)

    def app_state(self, app_id: str) -> int:
        """WebDriverAgent's numbers: 1 not running, 3 running in background, 4 foreground."""
        with self._lock:
            if app_id == self._foreground:
                return 4
            if app_id in self._running:
                return 3
            return 1

    def keyboard_shown(self) -> bool:
        with self._lock:
            run = self._current()
            return run is not None and run.focused is not None and run.alert is None

    def current_run(self) -> AppRun | None:
        with self._lock:
            return self._current()

    def tree(self) -> SimNode:
        """The whole screen as native nodes, in this platform's shapes."""
        with self._lock:
            return layout.build(self)

    def screenshot_png(self, *, alpha: bool = False) -> bytes:
        """The screen as a PNG (RGBA with ``alpha``), drawn from the tree the UI dumps render."""
        return self._pictures.png(self.tree(), self.platform, self.window_size, self.screen_scale, alpha)

    def screenshot_jpeg(self, quality: int = 80) -> bytes:
        """The screen as a JPEG of ``quality`` (1-100), as uiautomator2's server sends it."""
        return self._pictures.jpeg(self.tree(), self.platform, self.window_size, self.screen_scale, quality)

    # --- app lifecycle ----------------------------------------------------------------------

    def launch(self, app_id: str) -> None:
        """Start or resume ``app_id`` in front; ``AppNotInstalled`` if there is no such app."""
        with self._lock:
            if app_id == self.launcher:
                self.home()
                return
            spec = self.apps.get(app_id)
            if spec is None:
                raise AppNotInstalled(
                    f"{app_id} is not installed on {self.device_id}",
                    app_id=app_id,
                    hint=f"installed apps: {', '.join(self.apps)}",
                )
            if app_id not in self._running:
                self._running[app_id] = AppRun(spec, [spec.start])
            self._foreground = app_id
            self.changes += 1

    def terminate(self, app_id: str) -> bool:
        """Stop ``app_id``; True if it was running. The home screen shows if it was in front."""
        with self._lock:
            was_running = self._running.pop(app_id, None) is not None
            if self._foreground == app_id:
                self._foreground = None
            self.changes += 1
            return was_running

    def home(self) -> None:
        with self._lock:
            run = self._current()
            if run is not None:
                run.focused = None
            self._foreground = None
            self.changes += 1

    # --- input ------------------------------------------------------------------------------

    def tap(self, x: float, y: float) -> str | None:
        """Tap at a point; returns what was hit (its ref) or None when nothing reacts there."""
        with self._lock:
            node = layout.build(self).hit(x, y)
            self.changes += 1
            if node is None or node.ref is None:
                return None
            self._apply(node.ref)
            return node.ref

    def type_text(self, text: str) -> None:
        """Type into the focused field; with no focused field nothing happens (as on a phone)."""
        with self._lock:
            run = self._current()
            if run is None or run.focused is None:
                return
            run.values[run.focused] = run.values.get(run.focused, "") + text
            self.changes += 1

    def clear_text(self) -> None:
        with self._lock:
            run = self._current()
            if run is not None and run.focused is not None:
                run.values[run.focused] = ""
                self.changes += 1

    def swipe(self, x1: float, y1: float, x2: float, y2: float) -> None:
        """A vertical swipe over a list scrolls it (swipe up = content moves up)."""
        with self._lock:
            run = self._current()
            self.changes += 1
            if run is None or run.alert is not None:
                return
            delta = int(y1 - y2)
            name = run.stack[-1]
            limit = layout.max_scroll(self, run)
            run.scroll[name] = max(0, min(limit, run.scroll.get(name, 0) + delta))

    def press(self, key: str) -> None:
        allowed = ANDROID_KEYS if self.platform == "android" else IOS_KEYS
        if key not in allowed:
            raise StepArgumentError(
                f"key {key!r} is not supported on {self.platform}; supported: {', '.join(sorted(allowed))}"
            )
        with self._lock:
            self.changes += 1
            run = self._current()
            if key == "home":
                self.home()
            elif key == "back":
                self._back(run)
            elif key == "enter" and run is not None:
                run.focused = None

    # --- internals --------------------------------------------------------------------------

    def _current(self) -> AppRun | None:
        if self._foreground is None:
            return None
        return self._running.get(self._foreground)

    def _back(self, run: AppRun | None) -> None:
        if run is None:
            return
        if run.alert is not None:
            run.alert = None
        elif run.focused is not None:
            run.focused = None
        elif len(run.stack) > 1:
            run.stack.pop()
        else:
            self._foreground = None

    def _apply(self, ref: str) -> None:
        kind, _, arg = ref.partition(":")
        run = self._current()
        if kind == "icon":
            self.launch(arg)
        elif kind == "back" and run is not None:
            run.focused = None
            if len(run.stack) > 1:
                run.stack.pop()
        elif kind == "alert" and run is not None:
            run.alert = None
        elif kind == "keyboard":
            if arg == "return" and run is not None:
                run.focused = None
            elif run is not None and run.focused is not None:
                run.values[run.focused] = run.values.get(run.focused, "") + arg
        elif kind == "widget" and run is not None:
            self._widget(run, arg)

    def _widget(self, run: AppRun, key: str) -> None:
        widget = next((w for w in run.screen.widgets if w.key == key), None)
        if widget is None or not widget.enabled:
            return
        if widget.role in ("field", "secure_field"):
            run.focused = widget.key
            return
        run.focused = None
        if widget.action == "toggle":
            run.switches[widget.key] = not run.switch_on(widget)
        elif widget.action == "login":
            user, password = run.values.get("username", ""), run.values.get("password", "")
            if user == DEMO_USER and password == DEMO_PASSWORD:
                run.user = user
                run.values.clear()
                run.stack.append("welcome")
            else:
                run.alert = ("Sign-in failed", "Invalid username or password.")
        elif widget.action == "logout":
            run.user = None
            run.stack[:] = [run.spec.start]
        if widget.goto is not None:
            if widget.goto in run.stack:
                del run.stack[run.stack.index(widget.goto) + 1 :]
            else:
                run.stack.append(widget.goto)
