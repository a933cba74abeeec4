"""Apps on an Android phone through ``adb shell``: what release it runs, which app is in front, and
launching one, each at a known number of shell commands.

:class:`AndroidApps` holds what the driver learns once per connection (the SDK level, the home
packages) and turns shell output into answers or typed errors; it runs commands through the
``shell`` callable it is given (the driver's, with its timeout and error table), so it does no I/O
of its own and is tested against real outputs replayed by the adb face.

============================  ====================================================================
call                          shell commands
============================  ====================================================================
:meth:`AndroidApps.learn`     ``getprop ro.build.version.sdk && getprop ro.build.version.release``
                              and the HOME query (``cmd package resolve-activity --brief -c HOME``)
:meth:`AndroidApps.foreground`  one ``dumpsys window …`` (:func:`drivers.u2.focus.focus_command`);
                              a second, ``dumpsys window``, only the first time several displays
                              each have a focused app (then that one stays the command)
:meth:`AndroidApps.launch`    ``am start -W -a …MAIN -c …LAUNCHER -p PKG``, which returns once the
                              activity is displayed, then the foreground (once; again every
                              ``launch_poll`` until PKG is in front); when no activity answers the
                              intent: ``pm path PKG`` (none: ``AppNotInstalled``) and ``am start``
                              again with ``LEANBACK_LAUNCHER`` (Android TV apps declare only that)
============================  ====================================================================

Why ``am start -W`` and not the ``monkey -p PKG -c …LAUNCHER 1`` that uiautomator2's ``app_start``
sends: monkey answers once it has injected the launch, before the app's window has the focus, so
the check after it would often still see the launcher and have to ask again; ``am start -W`` is
Android's own wait for the launched activity, so the one check after it sees the app. Both start
the same activity (the package's in that category) and bring a running app's task back.

A runtime-permission prompt in front right after a launch (Android's permission controller,
:data:`core.apps.PERMISSION_DIALOG_PACKAGES`) means the app started and asked for a permission: the
prompt is an activity the system starts in the asking app's task. The launch has succeeded and the
prompt's task is remembered, so :meth:`AndroidApps.current_app` keeps naming the app under it.

The lock screen, the pulled-down shade or a system dialog over the app take the focus while
``mFocusedApp`` still names the app (:class:`drivers.u2.focus.FocusCover`). ``current_app`` names no
app behind the lock screen (nor behind SystemUI's window when the dump cannot tell the lock screen
from the shade: Android 9 and older, whose focus command prints no keyguard state); a launch that
ends behind the lock screen fails at once as ``DeviceOffline`` (:mod:`drivers.covers`); the shade
and another process's system dialog over the launched app are its screen's state, as elsewhere
(the next observation names them); the crash or ANR dialog of the launched app itself
(``Application Error: PKG``, ``Application Not Responding: PKG`` focused) fails the launch as
``AppLaunchFailed`` quoting the dialog's title, read from the screen (one ``dumpWindowHierarchy``
on that path only: :func:`drivers.covers.dialog_launch_failed`). Only when SystemUI's window has
the focus and the dump does not say whether the keyguard is up is one more command sent,
``dumpsys window policy``.
"""

from __future__ import annotations

import logging
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...core.apps import ANDROID_SYSTEM_SERVER, HOME_SCREEN_APPS, is_permission_dialog
from ...core.errors import AppLaunchFailed, AppNotInstalled, DeviceError, DeviceTimeout, HarnessError
from ..am_start import LAUNCHER, LEANBACK, read_start, start_command
from ..covers import dialog_is_about, dialog_launch_failed, locked
from .focus import (
    DumpFailed,
    FocusReading,
    Foreground,
    focus_command,
    keyguard_state,
    parse_focus,
    parse_props,
)

__all__ = ["AndroidApps", "DeviceFacts"]

log = logging.getLogger(__name__)

