"""Which app is in front of an Android phone, read from one ``dumpsys window`` command per release.

The command depends on the SDK level, read once when the driver connects (:func:`focus_command`):

- API 28 and older: ``dumpsys window windows``, whose tail names the focused window
  (``mCurrentFocus=Window{h u0 pkg/cls}``) and the focused app (``mFocusedApp=AppWindowToken{…
  ActivityRecord{h u0 pkg/.Act t14}}}``);
- API 29 and newer: ``dumpsys window displays``, one ``Display: mDisplayId=N`` block per display with
  that display's ``mCurrentFocus`` and ``mFocusedApp``: from Android 10 ``dumpsys window windows``
  no longer prints them (its tail has ``mTopFocusedDisplayId`` instead), which is where adbutils'
  ``app_current`` falls through to ``dumpsys activity top`` (appium-adb and sonic-agent switch at
  API 29 too);
- several displays with a focused app each (car head units, a virtual display): ``dumpsys window``,
  which holds the display blocks and ``mTopFocusedDisplayId``, the display whose focus counts
  (``dumpsys window displays`` does not print it);
- an unknown SDK level: ``dumpsys window`` as well, which holds the lines of every release.

:func:`parse_focus` reads any of these outputs (and ``grep`` excerpts of them) without assuming the
shape of one release: ``ActivityRecord{h u0 pkg/.Act t9}``, ``…/.Act} t9}`` (Android 13/14) and
``…/cls t323, isEmbedded=false}`` (Android 16) all give ``pkg``; display blocks come in any order;
``mCurrentFocus=null`` (between two windows) and a cover screen's SystemUI app (Galaxy Z Flip) do
not win over the app on the main display. A dump that timed out (``*** SERVICE 'window' DUMP
TIMEOUT (10000ms) EXPIRED ***``, ``Failure while dumping``) or a missing service raises
:class:`DumpFailed`; an output with no focus line at all raises it too, rather than answering.

What covers the app is read from the same output (:class:`FocusCover`): a focused window that is
SystemUI's lock screen or shade (``NotificationShade``, ``StatusBar``, ``Keyguard``) or a system
dialog (``Application Not Responding: pkg``, ``Application Error: pkg``), while ``mFocusedApp``
still names the app under it (so the app is not the answer on its own), and
:func:`keyguard_state`: whether the output says the keyguard is up or the screen off. From
Android 10 the display's ``DisplayPolicy`` block, printed inside ``dumpsys window displays``,
says it (``isKeyguardShowing=``, ``mDreamingLockscreen=``, ``mAwake=``: AOSP DisplayPolicy.dump
and a real Android 14 dump); before, only ``dumpsys window policy`` does (PhoneWindowManager's
``mShowingLockscreen=``, ``isStatusBarKeyguard=``). Real outputs for every case:
``tests/fixtures/real/android`` (the covers' are listed in ``tests/contract/cover_samples.py``).
Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Literal

from ...core.apps import ANDROID_SYSTEMUI, SYSTEMUI_COVER_WINDOWS, system_dialog_window

__all__ = [
    "DumpFailed",
    "FocusCover",
    "FocusReading",
    "Foreground",
    "dump_failure",
    "focus_command",
    "keyguard_state",
    "parse_focus",
    "parse_props",
]

_DISPLAY = re.compile(r"^\s*Display: mDisplayId=(\d+)")
_TOP_DISPLAY = re.compile(r"mTopFocusedDisplayId=(-?\d+)")
_CURRENT = re.compile(r"mCurrentFocus=(.*)$")
_FOCUSED_APP = re.compile(r"mFocusedApp=(.*)$")
# Window{43e887a8 u0 com.lookout.enterprise}; Window{a83a8a8 u0com.google…} (a copy without the
# space); Window{4057b4a0 pkg/cls paused=false} (before Android 4.2 printed user ids)
_WINDOW = re.compile(r"Window\{\S+ (?:u\d+ ?)?(?P<name>[^}]*)\}")
_RECORD = re.compile(r"ActivityRecord\{\S+ u\d+ (?P<pkg>[^\s/{}]+)/(?P<act>[^\s{},]+)\}?(?: t(?P<task>\d+))?")
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+")
_TIMEOUT = re.compile(r"\*\*\* SERVICE '([^']*)' DUMP TIMEOUT \((\d+)ms\) EXPIRED \*\*\*")
_FAILURES: tuple[tuple[str, str], ...] = (
    ("Failure while dumping", "timeout"),
    ("Can't find service", "unavailable"),
    ("Error dumping service info", "unavailable"),
)
_PROP_LINE = re.compile(r"^\s*\[([^\]]+)\]: \[(.*)\]\s*$")
# What says the keyguard is up (or not): DisplayPolicy (Android 10+) and PhoneWindowManager
# (before) print these (appium-adb's isShowingLockscreen reads the last two; projects that check
# for a locked phone read all four, e.g. find_string ids 55189949429, 61044341428).
_KEYGUARD_FLAG = re.compile(
    r"\b(?:isKeyguardShowing|isStatusBarKeyguard|mShowingLockscreen|mDreamingLockscreen)=(true|false)\b"
)
# A screen that is off is a locked phone to a test (appium-adb's isScreenStateOff and
# isScreenOnFully; DisplayPolicy's mAwake).
_ASLEEP = re.compile(r"\bmAwake=false|\bscreenState=SCREEN_STATE_OFF\b")
# KeyguardStateMonitor (Android 10+): appium-adb (PR #566) takes mIsShowing=true as locked only
# with mInputRestricted=true.
_MONITOR = re.compile(r"KeyguardStateMonitor\s+mIsShowing=(true|false)")
_RESTRICTED = re.compile(r"\bmInputRestricted=true\b")


class DumpFailed(Exception):
    """``dumpsys`` printed a failure (or nothing usable) instead of an answer.

    ``kind`` is ``timeout`` (the service did not dump in time), ``unavailable`` (no such service)
    or ``unreadable`` (no focus line at all); ``detail`` quotes the output's telling line.
    """

    def __init__(self, kind: Literal["timeout", "unavailable", "unreadable"], detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Foreground:
    """The app in front: its package, the activity when known, its task and display when known."""

    package: str
    activity: str | None = None
    task: int | None = None
    display: int | None = None


@dataclass(frozen=True)
class FocusCover:
    """A focused window over the app: SystemUI's lock screen or shade (``systemui``; its title does
    not say which), or a system dialog about ``process`` (``not_responding``, ``error``)."""

    kind: Literal["systemui", "not_responding", "error"]
    window: str
    process: str | None = None


@dataclass(frozen=True)
class FocusReading:
    """What one dump says: the app in front (None: nothing has focus) and whether it had to choose
    between several displays without ``mTopFocusedDisplayId`` (``ambiguous``, with the choices);
    the window over that app when it has the focus (``cover``; ``foreground`` is then the app
    under it), and :func:`keyguard_state` of the output."""

    foreground: Foreground | None
    ambiguous: tuple[Foreground, ...] = ()
    cover: FocusCover | None = None
    keyguard: bool | None = None


@dataclass
class _Block:
    display: int | None
    windows: list[Foreground | None] = field(default_factory=list)
    apps: list[Foreground | None] = field(default_factory=list)
    cover: FocusCover | None = None


def focus_command(sdk: int | None, *, several_displays: bool = False) -> list[str]:
    """The one shell command that names the app in front on a phone of this SDK level."""
    if sdk is None or several_displays:
        return ["dumpsys", "window"]
    if sdk >= 29:
        return ["dumpsys", "window", "displays"]
    return ["dumpsys", "window", "windows"]


def dump_failure(output: str) -> DumpFailed | None:
    """The failure a ``dumpsys`` output reports instead of its data, or None."""
    match = _TIMEOUT.search(output)
    if match is not None:
        return DumpFailed("timeout", match.group(0))
    for needle, kind in _FAILURES:
        at = output.find(needle)
        if at >= 0:
            line = output[output.rfind("\n", 0, at) + 1 :].split("\n", 1)[0].strip()
            return DumpFailed(kind, line[:200])  # type: ignore[arg-type]
    return None


class _Unreadable(Exception):
    """A focus line whose value is neither ``null`` nor a window or activity record."""


def _window(text: str) -> Foreground | None:
    text = text.strip()
    if text == "null":
        return None
    match = _WINDOW.search(text)
    if match is None:
        raise _Unreadable(text)
    names = match.group("name").split()
    package, _, activity = (names[0] if names else "").partition("/")
    if not _PACKAGE.fullmatch(package):
        return None  # a system window with a title, not an app (StatusBar, PopupWindow:…, Sys2023:dream)
    return Foreground(package, activity.strip() or None)


def _cover(text: str) -> FocusCover | None:
    """The cover a focus line's window is, or None (an app's window, ``null``, another title)."""
    match = _WINDOW.search(text)
    if match is None:
        return None
    title = match.group("name").strip()
    if title in SYSTEMUI_COVER_WINDOWS:
        return FocusCover("systemui", title)
    dialog = system_dialog_window(title)
    if dialog is not None:
        kind, process = dialog
        return FocusCover(kind, title, process or None)  # type: ignore[arg-type]
    return None


def keyguard_state(output: str) -> bool | None:
    """Whether a ``dumpsys window`` output says the keyguard is up or the screen is off (True),
    that it is not (False), or says nothing about it (None)."""
    if _ASLEEP.search(output):
        return True
    flags = {m.group(1) for m in _KEYGUARD_FLAG.finditer(output)}
    monitor = _MONITOR.search(output)
    if "true" in flags or (monitor is not None and monitor.group(1) == "true" and _RESTRICTED.search(output)):
        return True
    if flags or (monitor is not None and monitor.group(1) == "false"):
        return False
    return None


def _record(text: str) -> Foreground | None:
    if text.strip() == "null":
        return None
    match = _RECORD.search(text)
    if match is None:
        raise _Unreadable(text)
    package, activity = match.group("pkg"), match.group("act")
    if activity.startswith("."):
        activity = package + activity
    task = match.group("task")
    return Foreground(package, activity, int(task) if task else None)


def _blocks(lines: Iterable[str]) -> tuple[list[_Block], int | None, list[str]]:
    """The display blocks with their focus lines, ``mTopFocusedDisplayId``, the unreadable lines."""
    blocks = [_Block(None)]
    top: int | None = None
    unreadable: list[str] = []
    for line in lines:
        display = _DISPLAY.match(line)
        if display is not None:
            blocks.append(_Block(int(display.group(1))))
            continue
        if line.startswith("WINDOW MANAGER "):  # a new section of `dumpsys window`: global lines again
            blocks.append(_Block(None))
            continue
        top_match = _TOP_DISPLAY.search(line)
        if top_match is not None:
            top = int(top_match.group(1))
            continue
        current, focused = _CURRENT.search(line), _FOCUSED_APP.search(line)
        try:
            if current is not None:
                if not blocks[-1].windows:
                    blocks[-1].cover = _cover(current.group(1))
                blocks[-1].windows.append(_window(current.group(1)))
            elif focused is not None:
                blocks[-1].apps.append(_record(focused.group(1)))
        except _Unreadable:
            unreadable.append(line.strip())
    return [b for b in blocks if b.windows or b.apps], top, unreadable


def _block_focus(block: _Block, home: Collection[str]) -> tuple[Foreground | None, bool]:
    """The block's answer and whether a focused window backs it (False: only a focused app)."""
    windows = [w for w in block.windows if w is not None]
    apps = [a for a in block.apps if a is not None]
    for window in windows:
        app = next((a for a in apps if a.package == window.package), None)
        if app is not None:
            return Foreground(window.package, window.activity or app.activity, app.task, block.display), True
    if windows:
        window = windows[0]
        # A home screen keeping the input focus while another app holds the focused-app token
        # (a car head unit's side launcher, a launch under way): the app is where the user is.
        other = next((a for a in apps if a.package not in home and a.package != ANDROID_SYSTEMUI), None)
        if window.package in home and other is not None:
            return Foreground(other.package, other.activity, other.task, block.display), True
        return Foreground(window.package, window.activity, None, block.display), True
    app_only = [a for a in apps if a.package != ANDROID_SYSTEMUI]
    if app_only:
        app = app_only[-1]
        return Foreground(app.package, app.activity, app.task, block.display), False
    return None, False


