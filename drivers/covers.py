"""The errors every driver raises when a launch ends under a cover, spelled once.

A launch that brought the app up behind the lock screen is not a launch the user can go on from:
it fails as ``DeviceOffline`` (state ``locked``: the phone must be unlocked first, nothing the
flow can do about it), and one that ended with the shade or a system dialog over the app fails as
``AppLaunchFailed`` naming it, with what dismisses it. Which cover is up, each backend reads its own
way (:mod:`drivers.u2.focus`, WebDriverAgent's ``/wda/locked``, Appium's ``mobile: isLocked``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import AppLaunchFailed, DeviceOffline
from ..core.models import Scene

__all__ = ["LOCKED_HINT", "covered_launch", "locked", "springboard_cover"]

_IOS_SPRINGBOARD_OWN = ("XCUIElementTypeAlert", "XCUIElementTypeSheet", "XCUIElementTypeIcon")

LOCKED_HINT = "unlock the phone (and turn off its screen lock or Auto-Lock while testing)"

_DISMISS = {
    "shade": "close it (press back, or swipe it up) and launch again",
    "system_dialog": "answer the dialog (tap 'Wait' or 'Close app', or press back) and launch again",
}


def locked(device: str, *, what: str = "the phone is locked", app_id: str | None = None) -> DeviceOffline:
    """The phone is locked (or its screen off): nothing shows until it is unlocked."""
    about = f" ({app_id} cannot come to the front)" if app_id else ""
    return DeviceOffline(f"{device}: {what}{about}", state="locked", hint=LOCKED_HINT)


def covered_launch(app_id: str, device: str, kind: str, cover: str) -> DeviceOffline | AppLaunchFailed:
    """The error for a launch of ``app_id`` that ended under ``cover`` (its name as the user sees
    it) of ``kind`` (``keyguard``, ``shade``, ``system_dialog``)."""
    if kind == "keyguard":
        return locked(device, what=f"the phone is locked ({cover} is up)", app_id=app_id)
    return AppLaunchFailed(
        f"{app_id} did not come to the front of {device}: {cover} covers the screen",
        app_id=app_id,
        hint=_DISMISS.get(kind, "dismiss it and launch again"),
    )


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
