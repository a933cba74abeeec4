"""Android's screen for the simulated device, in pixels: status-bar, app, dialog and keyboard windows
side by side, as uiautomator2 dumps them; rows scrolled out of a list are not in the tree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.models import Bounds
from .catalog import Widget
from .layout import (
    A_HEIGHTS,
    A_MARGIN,
    A_STATUS,
    A_TOOLBAR,
    ADB_KEYBOARD,
    ADB_KEYBOARD_PACKAGE,
    ANDROID_IME,
    ANDROID_SYSTEMUI,
    content_viewport,
    max_scroll,
    widget_height,
    widget_text,
)
from .layout_covers import android_dialog_window, android_home_chooser, android_system_window
from .layout_prompt import android_prompt
from .nodes import SimNode

if TYPE_CHECKING:
    from .device import AppRun, SimDevice

__all__ = ["android_screen"]


def android_screen(device: SimDevice) -> SimNode:
    width, height = device.window_size
    window = Bounds(0, 0, width, height)
    run = device.current_run()
    windows: list[SimNode] = []
    system = android_system_window(device, window)  # the lock screen or the shade (sim.covers)
    if system is not None:
        windows.append(system)  # nothing under it is in the dump: it covers the whole screen
    elif run is None and device.system.home_asking:
        windows.append(android_home_chooser(device.launcher, window))
    elif run is None:
        windows.append(_android_launcher(device, window))
    else:
        windows.append(_android_app(device, run, window))
        if run.alert is not None:
            windows.append(_android_dialog(device, run, window))
        drawn = device.prompt_drawn()
        if drawn is not None:
            windows.append(android_prompt(run.spec.name, drawn, window))
    if device.system.dialog is not None:
        windows.append(android_dialog_window(device.system.dialog, window))
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
        windows.append(_keyboard(device, window))
    return SimNode("hierarchy", window, children=tuple(windows))


def _keyboard(device: SimDevice, window: Bounds) -> SimNode:
    """The current input method's window at the bottom of the screen.

    Gboard: its keyboard holder, 837 px high. uiautomator2's AdbKeyboard: its input view, a
    ``KeyboardView`` (openatx/android-uiautomator-server inflates ``R.layout.keyboard`` into an
    ``android.inputmethodservice.KeyboardView`` in ``onCreateInputView``) of one short row of keys.
    Real dumps show it as nodes of package ``com.github.uiautomator`` at the bottom of the screen
    (a bench's test of its dump filter keeps one at ``[71,2274][254,2400]`` on a 2400 px screen:
    qualgentbench ``test_keyboard_chrome_is_neither_a_tap_target_nor_an_oracle``), and scripts find
    it by the resource id ``com.github.uiautomator:id/keyboard`` (a uiautomator2 user's
    ``xpath("com.github.uiautomator:id/keyboard").exists`` before ``adb_input_hide()``), so it is
    dumped with that id, 126 px high.
    """
    if device.input_method == ADB_KEYBOARD:
        bounds = Bounds(0, window.bottom - 126, window.width, window.bottom)
        view = SimNode(
            "android.inputmethodservice.KeyboardView",
            bounds,
            ident=f"{ADB_KEYBOARD_PACKAGE}:id/keyboard",
            package=ADB_KEYBOARD_PACKAGE,
            clickable=True,
        )
        return SimNode("android.widget.FrameLayout", bounds, package=ADB_KEYBOARD_PACKAGE, children=(view,))
    bounds = Bounds(0, window.bottom - 837, window.width, window.bottom)
    holder = SimNode(
        "android.widget.FrameLayout", bounds, ident=f"{ANDROID_IME}:id/keyboard_holder", package=ANDROID_IME
    )
    return SimNode("android.widget.FrameLayout", bounds, package=ANDROID_IME, children=(holder,))


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
    viewport = content_viewport(device)
    offset = run.scroll.get(screen.name, 0)
    items: list[SimNode] = []
    y = viewport.top - offset
    for widget in screen.widgets:
        h = widget_height(widget, A_HEIGHTS)
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
    # A key that is a whole resource id (a framework view such as ``android:id/search_src_text``)
    # is the view's id as it stands; any other is the app's own (``package:id/key``).
    ident = widget.key if ":id/" in widget.key else f"{pkg}:id/{widget.key}"
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
    if widget.role in ("button", "image"):
        button = widget.role == "button"
        return SimNode(
            "android.widget.Button" if button else "android.widget.ImageView",
            inner,
            text=(widget.text or None) if button else None,
            label=widget.label,
            ident=ident,
            package=pkg,
            clickable=True,
            focusable=True,
            enabled=widget.enabled,
            visible=not widget.hidden,
            hidden=widget.hidden,
            selected=widget.selected,
            ref=ref,
        )
    if widget.role == "progress":
        # An indeterminate android.widget.ProgressBar: no text, its content-desc when the app sets one.
        return SimNode("android.widget.ProgressBar", inner, label=widget.label, ident=ident, package=pkg)
    gestures = widget.on_long_press is not None or widget.on_double_tap is not None
    return SimNode(
        "android.widget.TextView",
        inner,
        text=widget_text(run, widget),
        ident=ident,
        package=pkg,
        clickable=gestures,
        ref=ref if gestures else None,
    )


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
            *_dialog_buttons(run.alert_buttons, box, pkg),
        ),
    )


def _dialog_buttons(labels: tuple[str, ...], box: Bounds, pkg: str) -> tuple[SimNode, ...]:
    """AlertDialog's buttons, right-aligned in one row: the last is the positive one
    (``android:id/button1``), the first the negative (``button2``), one between the neutral (``button3``)."""
    idents = {len(labels) - 1: "android:id/button1", 0: "android:id/button2"}
    nodes = []
    right = box.right - 60
    for i in reversed(range(len(labels))):
        nodes.append(
            SimNode(
                "android.widget.Button",
                Bounds(right - 210, box.bottom - 170, right, box.bottom - 44),
                text=labels[i],
                ident=idents.get(i, "android:id/button3"),
                package=pkg,
                clickable=True,
                focusable=True,
                ref=f"alert:{i}",
            )
        )
        right -= 230
    return tuple(reversed(nodes))
