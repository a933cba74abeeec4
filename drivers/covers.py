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
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import DeviceOffline
from ..core.models import Scene

__all__ = ["LOCKED_HINT", "locked", "springboard_cover"]

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
