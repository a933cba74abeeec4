"""The simulated device's state machine.

One :class:`SimDevice` is one phone: installed apps, which one is in front, each running app's
screen stack, field contents and switches, the keyboard and alerts. It knows nothing about wire
protocols; the in-process :class:`~drivers.simulated.SimDriver` and the protocol faces call the
same methods, under one lock, so a device can be driven from several server threads at once.
"""

from __future__ import annotations

import threading
import zlib
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
from .png import solid_png
from .profiles import DEFAULT_ANDROID, DEFAULT_IOS, AndroidProfile, IosProfile

__all__ = ["WINDOW_SIZES", "AppRun", "SimDevice"]

WINDOW_SIZES: dict[str, tuple[int, int]] = {"android": (1080, 2400), "ios": (390, 844)}
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
    prompt: str | None = None  # a system permission prompt over the app ("notifications")

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
        profile: AndroidProfile | IosProfile | None = None,
    ) -> None:
        if platform not in WINDOW_SIZES:
            raise ValueError(f"simulated platform must be 'android' or 'ios', got {platform!r}")
        self.platform: Platform = platform
        self.device_id = device_id or ("emulator-5554" if platform == "android" else "SIM-IPHONE-15")
        self.window_size = window_size or WINDOW_SIZES[platform]
        if profile is None:
            profile = DEFAULT_ANDROID if platform == "android" else DEFAULT_IOS
        if isinstance(profile, AndroidProfile) != (platform == "android"):
            raise ValueError(f"a simulated {platform} device cannot play the profile {profile!r}")
        # Which release the faces play (sim.profiles); the OS version follows it unless given.
        self.profile: AndroidProfile | IosProfile = profile
        release = profile.release if isinstance(profile, AndroidProfile) else profile.os_version
        self.os_version = os_version or release
        self.model = "sdk_gphone64_x86_64" if platform == "android" else "iPhone 15"
        self.apps: dict[str, AppSpec] = dict(apps if apps is not None else catalog(platform))
        self.launcher = ANDROID_LAUNCHER if platform == "android" else SPRINGBOARD
        self._lock = threading.RLock()
        self._running: dict[str, AppRun] = {}
        self._foreground: str | None = None
        self._asked: set[str] = set()  # apps whose permission prompt was answered (or shown once)
        self._tasks: dict[str, int] = {}  # Android task ids of running apps, as dumpsys prints them
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
                    "com.android.launcher3.uioverrides.QuickstepLauncher"
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
            return run is not None and run.focused is not None and run.alert is None and run.prompt is None

    def system_prompt(self) -> tuple[str, str] | None:
        """(app id, permission) of the system permission prompt over the app in front, or None."""
        with self._lock:
            run = self._current()
            if run is None or run.prompt is None:
                return None
            return run.spec.app_id, run.prompt

    def task_id(self, app_id: str) -> int:
        """The task id Android gives a running app (stable while it runs), as ``dumpsys`` shows it."""
        with self._lock:
            if app_id not in self._tasks:
                self._tasks[app_id] = 61 + len(self._tasks) * 7
            return self._tasks[app_id]

    def current_run(self) -> AppRun | None:
        with self._lock:
            return self._current()

    def tree(self) -> SimNode:
        """The whole screen as native nodes, in this platform's shapes."""
        with self._lock:
            return layout.build(self)

    def screenshot_png(self) -> bytes:
        """A PNG of the screen size whose colour changes with what is on screen."""
        with self._lock:
            fg = self.foreground()
            run = self._current()
            screen = run.screen.name if run is not None else "home"
            shade = zlib.crc32(f"{fg}/{screen}".encode()) & 0xFFFFFF
        width, height = self.window_size
        return solid_png(width // 4, height // 4, ((shade >> 16) & 255, (shade >> 8) & 255, shade & 255))

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
                if spec.asks is not None and app_id not in self._asked:
                    self._running[app_id].prompt = spec.asks
                    self._asked.add(app_id)
            self._foreground = app_id
            self.changes += 1

    def terminate(self, app_id: str) -> bool:
        """Stop ``app_id``; True if it was running. The home screen shows if it was in front."""
        with self._lock:
            was_running = self._running.pop(app_id, None) is not None
            self._tasks.pop(app_id, None)
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
            run = self._current()
            if run is not None and run.prompt is not None and not node.ref.startswith("prompt:"):
                return None  # a system prompt is modal: nothing under it takes the tap
            self._apply(node.ref)
            return node.ref

    def type_text(self, text: str) -> None:
        """Type into the focused field; with no focused field nothing happens (as on a phone)."""
        with self._lock:
            run = self._current()
            if run is None or run.focused is None or run.prompt is not None:
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
            if run.prompt is not None:
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
        if run.prompt is not None:
            run.prompt = None  # back on Android's permission prompt denies it
        elif run.alert is not None:
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
        elif kind == "prompt" and run is not None:
            run.prompt = None  # allowed or denied: the simulated apps behave the same either way
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