PROPS: tuple[str, ...] = ("ro.build.version.sdk", "ro.build.version.release")
_RELEASE_SDK = {"10": 29, "11": 30, "12": 31, "13": 33, "14": 34, "15": 35, "16": 36}
_HOME_QUERY = [
    "cmd",
    "package",
    "resolve-activity",
    "--brief",
    "-c",
    "android.intent.category.HOME",
    "-a",
    "android.intent.action.MAIN",
]

Shell = Callable[[str, "list[str] | str"], str]
# ``pm list users``'s lines: ``UserInfo{10:Work profile:30} running`` (kaeawc/auto-mobile#35,
# ibilux/MobyDroid#18; sim/users.py cites them).
_USER_LINE = re.compile(r"UserInfo\{(\d+):([^:}]*):[0-9a-fA-F]+\}")


def other_users(output: str) -> list[tuple[int, str]]:
    """The users beside the owner (user 0) that ``pm list users`` lists: (id, name)."""
    found = ((int(m.group(1)), m.group(2).strip()) for m in _USER_LINE.finditer(output))
    return [(uid, name) for uid, name in found if uid != 0]


@dataclass(frozen=True)
class DeviceFacts:
    """What the phone said about itself when the driver connected."""

    sdk: int | None
    release: str | None
    home: frozenset[str]


def _sdk_of(props: dict[str, str]) -> int | None:
    raw = props.get("ro.build.version.sdk", "")
    if raw.isdigit():
        return int(raw)
    release = props.get("ro.build.version.release", "").split(".")[0]
    return _RELEASE_SDK.get(release) if release.isdigit() else None


def _home_of(output: str) -> frozenset[str]:
    found = {
        line.strip().split("/", 1)[0]
        for line in output.splitlines()
        if "/" in line and "=" not in line and " " not in line.strip()
    }
    return frozenset(found) | HOME_SCREEN_APPS


