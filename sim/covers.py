"""What the simulated phone's system shows over its apps: the lock screen, the pulled-down
notification shade (iOS: Notification Center, Control Center) and a system dialog.

:class:`SystemScreen` holds that state; :class:`CoverControls` is the part of
:class:`~sim.device.SimDevice` that changes it and that decides what a touch, a key or a swipe
does while something covers the apps. How each is drawn is :mod:`sim.layout_covers`; what the
faces report about it (``dumpsys window``'s focus, ``/wda/locked``, the active app) is theirs.

Behaviour, each from a real source or marked as chosen here:

- Locked (Android): a launch starts the app behind the lock screen, which stays (the window
  manager keeps the keyguard's window focused, ``mFocusedApp`` names the app: real focus lines in
  ``tests/fixtures/real/android``); a swipe up unlocks (a phone with no PIN; appium-adb's
  ``dismissKeyguard`` swipes up from 4/5 to 1/5 of the height), so does the menu key (keycode 82,
  which dismissed an insecure keyguard) and ``wm dismiss-keyguard``; the power key locks.
- Locked (iOS): a launch is refused by FrontBoard with the reason ``Locked`` (devicectl's and
  XCTest's NSError, ``tests/fixtures/real/ios/devicectl-launch-locked-*``); the app in front keeps
  running in the background (state 3: WebDriverAgent "detects application as not running" while
  locked, appium/WebDriverAgent PR #32); Home or a swipe up unlocks (WDA's ``fb_unlockScreen``
  presses Home).
- The shade (Android): a launch leaves it down, the app starting behind it (home-assistant/android
  #2748: "the app launches behind the notification shade"); back, home or a swipe up closes it.
  iOS's panels close when an app is launched (chosen here: not collected), and on Home or a swipe up.
- A system dialog stays over every app until it is answered: "Wait" or back dismisses it, "Close
  app" also stops the app it names; Home leaves it up (chosen here: not collected).

- An app that crashes as it starts (:meth:`CoverControls.fail_launches`, ``keeps_stopping``): its
  process dies and the crash dialog names it (Android 9+'s "X keeps stopping"), the home screen
  under it; one that hangs (``not_responding``) stays in front, under "X isn't responding". The
  window manager focuses the dialog (``Application Error: PKG`` / ``Application Not Responding:
  PKG``, real focus lines in ``tests/fixtures/real/android/emulator-dumpsys-window-*-anr-*``); how
  soon the dialog follows a crash is chosen here (at once: a phone shows it within a second or so).

Locking closes the shade; nothing is typed while anything covers the apps.
"""

from __future__ import annotations

import dataclasses
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..core.errors import AppLaunchFailed, StepArgumentError
from .prompts import Prompt, android_prompt_of, check_prompt

if TYPE_CHECKING:
    from .catalog import AppSpec
    from .device import AppRun

__all__ = [
    "DIALOG_KINDS",
    "SHADE_PANELS",
    "CoverControls",
    "SystemDialog",
    "SystemScreen",
    "frontboard_locked",
]

DialogKind = Literal["not_responding", "keeps_stopping"]
DIALOG_KINDS: tuple[str, ...] = ("not_responding", "keeps_stopping")
ShadePanel = Literal["notifications", "controls"]
SHADE_PANELS: tuple[str, ...] = ("notifications", "controls")
# The label Android's dialogs give SystemUI ("System UI isn't responding", a real dump).
_SYSTEMUI, _SYSTEMUI_LABEL = "com.android.systemui", "System UI"


@dataclass(frozen=True)
class SystemDialog:
    """An Android system dialog about ``app_id`` (its process), naming it ``label``."""

    kind: DialogKind
    app_id: str
    label: str


@dataclass
class SystemScreen:
    """What covers the apps now (mutable; the device's lock guards it)."""

    locked: bool = False
    shade: ShadePanel | None = None
    dialog: SystemDialog | None = None
    home_unset: bool = False  # no default home app: Home asks which (Android)
    home_asking: bool = False  # the home chooser is up

    def top(self) -> str | None:
        """The cover on top, as :data:`amc.core.apps.COVER_KINDS` names it, or None."""
        if self.dialog is not None:
            return "anr" if self.dialog.kind == "not_responding" else "crash"
        if self.locked:
            return "keyguard"
        return "shade" if self.shade is not None else None


def dialog_title(dialog: SystemDialog) -> str:
    """What the dialog's title says (AOSP's strings: "%s isn't responding", "%s keeps stopping")."""
    verb = "isn't responding" if dialog.kind == "not_responding" else "keeps stopping"
    return f"{dialog.label} {verb}"