def parse_focus(output: str, *, home: Collection[str] = ()) -> FocusReading:
    """The app in front according to a ``dumpsys window [windows|displays]`` output (or a grep of it).

    ``home`` holds the launcher packages, so a launcher that keeps the input focus beside another
    app's focused activity does not hide it. Raises :class:`DumpFailed` (see the module docstring).
    """
    failure = dump_failure(output)
    if failure is not None:
        raise failure
    blocks, top, unreadable = _blocks(output.splitlines())
    if not blocks:
        if unreadable:
            raise DumpFailed("unreadable", f"a focus line this harness cannot read: {unreadable[0][:160]}")
        shown = " ".join(output.split())[:160] or "nothing"
        raise DumpFailed("unreadable", f"no mCurrentFocus or mFocusedApp line in the output ({shown})")
    keyguard = keyguard_state(output)
    if top is not None:
        chosen = [b for b in blocks if b.display == top]
        if chosen:
            return FocusReading(_block_focus(chosen[0], home)[0], cover=chosen[0].cover, keyguard=keyguard)
    answers = [(b, *_block_focus(b, home)) for b in blocks]
    for backing in (True, False):
        group = [(b, fg) for b, fg, backed in answers if fg is not None and backed is backing]
        packages = {fg.package for _, fg in group}
        if len(packages) == 1:
            return FocusReading(group[0][1], cover=group[0][0].cover, keyguard=keyguard)
        if len(packages) > 1:
            by_display = [fg for _, fg in group if fg.display is not None]
            return FocusReading(None, tuple(by_display or [fg for _, fg in group]), keyguard=keyguard)
    cover = next((b.cover for b in blocks if b.cover is not None), None)
    return FocusReading(None, cover=cover, keyguard=keyguard)


def parse_props(output: str, keys: tuple[str, ...]) -> dict[str, str]:
    """Properties from ``getprop K1 && getprop K2 …`` (one value a line, in order) or from a whole
    ``getprop`` listing (``[key]: [value]`` lines). Missing or empty properties are left out."""
    lines = output.splitlines()
    listed = {m.group(1): m.group(2) for m in map(_PROP_LINE.match, lines) if m is not None}
    if listed:
        found = {k: listed[k] for k in keys if listed.get(k)}
        for key in keys:  # vendors repeat build properties per partition: ro.system.build.version.sdk
            if key not in found and key.startswith("ro.build."):
                tail = key[len("ro.") :]
                for name, value in sorted(listed.items()):
                    if name.startswith("ro.") and name.endswith("." + tail) and value:
                        found[key] = value
                        break
        return found
    return {k: v.strip() for k, v in zip(keys, lines, strict=False) if v.strip()}
