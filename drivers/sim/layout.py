"""Place the simulated device's state on screen as each platform would draw it.

Android is laid out in pixels on a 1080x2400 screen (status-bar, app, dialog and keyboard
windows side by side, as uiautomator2 dumps them); iOS in points on a 390x844 screen (one
application element holding windows, a navigation bar, a table, the keyboard and alerts, as
WebDriverAgent describes them). Lists scroll: on Android rows outside the list are not in the
tree (a RecyclerView recycles them); on iOS they stay with ``visible=false``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.models import Bounds
from drivers.sim.catalog import Widget
from drivers.sim.nodes import SimNode

if TYPE_CHECKING:
    from drivers.sim.device import AppRun, SimDevice

__all__ = ["build", "max_scroll"]

ANDROID_IME = "com.google.android.inputmethod.latin"
ANDROID_SYSTEMUI = "com.android.systemui"

# Android geometry (px) and iOS geometry (pt).
A_STATUS, A_TOOLBAR, A_MARGIN = 63, 147, 42
A_HEIGHTS = {"row": 168, "row+summary": 231, "text": 126, "field": 168, "button": 168}
I_STATUS, I_NAVBAR, I_HOME_INDICATOR = 47, 44, 34
I_HEIGHTS = {"row": 44, "row+summary": 44, "text": 34, "field": 44, "button": 50}


def _height(widget: Widget, heights: dict[str, int]) -> int:
    if widget.role in ("row", "switch_row"):
        return heights["row+summary" if widget.summary else "row"]
    if widget.role in ("field", "secure_field"):
        return heights["field"]
    return heights[widget.role] if widget.role in heights else heights["text"]


def _viewport(device: SimDevice) -> Bounds:
    width, height = device.window_size
    if device.platform == "android":
        return Bounds(0, A_STATUS + A_TOOLBAR, width, height)
    return Bounds(0, I_STATUS + I_NAVBAR, width, height - I_HOME_INDICATOR)


def max_scroll(device: SimDevice, run: AppRun) -> int:
    heights = A_HEIGHTS if device.platform == "android" else I_HEIGHTS
    content = sum(_height(w, heights) for w in run.screen.widgets)
    view = _viewport(device)
    return max(0, content - view.height)


def build(device: SimDevice) -> SimNode:
    """The whole screen of ``device`` as a native node tree (call with the device lock held)."""
    if device.platform == "android":
        return _android(device)
    return _ios(device)


def _widget_text(run: AppRun, widget: Widget) -> str:
    return widget.text.replace("{user}", run.user or "")


# --- Android ----------------------------------------------------------------------------------


def _android(device: SimDevice) -> SimNode:
    width, height = device.window_size
    window = Bounds(0, 0, width, height)
    run = device.current_run()
    windows: list[SimNode] = []
    if run is None:
        windows.append(_android_launcher(device, window))
    else:
        windows.append(_android_app(device, run, window))
        if run.alert is not None:
            windows.append(_android_dialog(device, run, window))
    windows.append(
        SimNode(
            "android.widget.FrameLayout",
            Bounds(0, 0, width, A_STATUS),
            ident=f"{ANDROID_SYSTEMUI}:id/status_bar_container",
            package=ANDROID_SYSTEMUI,
            children=(
                SimNode(
                    "android.widget.TextView",
                    Bounds(A_MARGIN, 0, A_MARGIN + 126, A_STATUS),
                    text="12:00",
                    label="12:00 PM",
                    ident=f"{ANDROID_SYSTEMUI}:id/clock",
                    package=ANDROID_SYSTEMUI,
                ),
            ),
        )
    )
    if device.keyboard_shown():
        keyboard = Bounds(0, height - 837, width, height)
        windows.append(
            SimNode(
                "android.widget.FrameLayout",
                keyboard,
                package=ANDROID_IME,
                children=(
                    SimNode(
                        "android.widget.FrameLayout",
                        keyboard,
                        ident=f"{ANDROID_IME}:id/keyboard_holder",
                        package=ANDROID_IME,
                    ),
                ),
            )
        )
    return SimNode("hierarchy", window, children=tuple(windows))


def _android_launcher(device: SimDevice, window: Bounds) -> SimNode:
    pkg = device.launcher
    icons: list[SimNode] = []
    cell_w, cell_h, top = window.width // 4, 300, 600
    for i, (app_id, spec) in enumerate(device.apps.items()):
        col, row = i % 4, i // 4
        bounds = Bounds(col * cell_w, top + row * cell_h, (col + 1) * cell_w, top + (row + 1) * cell_h)
        icons.append(
            SimNode(
                "android.widget.TextView",
                bounds,
                text=spec.name,
                label=spec.name,
                package=pkg,
                clickable=True,
                focusable=True,
                ref=f"icon:{app_id}",
            )
        )
    workspace = SimNode(
        "android.widget.ScrollView",
        Bounds(0, A_STATUS, window.width, window.bottom),
        ident=f"{pkg}:id/workspace",
        package=pkg,
        scrollable=True,
        children=tuple(icons),
    )
    return SimNode("android.widget.FrameLayout", window, package=pkg, children=(workspace,))


def _android_app(device: SimDevice, run: AppRun, window: Bounds) -> SimNode:
    pkg = run.spec.app_id
    screen = run.screen
    width = window.width
    toolbar_bounds = Bounds(0, A_STATUS, width, A_STATUS + A_TOOLBAR)
    toolbar_children: list[SimNode] = []
    title_left = A_MARGIN
    if len(run.stack) > 1:
        toolbar_children.append(
            SimNode(
                "android.widget.ImageButton",
                Bounds(0, A_STATUS, A_TOOLBAR, A_STATUS + A_TOOLBAR),
                label="Navigate up",
                package=pkg,
                clickable=True,
                focusable=True,
                ref="back:",
            )
        )
        title_left = A_TOOLBAR + A_MARGIN
    toolbar_children.append(
        SimNode(
            "android.widget.TextView",
            Bounds(title_left, A_STATUS + 30, width - A_MARGIN, A_STATUS + A_TOOLBAR - 30),
            text=screen.title,
            package=pkg,
        )
    )
    toolbar = SimNode(
        "android.view.ViewGroup",
        toolbar_bounds,
        ident=f"{pkg}:id/toolbar",
        package=pkg,
        children=tuple(toolbar_children),
    )
    viewport = _viewport(device)
    offset = run.scroll.get(screen.name, 0)
    items: list[SimNode] = []
    y = viewport.top - offset
    for widget in screen.widgets:
        h = _height(widget, A_HEIGHTS)
        full = Bounds(0, y, width, y + h)
        y += h
        shown = full.intersection(viewport)
        if shown is None:
            continue  # recycled: not in the tree, as RecyclerView does
        items.append(_android_widget(run, pkg, widget, full, shown))
    is_list = any(w.role in ("row", "switch_row") for w in screen.widgets)
    container = SimNode(
        "androidx.recyclerview.widget.RecyclerView" if is_list else "android.widget.LinearLayout",
        viewport,
        ident=f"{pkg}:id/recycler_view" if is_list else f"{pkg}:id/content",
        package=pkg,
        scrollable=max_scroll(device, run) > 0,
        focusable=is_list,
        children=tuple(items),
    )
    content = SimNode(
        "android.widget.LinearLayout",
        Bounds(0, A_STATUS, width, window.bottom),
        ident="android:id/content",
        package=pkg,
        children=(toolbar, container),
    )
    return SimNode("android.widget.FrameLayout", window, package=pkg, children=(content,))


def _clip(full: Bounds, shown: Bounds, top: int, bottom: int) -> Bounds | None:
    part = Bounds(full.left, full.top + top, full.right, full.top + bottom)
    return part.intersection(shown)


def _android_widget(run: AppRun, pkg: str, widget: Widget, full: Bounds, shown: Bounds) -> SimNode:
    ref = f"widget:{widget.key}"
    inner = Bounds(A_MARGIN, shown.top, full.right - A_MARGIN, shown.bottom)
    if widget.role in ("row", "switch_row"):
        parts: list[SimNode] = []
        title_box = _clip(full, shown, 30, 100 if widget.summary else full.height - 30)
        if title_box is not None:
            parts.append(
                SimNode(
                    "android.widget.TextView",
                    Bounds(A_MARGIN * 4, title_box.top, full.right - 240, title_box.bottom),
                    text=widget.text,
                    ident="android:id/title",
                    package=pkg,
                )
            )
        if widget.summary:
            summary_box = _clip(full, shown, 110, full.height - 30)
            if summary_box is not None:
                parts.append(
                    SimNode(
                        "android.widget.TextView",
                        Bounds(A_MARGIN * 4, summary_box.top, full.right - 240, summary_box.bottom),
                        text=widget.summary,
                        ident="android:id/summary",
                        package=pkg,
                    )
                )
        if widget.role == "switch_row":
            on = run.switch_on(widget)
            switch_box = _clip(full, shown, 40, full.height - 40)
            if switch_box is not None:
                parts.append(
                    SimNode(
                        "android.widget.Switch",
                        Bounds(full.right - 200, switch_box.top, full.right - A_MARGIN, switch_box.bottom),
                        text="ON" if on else "OFF",
                        ident="android:id/switch_widget",
                        package=pkg,
                        checkable=True,
                        checked=on,
                        focusable=True,
                    )
                )
        return SimNode(
            "android.widget.LinearLayout",
            shown,
            package=pkg,
            clickable=True,
            focusable=True,
            enabled=widget.enabled,
            ref=ref,
            children=tuple(parts),
        )
    ident = f"{pkg}:id/{widget.key}"
    if widget.role in ("field", "secure_field"):
        typed = run.values.get(widget.key, "")
        secure = widget.role == "secure_field"
        shown_text = ("\u2022" * len(typed) if secure else typed) if typed else (widget.hint or "")
        return SimNode(
            "android.widget.EditText",
            inner,
            text=shown_text,
            hint=widget.hint,
            ident=ident,
            package=pkg,
            clickable=True,
            focusable=True,
            focused=run.focused == widget.key,
            password=secure,
            enabled=widget.enabled,
            ref=ref,
        )
    if widget.role == "button":
        return SimNode(
            "android.widget.Button",
            inner,
            text=widget.text or None,
            label=widget.label,
            ident=ident,
            package=pkg,
            clickable=True,
            focusable=True,
            enabled=widget.enabled,
            ref=ref,
        )
    return SimNode("android.widget.TextView", inner, text=_widget_text(run, widget), ident=ident, package=pkg)


def _android_dialog(device: SimDevice, run: AppRun, window: Bounds) -> SimNode:
    assert run.alert is not None
    title, message = run.alert
    pkg = run.spec.app_id
    box = Bounds(66, window.height // 2 - 285, window.width - 66, window.height // 2 + 285)
    return SimNode(
        "android.widget.FrameLayout",
        box,
        package=pkg,
        children=(
            SimNode(
                "android.widget.TextView",
                Bounds(box.left + 72, box.top + 60, box.right - 72, box.top + 150),
                text=title,
                ident="android:id/alertTitle",
                package=pkg,
            ),
            SimNode(
                "android.widget.TextView",
                Bounds(box.left + 72, box.top + 180, box.right - 72, box.top + 330),
                text=message,
                ident="android:id/message",
                package=pkg,
            ),
            SimNode(
                "android.widget.Button",
                Bounds(box.right - 270, box.bottom - 170, box.right - 60, box.bottom - 44),
                text="OK",
                ident="android:id/button1",
                package=pkg,
                clickable=True,
                focusable=True,
                ref="alert:ok",
            ),
        ),
    )


# --- iOS --------------------------------------------------------------------------------------

_KEY_ROW = "qwertyuiop"


def _ios(device: SimDevice) -> SimNode:
    width, height = device.window_size
    window = Bounds(0, 0, width, height)
    run = device.current_run()
    if run is None:
        return _ios_springboard(device, window)
    screen = run.screen
    pkg = run.spec.app_id
    nav_children: list[SimNode] = []
    previous = run.previous_title()
    if previous is not None:
        nav_children.append(
            SimNode(
                "XCUIElementTypeButton",
                Bounds(0, I_STATUS, 100, I_STATUS + I_NAVBAR),
                label=previous,
                ident="BackButton",
                clickable=True,
                ref="back:",
            )
        )
    nav_children.append(
        SimNode(
            "XCUIElementTypeStaticText",
            Bounds(120, I_STATUS + 11, width - 120, I_STATUS + 33),
            label=screen.title,
            ident=screen.title,
            value=screen.title,
        )
    )
    navbar = SimNode(
        "XCUIElementTypeNavigationBar",
        Bounds(0, I_STATUS, width, I_STATUS + I_NAVBAR),
        ident=screen.title,
        children=tuple(nav_children),
    )
    viewport = _viewport(device)
    offset = run.scroll.get(screen.name, 0)
    cells: list[SimNode] = []
    y = viewport.top - offset
    for widget in screen.widgets:
        h = _height(widget, I_HEIGHTS)
        full = Bounds(0, y, width, y + h)
        y += h
        on_screen = full.intersection(viewport) is not None
        cells.append(_ios_widget(run, widget, full, on_screen))
    is_list = any(w.role in ("row", "switch_row") for w in screen.widgets)
    body = SimNode(
        "XCUIElementTypeTable" if is_list else "XCUIElementTypeOther",
        viewport,
        scrollable=is_list,
        children=tuple(cells),
    )
    app_window = SimNode(
        "XCUIElementTypeWindow",
        window,
        children=(SimNode("XCUIElementTypeOther", window, children=(navbar, body)),),
    )
    windows: list[SimNode] = [app_window]
    if device.keyboard_shown():
        windows.append(_ios_keyboard(window))
    if run.alert is not None:
        windows.append(_ios_alert(run, window))
    windows.append(
        SimNode(
            "XCUIElementTypeWindow",
            window,
            visible=True,
            children=(SimNode("XCUIElementTypeStatusBar", Bounds(0, 0, width, I_STATUS)),),
        )
    )
    return SimNode(
        "XCUIElementTypeApplication",
        window,
        label=run.spec.name,
        ident=run.spec.name,
        package=pkg,
        children=tuple(windows),
    )


def _ios_widget(run: AppRun, widget: Widget, full: Bounds, on_screen: bool) -> SimNode:
    ref = f"widget:{widget.key}"
    if widget.role in ("row", "switch_row"):
        parts = [
            SimNode(
                "XCUIElementTypeStaticText",
                Bounds(20, full.top + 11, 250, full.bottom - 11),
                label=widget.text,
                ident=widget.text,
                value=widget.text,
                visible=on_screen,
            )
        ]
        if widget.summary:
            parts.append(
                SimNode(
                    "XCUIElementTypeStaticText",
                    Bounds(250, full.top + 11, 350, full.bottom - 11),
                    label=widget.summary,
                    ident=widget.summary,
                    value=widget.summary,
                    visible=on_screen,
                )
            )
        if widget.role == "switch_row":
            on = run.switch_on(widget)
            parts.append(
                SimNode(
                    "XCUIElementTypeSwitch",
                    Bounds(321, full.top + 6, 372, full.bottom - 7),
                    label=widget.text,
                    ident=widget.key,
                    value="1" if on else "0",
                    checked=on,
                    visible=on_screen,
                    ref=ref,
                )
            )
        return SimNode(
            "XCUIElementTypeCell",
            full,
            ident=widget.key,
            enabled=widget.enabled,
            visible=on_screen,
            clickable=True,
            ref=ref,
            children=tuple(parts),
        )
    inner = Bounds(20, full.top + 4, full.right - 20, full.bottom - 4)
    if widget.role in ("field", "secure_field"):
        typed = run.values.get(widget.key, "")
        secure = widget.role == "secure_field"
        value = ("\u2022" * len(typed) if secure else typed) if typed else widget.hint
        return SimNode(
            "XCUIElementTypeSecureTextField" if secure else "XCUIElementTypeTextField",
            inner,
            label=widget.label,
            ident=widget.key,
            value=value,
            hint=widget.hint,
            focused=run.focused == widget.key,
            password=secure,
            visible=on_screen,
            enabled=widget.enabled,
            ref=ref,
        )
    if widget.role == "button":
        text = widget.text or widget.label
        return SimNode(
            "XCUIElementTypeButton",
            inner,
            label=text,
            ident=widget.key,
            visible=on_screen,
            enabled=widget.enabled,
            ref=ref,
        )
    text = _widget_text(run, widget)
    return SimNode(
        "XCUIElementTypeStaticText",
        inner,
        label=text,
        ident=widget.key,
        value=text or None,
        visible=on_screen,
    )


def _ios_keyboard(window: Bounds) -> SimNode:
    top = window.bottom - 336
    key_w = window.width // len(_KEY_ROW)
    keys = [
        SimNode(
            "XCUIElementTypeKey",
            Bounds(i * key_w, top + 10, (i + 1) * key_w, top + 52),
            label=ch,
            ident=ch,
            ref=f"keyboard:{ch}",
        )
        for i, ch in enumerate(_KEY_ROW)
    ]
    keys.append(
        SimNode(
            "XCUIElementTypeButton",
            Bounds(window.width - 92, top + 226, window.width - 4, top + 268),
            label="return",
            ident="Return",
            ref="keyboard:return",
        )
    )
    return SimNode(
        "XCUIElementTypeWindow",
        window,
        children=(
            SimNode(
                "XCUIElementTypeKeyboard", Bounds(0, top, window.width, window.bottom), children=tuple(keys)
            ),
        ),
    )


def _ios_alert(run: AppRun, window: Bounds) -> SimNode:
    assert run.alert is not None
    title, message = run.alert
    box = Bounds(52, window.height // 2 - 82, window.width - 52, window.height // 2 + 82)
    alert = SimNode(
        "XCUIElementTypeAlert",
        box,
        label=title,
        ident=title,
        children=(
            SimNode(
                "XCUIElementTypeStaticText",
                Bounds(box.left + 16, box.top + 20, box.right - 16, box.top + 42),
                label=title,
                ident=title,
                value=title,
            ),
            SimNode(
                "XCUIElementTypeStaticText",
                Bounds(box.left + 16, box.top + 46, box.right - 16, box.top + 86),
                label=message,
                ident=message,
                value=message,
            ),
            SimNode(
                "XCUIElementTypeButton",
                Bounds(box.left, box.bottom - 44, box.right, box.bottom),
                label="OK",
                ident="OK",
                ref="alert:ok",
            ),
        ),
    )
    return SimNode("XCUIElementTypeWindow", window, children=(alert,))


def _ios_springboard(device: SimDevice, window: Bounds) -> SimNode:
    icons: list[SimNode] = []
    for i, (app_id, spec) in enumerate(device.apps.items()):
        col, row = i % 4, i // 4
        left, top = 27 + col * 90, 74 + row * 100
        icons.append(
            SimNode(
                "XCUIElementTypeIcon",
                Bounds(left, top, left + 64, top + 80),
                label=spec.name,
                ident=spec.name,
                ref=f"icon:{app_id}",
            )
        )
    return SimNode(
        "XCUIElementTypeApplication",
        window,
        label=" ",
        ident=" ",
        package=device.launcher,
        children=(
            SimNode(
                "XCUIElementTypeWindow",
                window,
                children=(
                    SimNode("XCUIElementTypeOther", window, ident="Home screen icons", children=tuple(icons)),
                ),
            ),
        ),
    )