def frontboard_locked(app_id: str) -> str:
    """FrontBoard's refusal to open ``app_id`` on a locked phone, as XCTest's NSError prints it:
    laid out as WebDriverAgent 5.1.4+ relays a launch error (``tests/fixtures/real/ios/wda-5.1.4-…``),
    with the reason and codes of the real refusals (``devicectl-launch-locked-*``: service error 1,
    RequestDenied; underlying FBSOpenApplicationErrorDomain 7, Locked)."""
    why = f"Unable to launch {app_id} because the device was not, or could not be, unlocked"
    return (
        f'Error Domain=FBSOpenApplicationServiceErrorDomain Code=1 "The request to open "{app_id}" '
        f'failed." UserInfo={{BSErrorCodeDescription=RequestDenied, NSLocalizedFailureReason=The '
        f'request was denied by service delegate (SBMainWorkspace) for reason: Locked ("{why}")., '
        f"NSUnderlyingError=0x280c2d1a0 {{Error Domain=FBSOpenApplicationErrorDomain Code=7 "
        f'"{why}." UserInfo={{BSErrorCodeDescription=Locked, NSLocalizedFailureReason={why}.}}}}}}'
    )


class CoverControls:
    """The covers' part of ``SimDevice`` (a mixin: it uses the device's lock and state)."""

    # Apps whose next launches crash or hang (kind, launches left; None: every launch).
    _failing: dict[str, tuple[DialogKind, int | None]]

    # Provided by SimDevice.
    platform: str
    profile: object
    apps: dict[str, AppSpec]
    changes: int
    system: SystemScreen
    _lock: threading.RLock
    _foreground: str | None

    if TYPE_CHECKING:

        def _changing(self, *, freeze: bool = True) -> AbstractContextManager[None]: ...

        def _current(self) -> AppRun | None: ...

        def terminate(self, app_id: str) -> bool: ...

    # --- operations -------------------------------------------------------------------------

    def _set(self, **state: object) -> None:
        """Change the cover state (``SystemScreen``'s fields) as one change of the screen."""
        with self._lock, self._changing():
            self.system = dataclasses.replace(self.system, **state)  # type: ignore[arg-type]
            run = self._current()
            if run is not None and self.system.top() is not None:
                run.focused = None  # a field loses its focus (and keyboard) under a cover
            self.changes += 1

    def lock(self) -> None:
        """Lock the phone (the power key): the lock screen covers everything, the shade closes."""
        self._set(locked=True, shade=None)

    def unlock(self) -> None:
        """Unlock (a phone with no PIN or passcode): what was in front shows again."""
        self._set(locked=False)

    @property
    def locked(self) -> bool:
        with self._lock:
            return self.system.locked

    def pull_shade(self, panel: str = "notifications") -> None:
        """Pull the shade down (Android: notifications or quick settings; iOS: Notification Center
        or Control Center). A locked phone shows its lock screen instead."""
        if panel not in SHADE_PANELS:
            raise StepArgumentError(f"panel must be one of {', '.join(SHADE_PANELS)}, got {panel!r}")
        with self._lock:
            if not self.system.locked:
                self._set(shade=panel)

    def close_shade(self) -> None:
        self._set(shade=None)

    def show_system_dialog(self, kind: str = "not_responding", app_id: str | None = None) -> None:
        """Show Android's "X isn't responding" (``not_responding``) or "X keeps stopping"
        (``keeps_stopping``) dialog about ``app_id`` (default: the app in front, else SystemUI)."""
        if self.platform != "android":
            raise StepArgumentError("system dialogs (ANR, crash) are Android's; iOS shows none")
        if kind not in DIALOG_KINDS:
            raise StepArgumentError(f"kind must be one of {', '.join(DIALOG_KINDS)}, got {kind!r}")
        with self._lock:
            target = app_id or self._foreground or _SYSTEMUI
            spec = self.apps.get(target)
            label = spec.name if spec is not None else _SYSTEMUI_LABEL if target == _SYSTEMUI else target
            self._set(dialog=SystemDialog(kind, target, label))  # type: ignore[arg-type]

    def fail_launches(self, app_id: str, kind: str = "keeps_stopping", times: int | None = 1) -> None:
        """Make ``app_id``'s next ``times`` launches (None: all) crash (``keeps_stopping``) or hang
        (``not_responding``), the system's dialog over the screen as a phone shows it."""
        if self.platform != "android":
            raise StepArgumentError("crash and ANR dialogs are Android's; an iOS app that crashes just quits")
        if kind not in DIALOG_KINDS:
            raise StepArgumentError(f"kind must be one of {', '.join(DIALOG_KINDS)}, got {kind!r}")
        if times is not None and (isinstance(times, bool) or not isinstance(times, int) or times < 1):
            raise StepArgumentError(f"times must be a positive number of launches or None, got {times!r}")
        with self._lock:
            self._failing[app_id] = (kind, times)  # type: ignore[assignment]

    def _covered_after_launch(self, app_id: str) -> None:
        """After a launch: an app set to fail shows its dialog (a crash also ends its process)."""
        failing = self._failing.get(app_id)
        if failing is None:
            return
        kind, left = failing
        if left is not None:
            if left <= 1:
                del self._failing[app_id]
            else:
                self._failing[app_id] = (kind, left - 1)
        spec = self.apps.get(app_id)
        dialog = SystemDialog(kind, app_id, spec.name if spec is not None else app_id)
        if kind == "keeps_stopping":
            self.terminate(app_id)
        self.system.dialog = dialog
        run = self._current()
        if run is not None:
            run.focused = None

    def unset_home(self) -> None:
        """Android with two home apps and no default (a second launcher installed, the default
        cleared): Home brings up the system's chooser, "Select a Home app" with "Just once" and
        "Always" (a real Android 6 dump: tests/fixtures/real/android/android6-launcher-chooser-*),
        the launcher only once one is chosen."""
        if self.platform != "android":
            raise StepArgumentError("the home app chooser is Android's")
        self._set(home_unset=True, home_asking=self._foreground is None)

    def _home_chosen(self, always: bool) -> None:
        """A home app was chosen in the chooser (``always``: it is the default from now on)."""
        self.system.home_asking = False
        if always:
            self.system.home_unset = False

    def ask(self, kind: str = "notifications") -> None:
        """The app in front asks for something the system prompts for (``sim.prompts``: Android's
        ``notifications`` permission, ``battery``, ``chooser``, ``autostart``; iOS's
        ``notifications``, ``location``, ``paste``, ``tracking``): the prompt shows over it."""
        check_prompt(self.platform, self._oem(), kind)
        with self._lock, self._changing():
            run = self._current()
            if run is None:
                raise StepArgumentError("no app is in front to ask (launch one first)")
            run.prompt = kind
            run.focused = None
            self.changes += 1

    def prompt_drawn(self) -> Prompt | None:
        """How the Android prompt over the app in front is drawn (its package, activity, ids), or None."""
        with self._lock:
            run = self._current()
            if self.platform != "android" or run is None or run.prompt is None:
                return None
            return android_prompt_of(self._oem(), run.prompt)

    def _oem(self) -> str:
        return str(getattr(self.profile, "oem", "aosp"))

    def dismiss_system_dialog(self) -> None:
        self._set(dialog=None)

    def screen_cover(self) -> str | None:
        """What covers the apps on top (``anr``, ``crash``, ``keyguard``, ``shade``) or None."""
        with self._lock:
            return self.system.top()

    # --- what input does under a cover (call with the lock held) -------------------------------

    def _covered_launch(self, app_id: str) -> None:
        """Before a launch: iOS refuses it while locked and closes its panels."""
        if self.platform == "ios" and self.system.locked:
            raise AppLaunchFailed(frontboard_locked(app_id), app_id=app_id, hint="unlock the phone")
        if self.platform == "ios":
            self.system.shade = None

    def _covered_tap(self, ref: str | None) -> bool:
        """True when a cover took the tap (answered it, or nothing under it may take it)."""
        s = self.system
        if s.dialog is not None:
            if ref is not None and ref.startswith("sysdialog:"):
                dialog, s.dialog = s.dialog, None
                if ref == "sysdialog:close" and dialog.app_id in self.apps:
                    self.terminate(dialog.app_id)
            return True
        return s.locked or s.shade is not None

    def _covered_key(self, key: str) -> bool:
        """True when a cover took the key."""
        s = self.system
        if key == "power":
            s.locked, s.shade = True, None
            return True
        if s.dialog is not None:
            if key == "back":
                s.dialog = None
            return True
        if s.locked:
            if key == "menu" or (key == "home" and self.platform == "ios"):
                s.locked = False
            return True
        if s.shade is not None and key in ("back", "home"):
            s.shade = None
            return key == "back"  # home also goes home
        return False

    def _covered_swipe(self, y1: float, y2: float) -> bool:
        """True when a cover took the swipe: a swipe up unlocks or closes the shade."""
        s = self.system
        if s.dialog is not None:
            return True
        if s.locked or s.shade is not None:
            if y1 - y2 > 0:
                s.locked, s.shade = False, None
            return True
        return False

    def _covered_state(self, app_id: str) -> int | None:
        """iOS: the app in front of a locked phone runs in the background (3)."""
        if self.platform == "ios" and self.system.locked and app_id == self._foreground:
            return 3
        return None

    def _covered(self) -> bool:
        return self.system.top() is not None

    def _forget_dialog_of(self, app_id: str) -> None:
        if self.system.dialog is not None and self.system.dialog.app_id == app_id:
            self.system.dialog = None
