"""How the simulated iPhone looks: iOS 17's light appearance, in points (drawn at 3x).

One rule per kind of node the iOS layout (:mod:`sim.layout_ios`) makes, matched on the
XCUIElementType WebDriverAgent reports and the node's place in the tree: the status bar, the
navigation bar with its back button, grouped table cells (title, detail, chevron or switch),
text fields with placeholders and a secure field's dots, buttons, the keyboard's keys, alerts over
a dimmed screen and SpringBoard's icons. Colours are UIKit's system colours as Apple's Human
Interface Guidelines list them ("Color", light appearance: systemBlue #007AFF, systemGreen
#34C759, systemGroupedBackground #F2F2F7, separator #C6C6C8), not a capture of a device.
"""

from __future__ import annotations

from ..core.models import Bounds
from .draw_canvas import RGB, Canvas, Clip, Rule, tint
from .nodes import SimNode

__all__ = ["CLIP", "RULES", "STATUS_TIME", "WHITE"]

WHITE: RGB = (255, 255, 255)
LABEL: RGB = (0, 0, 0)
SECONDARY: RGB = (138, 138, 142)
PLACEHOLDER: RGB = (196, 196, 199)
BLUE: RGB = (0, 122, 255)
GREEN: RGB = (52, 199, 89)
GROUPED: RGB = (242, 242, 247)
SEPARATOR: RGB = (198, 198, 200)
BAR: RGB = (249, 249, 249)
FILL: RGB = (233, 233, 234)
KEYBOARD: RGB = (209, 211, 217)
ALERT: RGB = (242, 242, 242)
DISABLED: RGB = (174, 174, 178)
WALLPAPER: tuple[RGB, RGB] = ((54, 42, 112), (222, 120, 150))
ICON_TINTS: tuple[RGB, ...] = (
    (142, 142, 147),
    (0, 122, 255),
    (52, 199, 89),
    (255, 149, 0),
    (255, 59, 48),
    (88, 86, 214),
)
# What the simulated status bar's clock shows (WebDriverAgent reports no text for the bar here).
STATUS_TIME = "12:00"


def _parent_is(parent: SimNode | None, type_name: str) -> bool:
    return parent is not None and parent.type == type_name


def _first_child(node: SimNode, parent: SimNode | None) -> bool:
    return parent is not None and bool(parent.children) and parent.children[0] is node


def _has_type(node: SimNode, type_name: str) -> bool:
    return any(child.type == type_name for child in node.children)


# --- painters -----------------------------------------------------------------------------------


def _application(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, WHITE)


def _system_window(canvas: Canvas, node: SimNode) -> None:
    # The window holding the status bar is the topmost: the system draws the home indicator
    # there, at the bottom of every app, over what scrolls beneath it.
    b = node.bounds
    cx = (b.left + b.right) // 2
    canvas.rect(Bounds(cx - 67, b.bottom - 13, cx + 67, b.bottom - 8), LABEL, radius=3)


def _springboard(canvas: Canvas, node: SimNode) -> None:
    canvas.gradient(node.bounds, *WALLPAPER)


