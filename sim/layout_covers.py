"""How the simulated phone draws what covers its apps (state: :mod:`sim.covers`).

Android, as uiautomator dumps it (the window dump :mod:`sim.render_android` writes):

- The lock screen: one SystemUI window over the whole screen (no app window shows under it) with
  SystemUI's keyguard views, ids from real dumps (``tests/fixtures/real/android``:
  ``keyguard_status_bar`` [0,0][1080,80] and ``keyguard_bottom_area`` [0,2000][1080,2340] on a ZTE,
  ``keyguard_status_view`` and ``keyguard_indication_text`` on a Samsung, whose text is "Swipe to
  open"; AOSP's says "Swipe up to open", as a SystemUI change quotes it, find_string id 69716240536),
  inside ``notification_panel``, which holds the keyguard as well as the shade.
- The shade: the same window with the quick settings tiles and the notification list
  (``quick_settings_panel``, ``notification_stack_scroller``); the tiles' descriptions are those an
  API 34 emulator's expanded shade showed (kaeawc/auto-mobile#6078: "Internet, AndroidWifi",
  "Bluetooth, On", "Flashlight, Off", "Do Not Disturb, Off"). ``controls`` draws the quick settings
  alone, over the whole panel.
- A system dialog: a window of package ``android`` over the app's, at the frame, title and buttons
  of a real "System UI isn't responding" dump (``[28,943][1052,1457]`` on 1080x2400,
  ``android:id/alertTitle``, ``aerr_close`` "Close app", ``aerr_wait`` "Wait"); "X keeps stopping"
  has app_error_dialog.xml's ``aerr_restart`` "Open app again" and ``aerr_close`` in their place
  (AOSP layout; its dump was not collected).

iOS: SpringBoard's application element (``name=" "``, as WebDriverAgent writes it while SpringBoard
is in front: appium/WebDriverAgent#889, appium/appium#20835) holding the lock screen's time, date
and "Swipe up to open", Notification Center's heading, or Control Center's switches. No real
WebDriverAgent source of these three screens was found: their elements are this project's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.apps import ANDROID_SYSTEMUI, SPRINGBOARD
from ..core.models import Bounds
from .covers import SystemDialog, dialog_title
from .nodes import SimNode

if TYPE_CHECKING:
    from .device import SimDevice

__all__ = ["android_dialog_window", "android_home_chooser", "android_system_window", "ios_cover_screen"]

_ID = f"{ANDROID_SYSTEMUI}:id/"
_TILES = (("Internet", "AndroidWifi"), ("Bluetooth", "On"), ("Flashlight", "Off"), ("Do Not Disturb", "Off"))


def _scaled(window: Bounds, left: int, top: int, right: int, bottom: int) -> Bounds:
    """Bounds measured on a 1080x2400 screen, moved to this screen's size."""
    w, h = window.width, window.height
    return Bounds(left * w // 1080, top * h // 2400, right * w // 1080, bottom * h // 2400)


def _view(kind: str, bounds: Bounds, ident: str | None = None, **fields: object) -> SimNode:
    return SimNode(kind, bounds, ident=f"{_ID}{ident}" if ident else None, package=ANDROID_SYSTEMUI, **fields)  # type: ignore[arg-type]


def _keyguard(window: Bounds) -> tuple[SimNode, ...]:
    text = "android.widget.TextView"
    return (
        _view(
            "android.widget.RelativeLayout",
            _scaled(window, 0, 0, 1080, 80),
            "keyguard_status_bar",
            children=(_view(text, _scaled(window, 42, 0, 400, 80), "keyguard_carrier_text", text="Android"),),
        ),
        _view(
            "android.widget.GridLayout",
            _scaled(window, 0, 300, 1080, 700),
            "keyguard_status_view",
            children=(
                _view(text, _scaled(window, 90, 330, 990, 560), "clock", text="12:00"),
                _view(text, _scaled(window, 90, 580, 990, 650), "date_view", text="Monday, June 10"),
            ),
        ),
        _view(
            "android.widget.FrameLayout",
            _scaled(window, 0, 2000, 1080, 2340),
            "keyguard_bottom_area",
            children=(
                _view(
                    text,
                    _scaled(window, 200, 2150, 880, 2220),
                    "keyguard_indication_text",
                    text="Swipe up to open",
                ),
            ),
        ),
    )


def _shade(window: Bounds, panel: str) -> tuple[SimNode, ...]:
    bottom = 2400 if panel == "controls" else 1000
    tiles = tuple(
        _view(
            "android.widget.LinearLayout",
            _scaled(
                window, 42 + 504 * (i % 2), 300 + 180 * (i // 2), 534 + 504 * (i % 2), 460 + 180 * (i // 2)
            ),
            label=f"{name},{state}",
            clickable=True,
            focusable=True,
            ref=f"shade:{name}",
        )
        for i, (name, state) in enumerate(_TILES)
    )
    parts = [
        _view(
            "android.widget.FrameLayout",
            _scaled(window, 0, 0, 1080, bottom),
            "quick_settings_panel",
            children=tiles,
        )
    ]
    if panel == "notifications":
        parts.append(
            _view(
                "android.view.ViewGroup",
                _scaled(window, 0, 1000, 1080, 2400),
                "notification_stack_scroller",
                scrollable=True,
                children=(
                    _view(
                        "android.widget.TextView",
                        _scaled(window, 42, 1060, 1038, 1180),
                        "no_notifications",
                        text="No notifications",
                    ),
                ),
            )
        )
    return tuple(parts)


def android_system_window(device: SimDevice, window: Bounds) -> SimNode | None:
    """SystemUI's window of the lock screen or the shade, or None when neither is up."""
    s = device.system
    if s.locked:
        inner = _keyguard(window)
    elif s.shade is not None:
        inner = _shade(window, s.shade)
    else:
        return None
    panel = _view("android.widget.FrameLayout", window, "notification_panel", children=inner)
    return _view("android.widget.FrameLayout", window, children=(panel,))


def android_dialog_window(dialog: SystemDialog, window: Bounds) -> SimNode:
    """The system's "isn't responding" / "keeps stopping" dialog (package ``android``)."""
    pkg = "android"
    title = dialog_title(dialog)
    first, second = (
        (("aerr_close", "Close app", "sysdialog:close"), ("aerr_wait", "Wait", "sysdialog:wait"))
        if dialog.kind == "not_responding"
        else (
            ("aerr_restart", "Open app again", "sysdialog:wait"),
            ("aerr_close", "Close app", "sysdialog:close"),
        )
    )

    def button(spec: tuple[str, str, str], top: int) -> SimNode:
        ident, text, ref = spec
        return SimNode(
            "android.widget.Button",
            _scaled(window, 70, top, 1010, top + 126),
            text=text,
            ident=f"android:id/{ident}",
            package=pkg,
            clickable=True,
            focusable=True,
            ref=ref,
        )

    return SimNode(
        "android.widget.FrameLayout",
        _scaled(window, 28, 943, 1052, 1457),
        package=pkg,
        children=(
            SimNode(
                "android.widget.TextView",
                _scaled(window, 133, 1032, 947, 1103),
                text=title,
                ident="android:id/alertTitle",
                package=pkg,
            ),
            button(first, 1142),
            button(second, 1268),
        ),
    )


def android_home_chooser(launcher: str, window: Bounds) -> SimNode:
    """The system's "Select a Home app" (package ``android``), at the bounds of a real Android 6
    dump on 1080x1920 (tests/fixtures/real/android/android6-launcher-chooser-select-a-home-app-nodes.xml):
    the title, the home apps, "Just once" and "Always"."""

    def at(left: int, top: int, right: int, bottom: int) -> Bounds:
        w, h = window.width, window.height
        return Bounds(left * w // 1080, top * h // 1920, right * w // 1080, bottom * h // 1920)

    def text(label: str, bounds: Bounds, ident: str, **fields: Any) -> SimNode:
        return SimNode(
            "android.widget.TextView",
            bounds,
            text=label,
            ident=f"android:id/{ident}",
            package="android",
            **fields,
        )

    def button(label: str, bounds: Bounds, ident: str, ref: str) -> SimNode:
        return SimNode(
            "android.widget.Button",
            bounds,
            text=label,
            ident=f"android:id/{ident}",
            package="android",
            clickable=True,
            focusable=True,
            ref=ref,
        )

    return SimNode(
        "android.widget.FrameLayout",
        at(0, 1480, 1080, 1920),
        package="android",
        children=(
            text("Select a Home app", at(180, 1563, 900, 1647), "title"),
            text("Launcher3", at(288, 1670, 415, 1707), "text1", clickable=True, ref="homechooser:once"),
            button("Just once", at(617, 1827, 766, 1908), "button_once", "homechooser:once"),
            button("Always", at(766, 1827, 882, 1908), "button_always", "homechooser:always"),
        ),
    )


def _ios_text(text: str, bounds: Bounds) -> SimNode:
    return SimNode("XCUIElementTypeStaticText", bounds, label=text, ident=text, value=text)


def ios_cover_screen(device: SimDevice, window: Bounds) -> SimNode | None:
    """SpringBoard's tree while the lock screen or a panel is up, or None."""
    s = device.system
    w = window.width
    if s.locked:
        items: tuple[SimNode, ...] = (
            _ios_text("12:00", Bounds(0, 110, w, 200)),
            _ios_text("Monday, June 10", Bounds(0, 80, w, 108)),
            SimNode(
                "XCUIElementTypeButton", Bounds(46, 736, 96, 786), label="Flashlight", ident="Flashlight"
            ),
            SimNode(
                "XCUIElementTypeButton", Bounds(w - 96, 736, w - 46, 786), label="Camera", ident="Camera"
            ),
            _ios_text("Swipe up to open", Bounds(0, 800, w, 820)),
        )
    elif s.shade == "notifications":
        items = (
            _ios_text("Notification Center", Bounds(16, 60, w - 16, 100)),
            _ios_text("No Older Notifications", Bounds(0, 400, w, 424)),
        )
    elif s.shade == "controls":
        items = tuple(
            SimNode(
                "XCUIElementTypeSwitch",
                Bounds(30 + 80 * i, 80, 90 + 80 * i, 140),
                label=name,
                ident=name,
                value="1",
            )
            for i, name in enumerate(("Airplane Mode", "Wi-Fi", "Bluetooth"))
        )
    else:
        return None
    return SimNode(
        "XCUIElementTypeApplication",
        window,
        label=" ",
        ident=" ",
        package=SPRINGBOARD,
        children=(
            SimNode(
                "XCUIElementTypeWindow",
                window,
                children=(SimNode("XCUIElementTypeOther", window, children=items),),
            ),
        ),
    )
