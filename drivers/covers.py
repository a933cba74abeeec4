"""What every driver does about covers, spelled once.

A launch that brought the app up behind the lock screen is not a launch the user can go on from:
it fails as ``DeviceOffline`` (state ``locked``: the phone must be unlocked first, nothing a flow
can do about it) with :func:`locked`. The shade pulled down over the app or a system dialog is the
app's screen's state, as a permission prompt is: the launch has brought the app to the front and
the next observation names the cover (the world model's overlay); every backend can tell that the
app is in front, not every one can see the shade or the dialog at that moment (UiAutomator2's
``getCurrentPackage`` names the app under them). Which cover is up, each backend reads its own way
(:mod:`drivers.u2.focus`, WebDriverAgent's ``/wda/locked``, Appium's ``mobile: isLocked``); an
iPhone's are read from SpringBoard's source by :func:`springboard_cover`.

A crash or "not responding" dialog about the app just launched is not a launch either: the verdict
comes from several signals (the focused window and the app behind it, the process, the dialog),
each backend reading the ones it can (uiautomator2: ``dumpsys window``'s focused window
``Application Error: PKG`` / ``Application Not Responding: PKG`` names the process; Appium's
UiAutomator2 names the app behind the dialog, so its page source is read once after the launch).
Either way the launch fails as ``AppLaunchFailed`` quoting the dialog's title
(:func:`dialog_launch_failed`, :func:`system_dialog`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.apps import ANDROID_ANR_IDS, ANDROID_ERROR_DIALOG_IDS, says_not_responding
from ..core.errors import AppLaunchFailed, DeviceOffline
from ..core.lazy import Query, candidates
from ..core.models import Scene

__all__ = [
    "LOCKED_HINT",
    "dialog_is_about",
    "dialog_launch_failed",
    "locked",
    "springboard_cover",
    "system_dialog",
]

_DIALOG_QUERY: Query = (
    tuple(("identifier", "~", f"android:id/{i}") for i in (*sorted(ANDROID_ERROR_DIALOG_IDS), "alertTitle")),
)
_TITLE_MAX = 200

_IOS_SPRINGBOARD_OWN = ("XCUIElementTypeAlert", "XCUIElementTypeSheet", "XCUIElementTypeIcon")

LOCKED_HINT = "unlock the phone (and turn off its screen lock or Auto-Lock while testing)"


def locked(device: str, *, what: str = "the phone is locked", app_id: str | None = None) -> DeviceOffline:
    """The phone is locked (or its screen off): no app shows until it is unlocked."""
    about = f" ({app_id} cannot come to the front)" if app_id else ""
    return DeviceOffline(f"{device}: {what}{about}", state="locked", hint=LOCKED_HINT)


def springboard_cover(
    scene: Scene, is_locked: Callable[[], bool | None], launched_state: Callable[[], int | None]
) -> str | None:
    """What covers an iPhone whose source is SpringBoard's: nothing to ask when it shows its own
    alert (that is the cover) or app icons (the home screen: a real one,
    tests/fixtures/hierarchy/wda_springboard_home.xml, holds ``XCUIElementTypeIcon``s, which the
    lock screen and the panels do not show); else ``keyguard`` when the phone says it is locked
    (``/wda/locked``), ``shade`` when the app the driver launched still runs in front under
    SpringBoard's window (state 4: Notification Center or Control Center is down), else None.
    One request, two when the driver launched an app."""
    if any(el.type in _IOS_SPRINGBOARD_OWN and el.visible for el in scene.root.iter()):
        return None
    if is_locked() is True:
        return "keyguard"
    return "shade" if launched_state() == 4 else None


def system_dialog(scene: Scene) -> tuple[str, str] | None:
    """(``anr`` or ``crash``, its title) of Android's system dialog in ``scene``'s tree (its
    ``android:id/aerr_*`` buttons; the title is ``android:id/alertTitle``'s text), or None."""
    buttons: set[str] = set()
    title = ""
    for el in candidates(scene.root, _DIALOG_QUERY):
        local = (el.identifier or "").removeprefix("android:id/")
        if not el.visible or local == el.identifier:
            continue
        if local == "alertTitle":
            title = title or (el.text or "").strip()
        elif local in ANDROID_ERROR_DIALOG_IDS:
            buttons.add(local)
    if not buttons:
        return None
    anr = bool(buttons & ANDROID_ANR_IDS) or says_not_responding(title)
    return ("anr" if anr else "crash"), title[:_TITLE_MAX]


def dialog_is_about(process: str | None, app_id: str) -> bool:
    """Whether a system dialog's process (``Application Error: PROCESS``) is ``app_id``'s (its main
    process or one of its own, ``app_id:remote``)."""
    return process is not None and (process == app_id or process.startswith(f"{app_id}:"))


def dialog_launch_failed(device: str, app_id: str, kind: str, title: str | None) -> AppLaunchFailed:
    """The error for a launch answered by the system's crash (``crash``) or ANR (``anr``) dialog."""
    what = "stopped as it started" if kind == "crash" else "does not respond"
    said = f': "{title}"' if title else ""
    hint = (
        "the app crashes on start: read its crash in `adb logcat -b crash`, fix or reinstall it, and "
        "close the dialog"
        if kind == "crash"
        else "the app's main thread is blocked: wait and launch again, or close the dialog (Close app)"
    )
    return AppLaunchFailed(
        f"{app_id} {what} on {device}: the system shows its {'crash' if kind == 'crash' else 'ANR'} "
        f"dialog{said}",
        app_id=app_id,
        hint=hint,
    )
