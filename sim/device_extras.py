"""More of the simulated phone's behaviour, mixed into :class:`~sim.device.SimDevice`: gestures that
take their time (a hold, a long press, a double tap), an app's process id and its activities, its
permissions reset, links, what a tapped widget does, and System UI's shade, toasts and the screen's
power. Every public method takes the device lock as the others do."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..core.errors import AppLaunchFailed
from ..core.models import Platform
from .catalog import DEMO_PASSWORD, DEMO_USER, SIGNING_IN, AppSpec
from .timing import Timing
from .users import SimUser

if TYPE_CHECKING:
    from .app_run import AppRun
    from .nodes import SimNode

__all__ = ["LONG_PRESS", "DeviceExtras"]

# UILongPressGestureRecognizer's and SwiftUI onLongPressGesture's default minimumPressDuration (s).
LONG_PRESS = 0.5


class DeviceExtras:
    """The part of :class:`~sim.device.SimDevice` this module holds (see the module docstring)."""

    _lock: threading.RLock
    _data: dict[str, dict[str, str]]
    apps: dict[str, AppSpec]
    device_id: str
    platform: Platform
    _pids: dict[str, int]
    _asked: set[str]
    _running: dict[str, AppRun]
    _shown: tuple[float, SimNode, str | None, str | None] | None
    _toast: tuple[str, float] | None
    _foreground: str | None
    _clock: Callable[[], float]
    _random: random.Random
    timing: Timing
    screen_on: bool
    changes: int
    users: tuple[SimUser, ...]

    if TYPE_CHECKING:  # provided by SimDevice

        def _changing(self, *, freeze: bool = True) -> AbstractContextManager[None]: ...
        def _current(self) -> AppRun | None: ...
        def _gesture(self, x: float, y: float, kind: str) -> str | None: ...
        def launch(self, app_id: str) -> None: ...
        def _later(self, delay: float, event: Callable[[], None]) -> None: ...
        def tap(self, x: float, y: float) -> str | None: ...
        def _home_chosen(self, always: bool) -> None: ...

    def add_user(self, user: SimUser) -> None:
        """Give the phone another user (a work profile, an MDM-managed profile, a second user:
        :mod:`sim.users`)."""
        with self._lock:
            self.users = (*self.users, user)

    def hold(self, seconds: float, *, limit: float = 60.0) -> None:
        """Let a gesture take its time: ``seconds`` (at most ``limit``) on a device whose timing
        plays gestures, nothing on an instant one. Called without the device lock."""
        if self.timing.gestures and seconds > 0:
            time.sleep(min(seconds, limit))

    def pid_of(self, app_id: str) -> int | None:
        """The process id of a running app (None when it does not run)."""
        with self._lock:
            return self._pids.get(app_id)

    def start_activity(self, app_id: str, activity: str) -> None:
        """Start ``app_id`` on the screen its ``activity`` (``.Name`` or the full class) shows."""
        full = app_id + activity if activity.startswith(".") else activity
        with self._lock, self._changing():
            self.launch(app_id)
            run = self._running[app_id]
            screen = next((n for n, sc in run.spec.screens.items() if sc.activity == full), None)
            if screen is not None and run.stack[-1] != screen:
                run.stack[:] = [run.spec.start] if screen == run.spec.start else [run.spec.start, screen]
                run.focused, run.alert = None, None
                self.changes += 1

    def reset_permissions(self, app_id: str) -> None:
        """Forget what the user answered ``app_id``'s permission prompts: it asks again next launch."""
        with self._lock:
            self._asked.discard(app_id)

    def long_press(self, x: float, y: float, seconds: float = 1.0) -> str | None:
        """Touch and hold at a point for ``seconds``: from :data:`LONG_PRESS` on, a widget with a
        long-press action shows its alert; anything else takes it as a tap (a button fires when the
        finger lifts). Returns what was hit."""
        if seconds < LONG_PRESS:
            return self.tap(x, y)
        return self._gesture(x, y, "on_long_press")

    def double_tap(self, x: float, y: float) -> str | None:
        """Two taps in quick succession: a widget with a double-tap action shows its alert; anything
        else gets two taps. Returns what the second hit."""
        self.tap(x, y)
        return self.second_tap(x, y)

    def second_tap(self, x: float, y: float) -> str | None:
        """The second tap of a double tap (the first was a tap)."""
        return self._gesture(x, y, "on_double_tap")

    # --- system UI: the shade, toasts, the screen's power ----------------------------------

    def set_screen(self, on: bool) -> None:
        with self._lock:
            self.screen_on = on
            self.changes += 1

    def show_toast(self, text: str) -> None:
        with self._lock:
            self._toast = (text, self._clock())

    def last_toast(self, within: float) -> str | None:
        """The last toast's text if it was shown less than ``within`` seconds ago."""
        with self._lock:
            if self._toast is None or self._clock() - self._toast[1] > within:
                return None
            return self._toast[0]

    def clear_toast(self) -> None:
        with self._lock:
            self._toast = None

    def open_link(self, url: str, app_id: str | None = None) -> str:
        """Open ``url`` in the app that handles its scheme (``app_id`` when given); returns that app.
        ``scheme://SCREEN`` opens the app on that screen (a signed-in user asking for the start screen
        gets the signed-in one, as apps redirect). ``AppLaunchFailed`` when no app opens it."""
        with self._lock:
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            handlers = [a for a, spec in self.apps.items() if scheme in spec.schemes]
            if app_id is not None:
                handlers = [a for a in handlers if a == app_id]
            if not handlers:
                raise AppLaunchFailed(
                    f"no app on {self.device_id} opens {url}"
                    + (f" (not {app_id})" if app_id is not None else ""),
                    app_id=app_id,
                    hint="the simulated apps open amcdemo://login (the demo app)"
                    + ("; Safari opens http(s) links" if self.platform == "ios" else ""),
                )
            target = handlers[0]
            with self._changing():
                self.launch(target)
                run = self._running[target]
                screen = parts.netloc or parts.path.strip("/")
                if screen == run.spec.start and run.user is not None and run.spec.signed_in_screen:
                    screen = run.spec.signed_in_screen  # a signed-in user is not shown the sign-in page
                if screen in run.spec.screens and screen != SIGNING_IN and run.stack[-1] != screen:
                    run.stack[:] = [run.spec.start] if screen == run.spec.start else [run.spec.start, screen]
                    run.focused, run.alert = None, None
            return target

    def _signed_in(self, run: AppRun, user: str, password: str) -> None:
        """The end of a sign-in: the welcome screen, or the failure alert."""
        if run.stack[-1] == SIGNING_IN:
            run.stack.pop()
        if user == DEMO_USER and password == DEMO_PASSWORD:
            run.user = user
            run.values.clear()
            run.stack.append("welcome")
            if run.spec.signed_in_screen is not None:
                self._data.setdefault(run.spec.app_id, {})["user"] = user
        else:
            run.alert = ("Sign-in failed", "Invalid username or password.")
        self.changes += 1

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
            if self.timing.sign_in > 0:
                run.stack.append(SIGNING_IN)
            self._later(self.timing.sign_in, lambda: self._signed_in(run, user, password))
        elif widget.action == "alert" and widget.alert is not None:
            run.show(widget.alert)
        elif widget.action == "toast" and widget.toast is not None:
            self._toast = (widget.toast, self._clock())
        elif widget.action == "clear" and widget.target is not None:
            run.values[widget.target] = ""
        elif widget.action == "sum" and widget.target is not None:
            numbers = [run.values.get(key, "").strip() for key in widget.sums]
            total = sum(int(n) for n in numbers if n.lstrip("-").isdigit())
            run.values[widget.target] = str(total)
        elif widget.action == "copy" and widget.target is not None and widget.sums:
            run.values[widget.target] = run.values.get(widget.sums[0], "")
        elif widget.action == "increment" and widget.target is not None:
            shown = next((w.text for w in run.screen.widgets if w.key == widget.target), "")
            current = run.values.get(widget.target, shown).strip()
            run.values[widget.target] = str((int(current) if current.lstrip("-").isdigit() else 0) + 1)
        elif widget.action == "logout":
            run.user = None
            self._data.pop(run.spec.app_id, None)
            run.stack[:] = [run.spec.start]
        if widget.goto is not None:
            if widget.goto in run.stack:
                del run.stack[run.stack.index(widget.goto) + 1 :]
            else:
                run.stack.append(widget.goto)

    def _answered(self, run: AppRun, *, allowed: bool) -> None:
        """The user answered the permission prompt over ``run``'s app: the device keeps the answer."""
        run.prompt = None
        answer = getattr(self, "answer_prompt", None)
        if callable(answer):
            answer(run.spec.app_id, allowed)

    def _back(self, run: AppRun | None) -> None:
        if run is None:
            return
        if run.prompt is not None:
            self._answered(run, allowed=False)  # back on Android's permission prompt denies it
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
        if kind == "homechooser":
            self._home_chosen(arg == "always")
        elif kind == "icon":
            self.launch(arg)
        elif kind == "back" and run is not None:
            run.focused = None
            if len(run.stack) > 1:
                run.stack.pop()
        elif kind == "alert" and run is not None:
            run.alert, run.alert_buttons = None, ("OK",)
        elif kind == "prompt" and run is not None:
            self._answered(run, allowed=arg == "allow")  # the apps behave the same either way
        elif kind == "keyboard":
            if arg == "return" and run is not None:
                run.focused = None
            elif run is not None and run.focused is not None:
                run.values[run.focused] = run.values.get(run.focused, "") + arg
        elif kind == "widget" and run is not None:
            self._widget(run, arg)