def _status_bar(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.text(
        Bounds(b.left + 32, b.top + 14, b.left + 110, b.bottom - 8),
        STATUS_TIME,
        size=16,
        color=LABEL,
        align="center",
    )
    mid = (b.top + 14 + b.bottom - 8) // 2
    right = b.right - 30
    canvas.rect(Bounds(right - 25, mid - 6, right - 2, mid + 6), WHITE, outline=LABEL, width=1, radius=3)
    canvas.rect(Bounds(right - 23, mid - 4, right - 4, mid + 4), LABEL, radius=2)
    canvas.rect(Bounds(right - 1, mid - 2, right + 1, mid + 2), LABEL)


def _navigation_bar(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.rect(b, BAR)
    canvas.line(b.left, b.bottom - 0.5, b.right, b.bottom - 0.5, SEPARATOR, 0.34)


def _back_button(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    cy = (b.top + b.bottom) / 2
    canvas.line(b.left + 18, cy, b.left + 26, cy - 10, BLUE, 2.5)
    canvas.line(b.left + 18, cy, b.left + 26, cy + 10, BLUE, 2.5)
    canvas.text(
        Bounds(b.left + 30, b.top, b.right, b.bottom), node.label or "", size=17, color=BLUE, min_size=11
    )


def _nav_title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.label or "", size=17, color=LABEL, align="center", min_size=11)


def _table(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, GROUPED)


def _cell(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.rect(b, WHITE)
    canvas.line(b.left + 20, b.bottom - 0.5, b.right, b.bottom - 0.5, SEPARATOR, 0.34)
    if not _has_type(node, "XCUIElementTypeSwitch"):
        cy = (b.top + b.bottom) / 2
        canvas.line(b.right - 22, cy - 6, b.right - 16, cy, SEPARATOR, 2)
        canvas.line(b.right - 16, cy, b.right - 22, cy + 6, SEPARATOR, 2)


def _cell_title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.label or "", size=17, color=LABEL, min_size=12)


def _cell_detail(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.text(
        Bounds(b.left, b.top, b.right - 14, b.bottom),
        node.label or "",
        size=17,
        color=SECONDARY,
        align="right",
        min_size=11,
    )


def _switch(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    on = node.value == "1"
    canvas.rect(b, GREEN if on else FILL, radius=b.height / 2)
    r = b.height / 2 - 2
    cx = b.right - 2 - r if on else b.left + 2 + r
    canvas.circle(cx, (b.top + b.bottom) / 2, r, WHITE)


def _field(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.rect(b, WHITE, outline=BLUE if node.focused else PLACEHOLDER, width=1, radius=6)
    box = Bounds(b.left + 10, b.top, b.right - 10, b.bottom)
    value = node.value or ""
    typed = bool(value) and value != node.hint
    end: float = box.left
    if typed and node.password:
        canvas.dots(box, len(value), LABEL, radius=3.5)
        end = box.left + len(value) * 10.5
    elif typed:
        ink = canvas.text(box, value, size=17, color=LABEL)
        end = ink.right if ink is not None else box.left
    elif node.hint:
        canvas.text(box, node.hint, size=17, color=PLACEHOLDER)
    if node.focused:
        x = min(end + 2, box.right)
        canvas.line(x, b.top + 10, x, b.bottom - 10, BLUE, 2)


def _button(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.rect(b, BLUE if node.enabled else DISABLED, radius=12)
    canvas.text(b, node.label or "", size=17, color=WHITE, align="center", min_size=11)


def _text(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.label or node.value or "", size=17, color=LABEL, min_size=11)


def _keyboard(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, KEYBOARD)


def _key(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    key = Bounds(b.left + 3, b.top, b.right - 3, b.bottom)
    canvas.rect(key, WHITE, radius=5)
    canvas.text(key, node.label or "", size=22, color=LABEL, align="center")


def _return_key(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, (172, 177, 186), radius=5)
    canvas.text(node.bounds, node.label or "", size=16, color=LABEL, align="center")


def _alert(canvas: Canvas, node: SimNode) -> None:
    canvas.dim(0.2)
    canvas.rect(node.bounds, ALERT, radius=14)


def _alert_title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.label or "", size=17, color=LABEL, align="center", min_size=11)


def _alert_message(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.label or "", size=13, color=LABEL, align="center", min_size=9)


def _alert_button(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.line(b.left, b.top, b.right, b.top, SEPARATOR, 0.34)
    canvas.text(b, node.label or "", size=17, color=BLUE, align="center")


def _icon(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    tile = Bounds(b.left + 2, b.top, b.right - 2, b.top + b.width - 4)
    canvas.rect(tile, tint(ICON_TINTS, node.label or ""), radius=14)
    canvas.text(tile, (node.label or "?")[:1], size=30, color=WHITE, align="center")
    canvas.text(
        Bounds(b.left - 10, tile.bottom + 2, b.right + 10, b.bottom),
        node.label or "",
        size=12,
        color=WHITE,
        align="center",
        min_size=8,
    )


# --- rules --------------------------------------------------------------------------------------


def _clip(node: SimNode, window: Bounds) -> Bounds | None:
    """A table's cells scroll under the navigation bar above and the home indicator below: they
    are cut at the table's top and at the window's bottom (WebDriverAgent calls a cell visible
    while any of it is on screen)."""
    if not node.scrollable:
        return None
    return Bounds(node.bounds.left, node.bounds.top, node.bounds.right, window.bottom)


CLIP: Clip = _clip
_T = "XCUIElementType"
RULES: tuple[Rule, ...] = (
    (lambda n, p: n.type == _T + "Application" and n.ident == " ", _springboard),
    (lambda n, p: n.type == _T + "Application", _application),
    (lambda n, p: n.type == _T + "StatusBar", _status_bar),
    (lambda n, p: n.type == _T + "Window" and _has_type(n, _T + "StatusBar"), _system_window),
    (lambda n, p: n.type == _T + "NavigationBar", _navigation_bar),
    (lambda n, p: n.type == _T + "Button" and n.ident == "BackButton", _back_button),
    (lambda n, p: n.type == _T + "StaticText" and _parent_is(p, _T + "NavigationBar"), _nav_title),
    (lambda n, p: n.type == _T + "Table", _table),
    (lambda n, p: n.type == _T + "Cell", _cell),
    (
        lambda n, p: n.type == _T + "StaticText" and _parent_is(p, _T + "Cell") and _first_child(n, p),
        _cell_title,
    ),
    (lambda n, p: n.type == _T + "StaticText" and _parent_is(p, _T + "Cell"), _cell_detail),
    (lambda n, p: n.type == _T + "Switch", _switch),
    (lambda n, p: n.type in (_T + "TextField", _T + "SecureTextField"), _field),
    (lambda n, p: n.type == _T + "Keyboard", _keyboard),
    (lambda n, p: n.type == _T + "Key", _key),
    (lambda n, p: n.type == _T + "Button" and _parent_is(p, _T + "Keyboard"), _return_key),
    (lambda n, p: n.type == _T + "Alert", _alert),
    (
        lambda n, p: n.type == _T + "StaticText" and _parent_is(p, _T + "Alert") and _first_child(n, p),
        _alert_title,
    ),
    (lambda n, p: n.type == _T + "StaticText" and _parent_is(p, _T + "Alert"), _alert_message),
    (lambda n, p: n.type == _T + "Button" and _parent_is(p, _T + "Alert"), _alert_button),
    (lambda n, p: n.type == _T + "Button", _button),
    (lambda n, p: n.type == _T + "StaticText", _text),
    (lambda n, p: n.type == _T + "Icon", _icon),
)
