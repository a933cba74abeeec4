"""iOS's screen for the simulated device, in points: one application element holding windows, a
navigation bar, a table (cells scrolled out stay, invisible), the keyboard and alerts, as
WebDriverAgent describes them; SpringBoard when no app is in front."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.models import Bounds
from .catalog import Widget
from .layout import I_HEIGHTS, I_NAVBAR, I_STATUS, content_viewport, widget_height, widget_text
from .layout_covers import ios_cover_screen
from .layout_prompt import ios_prompt_screen
from .nodes import SimNode

if TYPE_CHECKING:
    from .device import AppRun, SimDevice

__all__ = ["ios_screen"]


_KEY_ROW = "qwertyuiop"


def ios_screen(device: SimDevice) -> SimNode:
    width, height = device.window_size
    window = Bounds(0, 0, width, height)
    run = device.current_run()
    covered = ios_cover_screen(device, window)  # the lock screen or a panel (sim.covers)
    if covered is not None:
        return covered
    if run is None:
        return _ios_springboard(device, window)
    if run.prompt is not None:
        return ios_prompt_screen(run.spec.name, run.prompt, window)
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
    viewport = content_viewport(device)
    offset = run.scroll.get(screen.name, 0)
    cells: list[SimNode] = []
    y = viewport.top - offset
    for widget in screen.widgets:
        h = widget_height(widget, I_HEIGHTS)
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
    if widget.role == "progress":
        # UIActivityIndicatorView: XCUIElementTypeActivityIndicator, labelled "In progress" by UIKit.
        return SimNode(
            "XCUIElementTypeActivityIndicator",
            inner,
            label=widget.label or "In progress",
            ident=widget.key,
            visible=on_screen,
        )
    text = widget_text(run, widget)
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
