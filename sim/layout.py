"""Place the simulated device's state on screen as each platform would draw it: the geometry and
the names both platforms' layouts share (the screen itself: :func:`sim.layout_screen.build`).

Android is laid out in pixels on a 1080x2400 screen (status-bar, app, dialog and keyboard
windows side by side, as uiautomator2 dumps them); iOS in points on a 390x844 screen (one
application element holding windows, a navigation bar, a table, the keyboard and alerts, as
WebDriverAgent describes them). Lists scroll: on Android rows outside the list are not in the
tree (a RecyclerView recycles them); on iOS they stay with ``visible=false``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.models import Bounds
from .catalog import Widget

if TYPE_CHECKING:
    from .device import AppRun, SimDevice

__all__ = ["content_viewport", "max_scroll", "widget_height", "widget_text"]

ANDROID_IME = "com.google.android.inputmethod.latin"
# Input method ids (``ime list``): Gboard's LatinIME, and uiautomator2's AdbKeyboard, which ships in
# its app-uiautomator.apk (package com.github.uiautomator, uiautomator2 ``_input.py``).
LATIN_IME = f"{ANDROID_IME}/com.android.inputmethod.latin.LatinIME"
ADB_KEYBOARD_PACKAGE = "com.github.uiautomator"
ADB_KEYBOARD = f"{ADB_KEYBOARD_PACKAGE}/.AdbKeyboard"
ANDROID_SYSTEMUI = "com.android.systemui"

# Android geometry (px) and iOS geometry (pt).
A_STATUS, A_TOOLBAR, A_MARGIN = 63, 147, 42
A_HEIGHTS = {"row": 168, "row+summary": 231, "text": 126, "field": 168, "button": 168}
I_STATUS, I_NAVBAR, I_HOME_INDICATOR = 47, 44, 34
I_HEIGHTS = {"row": 44, "row+summary": 44, "text": 34, "field": 44, "button": 50}


def widget_height(widget: Widget, heights: dict[str, int]) -> int:
    if widget.role in ("row", "switch_row"):
        return heights["row+summary" if widget.summary else "row"]
    if widget.role in ("field", "secure_field"):
        return heights["field"]
    return heights[widget.role] if widget.role in heights else heights["text"]


def content_viewport(device: SimDevice) -> Bounds:
    width, height = device.window_size
    if device.platform == "android":
        return Bounds(0, A_STATUS + A_TOOLBAR, width, height)
    return Bounds(0, I_STATUS + I_NAVBAR, width, height - I_HOME_INDICATOR)


def max_scroll(device: SimDevice, run: AppRun) -> int:
    heights = A_HEIGHTS if device.platform == "android" else I_HEIGHTS
    content = sum(widget_height(w, heights) for w in run.screen.widgets)
    view = content_viewport(device)
    return max(0, content - view.height)


def widget_text(run: AppRun, widget: Widget) -> str:
    """What a widget shows: its text (``{user}``: the signed-in user); a text an action wrote
    (``increment``) shows what was written."""
    if widget.role == "text" and widget.key in run.values:
        return run.values[widget.key]
    return widget.text.replace("{user}", run.user or "")
