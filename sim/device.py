"""The simulated device's state machine.

One :class:`SimDevice` is one phone: installed apps, which one is in front, each running app's
screen stack, field contents and switches, the keyboard and alerts. It knows nothing about wire
protocols; the in-process :class:`~connect.simulated.SimDriver` and the protocol faces call the
same methods, under one lock, so a device can be driven from several server threads at once.

In time (:class:`Timing`; :data:`INSTANT` by default here, ``realistic`` for flows and device
tests through ``amc.drivers.connect``): a change of screen or app takes 100-400 ms during which
the old screen still shows (in its tree and as the app in front), the demo app's sign-in shows a
progress indicator for about a second, and the screens marked ``loads_late`` show a progress
indicator before their rows. A tap while the screen is still changing is dropped, as a touch on a
window mid-animation is; a stopped app's window goes at once. Timed changes happen when the device
is next asked anything (no thread), so a device nobody asks costs nothing.
"""

from __future__ import annotations

import heapq
import random
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from ..core.apps import SPRINGBOARD
from ..core.errors import AppNotInstalled, StepArgumentError
from ..core.models import Platform
from . import layout, layout_screen
from .app_run import AppRun
from .catalog import (
    ANDROID_LAUNCHER,
    AppSpec,
    catalog,
)
from .covers import CoverControls, SystemScreen
from .device_extras import DeviceExtras
from .device_state import DeviceSettings
from .nodes import SimNode, shifted
from .permissions import DevicePermissions, Env
from .picture import PictureCache
from .profiles import DEFAULT_ANDROID, DEFAULT_IOS, AndroidProfile, IosProfile
from .timing import INPUT_DELAY, INSTANT, REALISTIC, TIMINGS, Timing
from .users import SimUser

__all__ = [
    "DEFAULT_IDS",
    "INSTANT",
    "REALISTIC",
    "SCREEN_SCALES",
    "TIMINGS",
    "WINDOW_SIZES",
    "AppRun",
    "SimDevice",
    "Timing",
]


# What a simulated device is called when nobody names it (adb's first emulator serial).
DEFAULT_IDS: dict[str, str] = {"android": "emulator-5554", "ios": "SIM-IPHONE-15"}

WINDOW_SIZES: dict[str, tuple[int, int]] = {"android": (1080, 2400), "ios": (390, 844)}
# Screenshot pixels per window unit: Android windows are in pixels already; an iPhone 14's
# 390x844-point window is a 1170x2532-pixel screenshot.
SCREEN_SCALES: dict[str, float] = {"android": 1.0, "ios": 3.0}
ANDROID_KEYS = frozenset({"home", "back", "enter", "menu", "recent", "volume_up", "volume_down", "power"})
IOS_KEYS = frozenset({"home", "enter", "volume_up", "volume_down"})