class AndroidApps:
    """Foreground and launches for one phone, through ``shell(operation, command) -> output``."""

    def __init__(
        self,
        serial: str,
        shell: Shell,
        *,
        launch_timeout: float,
        launch_poll: float,
        dialog_title: Callable[[], str | None] | None = None,
    ) -> None:
        self.serial = serial
        self._shell = shell
        self._dialog_title = dialog_title  # the system dialog's title, read from the screen
        self.launch_timeout = launch_timeout
        self.launch_poll = launch_poll
        self.facts: DeviceFacts | None = None
        self._several_displays = False
        self._prompt_tasks: dict[int, str] = {}  # task of a permission prompt -> the app that asked
        self._category: dict[str, str] = {}  # package -> the launcher category that starts it

    # --- what the phone is --------------------------------------------------------------------

    def learn(self) -> DeviceFacts:
        """Ask the SDK level and the home packages (two shell commands, once per connection)."""
        props = parse_props(self._shell("connect", " && ".join(f"getprop {key}" for key in PROPS)), PROPS)
        home = _home_of(self._shell("connect", _HOME_QUERY))
        sdk = _sdk_of(props)
        if sdk is None:
            log.warning(
                "%s did not tell its SDK level (getprop printed %r); reading the foreground with "
                "`dumpsys window`, which holds the lines of every release",
                self.serial,
                props,
            )
        self.facts = DeviceFacts(sdk, props.get("ro.build.version.release"), home)
        return self.facts

    @property
    def home(self) -> frozenset[str]:
        return self.facts.home if self.facts is not None else HOME_SCREEN_APPS

    @property
    def command(self) -> list[str]:
        """The shell command that names the app in front on this phone."""
        sdk = self.facts.sdk if self.facts is not None else None
        return focus_command(sdk, several_displays=self._several_displays)

    # --- the foreground ---------------------------------------------------------------------

    def _read(self, operation: str, command: list[str]) -> FocusReading:
        output = self._shell(operation, command)
        try:
            return parse_focus(output, home=self.home)
        except DumpFailed as exc:
            shown = " ".join(command)
            if exc.kind == "timeout":
                raise DeviceTimeout(
                    f"{operation} on {self.serial}: `{shown}` timed out on the phone ({exc.detail})",
                    hint="the phone is busy (a heavy app, low memory); the call may work again shortly",
                ) from exc
            raise DeviceError(
                f"{operation} on {self.serial}: `{shown}` did not say which app is in front ({exc.detail})",
                hint="the window service may be unavailable on this build (a watch, a restricted shell)",
            ) from exc

    def foreground(self, operation: str = "current_app") -> Foreground | None:
        """The app in front as the window manager reports it (None: nothing has focus)."""
        return self.reading(operation).foreground

    def reading(self, operation: str = "current_app") -> FocusReading:
        """What the window manager says has the focus, and what covers the app (see the module)."""
        reading = self._read(operation, self.command)
        if reading.ambiguous and not self._several_displays:
            shown = ", ".join(f"{fg.package} (display {fg.display})" for fg in reading.ambiguous)
            log.info(
                "%s: several displays have a focused app (%s); asking `dumpsys window`", self.serial, shown
            )
            self._several_displays = True
            reading = self._read(operation, self.command)
        if reading.ambiguous:
            shown = ", ".join(f"{fg.package} (display {fg.display})" for fg in reading.ambiguous)
            raise DeviceError(
                f"{operation} on {self.serial}: several displays have a focused app and the phone does "
                f"not say which one is on top: {shown}",
                hint="drive the phone's main display, or name the app you expect with assert_app",
            )
        return reading

    def current_app(self) -> str | None:
        """The package in front; the app under a permission prompt it asked for; None on the home
        screen and behind the lock screen (see the module)."""
        reading = self.reading()
        found = reading.foreground
        cover = reading.cover
        if found is None or (
            cover is not None and cover.kind == "systemui" and reading.keyguard is not False
        ):
            return None
        package = found.package
        if is_permission_dialog(package):
            # the app in that prompt's task (a dump without the task: the one last launched behind one)
            package = self._prompt_tasks.get(found.task if found.task is not None else -1, package)
        return None if package in self.home or package == ANDROID_SYSTEM_SERVER else package

    # --- launching ----------------------------------------------------------------------------

    def _start(self, package: str, category: str, extras: tuple[str, ...] = ()) -> bool:
        """True when ``am start -W`` started (or brought back) ``package``'s activity in
        ``category``; False when no activity answers that intent. am waits until the activity is
        displayed (``Status: ok``) or gives up waiting while it still starts (``Status: timeout``,
        a slow cold start: it started); an answer that never came within the shell timeout leaves
        the foreground to decide."""
        command = start_command(package, category, extras)
        try:
            # with extras one string, each word quoted for the phone's shell (a key or value runs
            # nothing there); adbutils quotes a list's words the same way (shlex.quote)
            output = self._shell("launch_app", shlex.join(command) if extras else command)
        except DeviceTimeout as exc:
            log.info("launch_app on %s: `am start -W` did not answer in time (%s)", self.serial, exc)
            return True
        outcome = read_start(output)
        if outcome is None:
            raise DeviceError(
                f"launch_app on {self.serial}: am did not say whether it started {package}: "
                f"{' '.join(output.split())[:200] or 'no output'}",
                hint=f"run `adb shell {shlex.join(command)[:300]}` to see why",
            )
        if outcome.kind == "refused":
            raise AppLaunchFailed(
                f"the phone refused to start {package} on {self.serial}: {outcome.detail}",
                app_id=package,
                hint=f"run `adb shell {shlex.join(command)[:300]}` to see why",
            )
        if outcome.detail == "timeout":
            log.info("%s: %s started, but was not idle within am's wait", self.serial, package)
        return outcome.kind == "started"

    def launch(self, package: str, extras: tuple[str, ...] = ()) -> None:
        """Start ``package`` and wait until it (or a permission prompt it asked for) is in front;
        ``extras``: am's words for the launch intent's extras (sent once, with the first start)."""
        first = self._category.get(package, LAUNCHER)
        if not self._start(package, first, extras):
            installed = "package:" in self._shell("launch_app", ["pm", "path", package])
            if not installed:
                raise self._not_installed(package)
            other = LEANBACK if first == LAUNCHER else LAUNCHER
            if not self._start(package, other, extras):
                raise AppLaunchFailed(
                    f"{package} is installed on {self.serial} but declares no launcher activity "
                    "(neither LAUNCHER nor LEANBACK_LAUNCHER)",
                    app_id=package,
                    hint="start one of its activities explicitly (am start -n PKG/ACTIVITY)",
                )
            self._category[package] = other
        self._wait_in_front(package)

    def _not_installed(self, package: str) -> AppNotInstalled:
        """``package`` is no package of the owner (user 0, whom ``pm`` and ``am`` act for without
        ``--user``); on a phone with other users (``pm list users``: one more command, on this path
        only) the error says so: an app of a work profile or a second user is not the owner's."""
        try:
            users = other_users(self._shell("launch_app", ["pm", "list", "users"]))
        except HarnessError as exc:
            log.info("%s: `pm list users` failed: %s", self.serial, exc)
            users = []
        if not users:
            return AppNotInstalled(
                f"{package} is not installed on {self.serial}",
                app_id=package,
                hint="list the installed packages with `adb shell pm list packages`",
            )
        shown = ", ".join(f"{uid} ({name})" for uid, name in users)
        return AppNotInstalled(
            f"{package} is not installed on {self.serial} for its owner (user 0, whom adb's `am start` and "
            f"`pm path` act for); the phone has other users: {shown}, and an app installed only in a "
            "work profile or for a second user is not the owner's",
            app_id=package,
            hint=f"install it for user 0 (`adb install --user 0 APK`), or see whose it is with "
            f"`adb shell pm list packages --user {users[0][0]} {package}`",
        )

    def _wait_in_front(self, package: str) -> None:
        deadline = time.monotonic() + self.launch_timeout
        checks = 0
        while True:
            checks += 1
            reading = self.reading("launch_app")
            blocked = self._blocked(package, reading)
            if blocked is not None:
                raise blocked
            found = reading.foreground
            if found is not None and found.package == package:
                return
            if found is not None and is_permission_dialog(found.package):
                self._prompt_tasks[found.task if found.task is not None else -1] = package
                log.info(
                    "%s started on %s behind a permission prompt (%s)", package, self.serial, found.package
                )
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                front = found.package if found is not None else "nothing"
                raise AppLaunchFailed(
                    f"{package} did not reach the foreground on {self.serial} within "
                    f"{self.launch_timeout:g} s ({checks} checks; in front: {front})",
                    app_id=package,
                    hint="the app may crash on start, or show its UI slowly: raise 'launch_timeout'",
                )
            time.sleep(min(self.launch_poll, remaining))

    def _blocked(self, package: str, reading: FocusReading) -> HarnessError | None:
        """The error for a launch that ended behind SystemUI's lock screen (one ``dumpsys window
        policy`` when the dump did not say whether the keyguard is up), else None."""
        cover = reading.cover
        if cover is not None and cover.kind in ("not_responding", "error"):
            if not dialog_is_about(cover.process, package):
                return None  # another process's dialog over the app: the app is in front under it
            title = self._dialog_title() if self._dialog_title is not None else None
            kind = "anr" if cover.kind == "not_responding" else "crash"
            return dialog_launch_failed(self.serial, package, kind, title or cover.window)
        if cover is None or cover.kind != "systemui":
            return None
        keyguard = reading.keyguard
        if keyguard is None:
            keyguard = keyguard_state(self._shell("launch_app", ["dumpsys", "window", "policy"]))
        if keyguard is True:
            return locked(self.serial, what="the phone is locked (the lock screen is up)", app_id=package)
        if keyguard is False:
            return None  # the shade is down over the app
        return AppLaunchFailed(
            f"{package} did not come to the front of {self.serial}: SystemUI's {cover.window} window "
            "has the focus (the lock screen or the pulled-down shade; the phone does not say which)",
            app_id=package,
            hint="unlock the phone, or close the shade, and launch again",
        )