class SimDevice(DeviceExtras, CoverControls, DeviceSettings, DevicePermissions):
    """A phone in memory. Thread-safe; every public method takes the device lock. What covers
    its apps (the lock screen, the shade, a system dialog) is :mod:`sim.covers`."""

    def __init__(
        self,
        platform: Platform = "android",
        device_id: str | None = None,
        *,
        apps: Mapping[str, AppSpec] | None = None,
        window_size: tuple[int, int] | None = None,
        os_version: str | None = None,
        profile: AndroidProfile | IosProfile | None = None,
        timing: Timing = INSTANT,
        clock: Callable[[], float] = time.monotonic,
        screen_scale: float | None = None,
    ) -> None:
        if platform not in WINDOW_SIZES:
            raise ValueError(f"simulated platform must be 'android' or 'ios', got {platform!r}")
        self.platform: Platform = platform
        self.device_id = device_id or DEFAULT_IDS[platform]
        self.window_size = window_size or WINDOW_SIZES[platform]
        self.screen_scale = screen_scale or SCREEN_SCALES[platform]
        if not 0 < self.screen_scale <= 4:
            raise ValueError(f"screen_scale must be above 0 and at most 4, got {self.screen_scale!r}")
        if profile is None:
            profile = DEFAULT_ANDROID if platform == "android" else DEFAULT_IOS
        if isinstance(profile, AndroidProfile) != (platform == "android"):
            raise ValueError(f"a simulated {platform} device cannot play the profile {profile!r}")
        # Which release the faces play (sim.profiles); the OS version follows it unless given.
        self.profile: AndroidProfile | IosProfile = profile
        release = profile.release if isinstance(profile, AndroidProfile) else profile.os_version
        self.os_version = os_version or release
        self.model = "sdk_gphone64_x86_64" if platform == "android" else "iPhone 15"
        self.apps: dict[str, AppSpec] = dict(apps if apps is not None else catalog(platform, self.os_version))
        self.launcher = ANDROID_LAUNCHER if platform == "android" else SPRINGBOARD
        self._lock = threading.RLock()
        self._pictures = PictureCache()
        self._running: dict[str, AppRun] = {}
        self._foreground: str | None = None
        self._asked: set[str] = set()  # apps whose permission prompt was answered (or shown once)
        self._grants, self._keychain_resets = {}, 0  # permissions and keychain (sim.permissions)
        self._tasks: dict[str, int] = {}  # Android task ids of running apps, as dumpsys prints them
        self._pids: dict[str, int] = {}  # process ids of running apps (a restart gets a new one)
        self._next_pid = 4200 + zlib.crc32(self.device_id.encode()) % 3000
        self.changes = 0  # bumped on every state change; tests and faces read it
        self.timing = timing
        self._clock = clock
        self._random = random.Random(zlib.crc32(self.device_id.encode()))  # the same run, the same waits
        self._events: list[tuple[float, int, Callable[[], None]]] = []
        self._shown: tuple[float, SimNode, str | None, str | None] | None = None  # until, tree, app, activity
        self._slide: tuple[float, float] | None = None  # the new screen slides in: (from, until)
        self.last_transition = 0.0  # seconds the last screen change took to be in place
        self._data: dict[str, dict[str, str]] = {}  # what apps keep on disk (a signed-in user)
        # Android's input methods: whether uiautomator2's AdbKeyboard is installed, and the current
        # one, whose keyboard shows while a field has focus (the adb face's ``ime`` changes it).
        self.adb_keyboard = True
        self._input_method = layout.LATIN_IME
        self.system = SystemScreen()  # the lock screen, the shade, a system dialog (sim.covers)
        self._failing = {}  # apps whose next launches crash or hang (sim.covers.fail_launches)
        self.users: tuple[SimUser, ...] = ()  # the users beside the owner (sim.users)
        self.screen_on = True
        self._toast: tuple[str, float] | None = None  # the last toast and when it showed
        self.location: tuple[float, float] | None = None  # a position set by set_location

    # --- time -------------------------------------------------------------------------------

    def _settle(self) -> None:
        """Apply the timed changes that are due (call with the lock held)."""
        now = self._clock()
        while self._events and self._events[0][0] <= now:
            _due, _n, event = heapq.heappop(self._events)
            event()
        if self._shown is not None and self._shown[0] <= now:
            self._shown = None
        if self._slide is not None and self._slide[1] <= now:
            self._slide = None

    def _later(self, delay: float, event: Callable[[], None]) -> None:
        if delay <= 0:
            event()
            return
        heapq.heappush(self._events, (self._clock() + delay, self.changes, event))

    def _screen_key(self) -> tuple[str | None, tuple[str, ...], tuple[str, str] | None]:
        run = self._current()
        return (self._foreground, tuple(run.stack) if run else (), run.alert if run else None)

    @contextmanager
    def _changing(self, *, freeze: bool = True) -> Iterator[None]:
        """Around a change: if it changed the screen, a transition of 100-400 ms follows: the
        screen before it keeps showing for the first moment (:data:`INPUT_DELAY`, the touch reaching
        the app), then the new one slides in from the right, each look catching it somewhere else
        until it is in place; a ``loads_late`` screen it opened gets its rows later. Nested changes
        (a tap that launches an app) make one transition.

        No dump taken during a real transition was found to copy; a window mid-animation is reported
        at its moving bounds (elements of a page being left reported at off-screen coordinates:
        appium/appium#6149), which is what a hierarchy-comparing settle (Maestro's
        ``waitForAppToSettle``) relies on, and what this models."""
        self._settle()
        before = self._screen_key()
        low, high = self.timing.transition
        shown = None
        if high > 0 and freeze:  # the screen as it is now (a change during a transition starts from it)
            run = self._current()
            activity = run.screen.activity if run is not None else self.foreground_activity()
            shown = (layout_screen.build(self), self._foreground or self.launcher, activity)
        yield
        if self._screen_key() == before:
            return
        now = self._clock()
        if shown is not None:
            total = self._random.uniform(low, high)
            still = min(INPUT_DELAY, total / 2)
            self._shown = (now + still, *shown)
            self._slide = (now + still, now + total)
            self.last_transition = total
        run = self._current()
        if run is not None and self.timing.list_rows > 0:
            top = run.spec.screen(run.stack[-1])
            if top.loads_late and (
                not before[1] or before[1][-1] != top.name or before[0] != self._foreground
            ):
                run.rows_at[top.name] = now + self.timing.list_rows

    # --- queries ----------------------------------------------------------------------------

    @property
    def input_method(self) -> str:
        """The current Android input method's id (``settings get secure default_input_method``)."""
        with self._lock:
            return self._input_method

    @input_method.setter
    def input_method(self, ime: str) -> None:
        with self._lock:
            if ime != self._input_method:
                self._input_method = ime
                self.changes += 1

    def installed_apps(self) -> tuple[str, ...]:
        return tuple(self.apps)

    def is_installed(self, app_id: str) -> bool:
        return app_id in self.apps or app_id == self.launcher

    def foreground(self) -> str:
        """The package / bundle id in front (during a transition, the one still showing); the
        launcher (or SpringBoard) on the home screen."""
        with self._lock:
            self._settle()
            if self._shown is not None:
                return self._shown[2] or self.launcher
            return self._foreground or self.launcher

    def foreground_activity(self) -> str | None:
        with self._lock:
            self._settle()
            if self._shown is not None:
                return self._shown[3]
            run = self._current()
            if run is None:
                return (
                    "com.android.launcher3.uioverrides.QuickstepLauncher"
                    if self.platform == "android"
                    else None
                )
            return run.screen.activity

    def transition_left(self) -> float:
        """Seconds until a transition is over and the new screen is in place (0: none)."""
        with self._lock:
            self._settle()
            return 0.0 if self._slide is None else max(0.0, self._slide[1] - self._clock())

    def running_apps(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._running)

    def app_state(self, app_id: str) -> int:
        """WebDriverAgent's numbers: 1 not running, 3 running in background, 4 foreground."""
        with self._lock:
            covered = self._covered_state(app_id)
            if covered is not None:
                return covered
            if app_id == self._foreground:
                return 4
            if app_id in self._running:
                return 3
            return 1

    def keyboard_shown(self) -> bool:
        with self._lock:
            run = self._current()
            if run is None or self._covered():
                return False
            return run.focused is not None and run.alert is None and run.prompt is None

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
        """The whole screen as native nodes, in this platform's shapes (during a transition, the
        screen that still shows)."""
        with self._lock:
            self._settle()
            if self._shown is not None:
                tree = self._shown[1]
            else:
                tree = layout_screen.build(self)
                if self._slide is not None:
                    start, end = self._slide
                    left = max(0.0, (end - self._clock()) / max(end - start, 1e-6))
                    tree = shifted(tree, round(self.window_size[0] * left))
            self._keep_frame(tree)  # a frame of a recording under way (sim.device_state)
            return tree

    def screenshot_png(self, *, alpha: bool = False) -> bytes:
        """The screen as a PNG (RGBA with ``alpha``), drawn from the tree the UI dumps render."""
        return self._pictures.png(
            self.tree(), self.platform, self.window_size, self.screen_scale, alpha, dark=self.dark
        )

    def screenshot_jpeg(self, quality: int = 80) -> bytes:
        """The screen as a JPEG of ``quality`` (1-100), as uiautomator2's server sends it."""
        return self._pictures.jpeg(
            self.tree(), self.platform, self.window_size, self.screen_scale, quality, dark=self.dark
        )

    # --- app lifecycle ----------------------------------------------------------------------

    def _spec(self, app_id: str) -> AppSpec:
        spec = self.apps.get(app_id)
        if spec is None:
            raise AppNotInstalled(
                f"{app_id} is not installed on {self.device_id}",
                app_id=app_id,
                hint=f"installed apps: {', '.join(self.apps)} (screens and ids: docs/simulated-device.md)",
            )
        return spec

    def launch(self, app_id: str, arguments: tuple[str, ...] = (), environment: Env = None) -> None:
        """Start or resume ``app_id`` in front; ``AppNotInstalled`` if there is no such app. An app
        that keeps its sign-in starts on its signed-in screen while a user is signed in. A process
        started now gets ``arguments`` and ``environment``; a running one is brought forward as it is
        (as WebDriverAgent's ``FBSession`` activates a running app)."""
        with self._lock, self._changing():
            if app_id == self.launcher:
                self.home()
                return
            spec = self._spec(app_id)
            self._covered_launch(app_id)
            if app_id not in self._running:
                run = AppRun(spec, [spec.start], clock=self._clock)
                self.start_with(run, arguments, environment)
                user = self._data.get(app_id, {}).get("user")
                if user is not None and spec.signed_in_screen is not None:
                    run.user = user
                    run.stack.append(spec.signed_in_screen)
                self._pids[app_id] = self._next_pid  # a new process: a new pid, as on a phone
                self._next_pid += 1 + self._random.randrange(40)
                if self.prompts(spec):
                    run.prompt = spec.asks
                    self._asked.add(app_id)
                self._running[app_id] = run
            self._foreground = app_id
            self.system.home_asking = False
            self._covered_after_launch(app_id)
            self.changes += 1

    def terminate(self, app_id: str) -> bool:
        """Stop ``app_id``; True if it was running. The home screen shows at once if it was in front
        (a stopped app's window goes with it: no transition shows it)."""
        with self._lock, self._changing(freeze=False):
            was_running = self._running.pop(app_id, None) is not None
            self._tasks.pop(app_id, None)
            self._pids.pop(app_id, None)
            self._forget_dialog_of(app_id)
            if self._foreground == app_id:
                self._foreground = None
                self._shown = self._slide = None
            self.changes += 1
            return was_running

    def clear_state(self, app_id: str) -> None:
        """Stop ``app_id`` and forget what it kept (``pm clear``); ``AppNotInstalled`` if absent."""
        with self._lock:
            self._spec(app_id)
            self.terminate(app_id)
            self._data.pop(app_id, None)
            self.forget_permissions(app_id)  # `pm clear` revokes its runtime permissions: it asks again

    def home(self) -> None:
        with self._lock, self._changing():
            run = self._current()
            if run is not None:
                run.focused = None
            self._foreground = None
            self.system.shade = None  # going home closes the shade (a lock or a dialog stays)
            self.system.home_asking = self.system.home_unset  # no default home app: the chooser
            self.changes += 1

    # --- input ------------------------------------------------------------------------------

    def tap(self, x: float, y: float) -> str | None:
        """Tap at a point; returns what was hit (its ref) or None when nothing reacts there. A tap
        while the screen is still changing is dropped, as a touch on a window mid-animation is."""
        with self._lock, self._changing():
            if self._shown is not None or self._slide is not None:
                self.changes += 1
                return None
            node = layout_screen.build(self).hit(x, y)
            self.changes += 1
            if self._covered_tap(node.ref if node is not None else None):
                return node.ref if node is not None else None
            if node is None or node.ref is None:
                return None
            run = self._current()
            if run is not None and run.prompt is not None and not node.ref.startswith("prompt:"):
                return None  # a system prompt is modal: nothing under it takes the tap
            if run is not None and run.alert is not None and not node.ref.startswith("alert:"):
                # An app's dialog is modal too: Android's AlertDialog window takes every touch while
                # it shows (touches outside it go nowhere: setCanceledOnTouchOutside(false) is the
                # AlertDialog default for a non-cancelable one, and a cancelable one only closes),
                # and iOS's UIAlertController presents over a dimming view that swallows touches.
                return None
            self._apply(node.ref)
            return node.ref

    def _gesture(self, x: float, y: float, kind: str) -> str | None:
        with self._lock:
            self._settle()
            run = self._current()
            busy = self._shown is not None or self._slide is not None or self._covered()
            node = None if busy else layout_screen.build(self).hit(x, y)
            widget = None
            if run is not None and node is not None and node.ref and node.ref.startswith("widget:"):
                key = node.ref.partition(":")[2]
                widget = next((w for w in run.screen.widgets if w.key == key), None)
            alert = getattr(widget, kind) if widget is not None else None
            if run is None or alert is None or run.alert is not None or run.prompt is not None:
                return self.tap(x, y)
            with self._changing():
                run.show(alert)
                self.changes += 1
            return f"gesture:{kind}"

    def type_text(self, text: str) -> None:
        """Type into the focused field; with no focused field nothing happens (as on a phone)."""
        with self._lock:
            self._settle()
            run = self._current()
            if run is None or run.focused is None or run.prompt is not None or self._covered():
                return
            run.values[run.focused] = run.values.get(run.focused, "") + text
            self.changes += 1

    def hide_keyboard(self) -> bool:
        """Hide the on-screen keyboard (the field loses focus); True if it was shown."""
        with self._lock:
            self._settle()
            run = self._current()
            if run is None or run.focused is None:
                return False
            run.focused = None
            self.changes += 1
            return True

    def erase_text(self, count: int) -> None:
        """Delete up to ``count`` characters at the end of the focused field (the caret is there)."""
        with self._lock:
            self._settle()
            run = self._current()
            if run is None or run.focused is None or run.prompt is not None or self._covered():
                return
            value = run.values.get(run.focused, "")
            run.values[run.focused] = value[: max(0, len(value) - count)]
            self.changes += 1

    def set_location(self, latitude: float, longitude: float) -> None:
        """The position the device reports from now on."""
        with self._lock:
            self.location = (latitude, longitude)
            self.changes += 1

    def clear_text(self) -> None:
        with self._lock:
            self._settle()
            run = self._current()
            if run is not None and run.focused is not None:
                run.values[run.focused] = ""
                self.changes += 1

    def swipe(self, x1: float, y1: float, x2: float, y2: float) -> None:
        """A vertical swipe over a list scrolls it (swipe up = content moves up)."""
        with self._lock:
            self._settle()
            run = self._current()
            self.changes += 1
            if self._covered_swipe(y1, y2) or run is None or run.alert is not None:
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
        with self._lock, self._changing():
            self.changes += 1
            run = self._current()
            if self._covered_key(key):
                return
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
