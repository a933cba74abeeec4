"""How the simulated Android phone looks: Android 14's Material 3 light theme, in pixels.

One rule per kind of node the Android layout (:mod:`sim.layout_android`) makes, matched on what
uiautomator2 would dump for it (class, resource-id, package): the status bar with its clock, the
app bar with its title and up button, Settings rows (a tinted icon disc, title, summary, switch),
text fields with their hint, bullets for a password, buttons, dialogs over a dimmed screen, the
keyboard and the launcher. Colours are the Material 3 baseline scheme (m3.material.io "Color
roles", primary #415F91 family), not a capture of a device.
"""

from __future__ import annotations

from ..core.models import Bounds
from .draw_canvas import BULLET, RGB, Canvas, Clip, Rule, clip_to_bounds, tint
from .layout import ANDROID_IME, ANDROID_SYSTEMUI
from .nodes import SimNode

__all__ = ["BACKGROUND", "CLIP", "RULES"]

BACKGROUND: RGB = (247, 249, 255)
ON_SURFACE: RGB = (27, 27, 31)
ON_SURFACE_VARIANT: RGB = (69, 70, 79)
PRIMARY: RGB = (65, 95, 145)
ON_PRIMARY: RGB = (255, 255, 255)
OUTLINE: RGB = (117, 119, 127)
DISABLED: RGB = (190, 191, 198)
DIALOG: RGB = (238, 240, 247)
KEYBOARD: RGB = (232, 234, 237)
KEY: RGB = (255, 255, 255)
TRACK_OFF: RGB = (225, 226, 236)
WALLPAPER: tuple[RGB, RGB] = ((38, 66, 130), (126, 162, 214))
ICON_TINTS: tuple[RGB, ...] = (
    (66, 133, 244),
    (52, 168, 83),
    (251, 140, 0),
    (171, 71, 188),
    (0, 150, 136),
    (234, 67, 53),
    (92, 107, 192),
    (121, 85, 72),
)
_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _ident_is(node: SimNode, suffix: str) -> bool:
    return node.ident is not None and node.ident.endswith(suffix)


def _has_child(node: SimNode, suffix: str) -> bool:
    return any(_ident_is(child, suffix) for child in node.children)


# --- painters -----------------------------------------------------------------------------------


def _nothing(canvas: Canvas, node: SimNode) -> None:
    return None


def _window(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, BACKGROUND)


def _status_bar(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    canvas.rect(b, BACKGROUND)
    # Decoration inside the bar's bounds: signal, Wi-Fi and battery, as the bar draws them.
    mid = (b.top + b.bottom) // 2
    right = b.right - 42
    canvas.rect(Bounds(right - 54, mid - 14, right - 6, mid + 14), ON_SURFACE, radius=4)
    canvas.rect(Bounds(right - 6, mid - 6, right, mid + 6), ON_SURFACE)
    canvas.polygon([(right - 110, mid + 14), (right - 74, mid + 14), (right - 74, mid - 20)], ON_SURFACE)
    canvas.circle(right - 150, mid + 6, 14, ON_SURFACE)


def _clock(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=37, color=ON_SURFACE)


def _toolbar(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, BACKGROUND)


def _up_button(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    cx, cy = (b.left + b.right) / 2, (b.top + b.bottom) / 2
    canvas.line(cx - 26, cy, cx + 26, cy, ON_SURFACE, 6)
    canvas.line(cx - 26, cy, cx - 4, cy - 22, ON_SURFACE, 6)
    canvas.line(cx - 26, cy, cx - 4, cy + 22, ON_SURFACE, 6)


def _title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=58, color=ON_SURFACE, min_size=36)


def _row(canvas: Canvas, node: SimNode) -> None:
    # The row's icon: a tinted disc with the title's first letter, in the space left of the title.
    title = next((c for c in node.children if _ident_is(c, "android:id/title")), None)
    if title is None:
        return
    b = node.bounds
    cx, cy, r = 84.0, (b.top + b.bottom) / 2, 40.0
    if cy - r < b.top or cy + r > b.bottom:
        return  # the row is cut by the list's edge: no room for the whole icon
    canvas.circle(cx, cy, r, tint(ICON_TINTS, title.text or "") if node.enabled else DISABLED)
    letter = (title.text or "?")[:1].upper()
    canvas.text(
        Bounds(int(cx - r), int(cy - r), int(cx + r), int(cy + r)), letter, size=40, color=KEY, align="center"
    )


def _row_title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=52, color=ON_SURFACE, min_size=34)


def _row_summary(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=37, color=ON_SURFACE_VARIANT, min_size=26)


def _switch(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    cy = (b.top + b.bottom) / 2
    track = Bounds(b.right - 136, round(cy - 42), b.right - 4, round(cy + 42))
    if track.top < b.top or track.bottom > b.bottom:
        track = Bounds(track.left, b.top, track.right, b.bottom)
    if node.checked:
        canvas.rect(track, PRIMARY, radius=42)
        canvas.circle(track.right - 42, cy, 30, ON_PRIMARY)
    else:
        canvas.rect(track, TRACK_OFF, outline=OUTLINE, width=5, radius=42)
        canvas.circle(track.left + 42, cy, 22, OUTLINE)


def _field(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    inner = Bounds(b.left + 6, b.top + 16, b.right - 6, b.bottom - 16)
    border = PRIMARY if node.focused else (DISABLED if not node.enabled else OUTLINE)
    canvas.rect(inner, BACKGROUND, outline=border, width=6 if node.focused else 3, radius=12)
    text_box = Bounds(inner.left + 42, inner.top, inner.right - 42, inner.bottom)
    typed = node.text or ""
    if typed and typed != node.hint:
        if node.password and set(typed) == {BULLET}:
            canvas.dots(text_box, len(typed), ON_SURFACE, radius=10)
            end = text_box.left + len(typed) * 30
        else:
            ink = canvas.text(text_box, typed, size=42, color=ON_SURFACE)
            end = ink.right if ink is not None else text_box.left
    else:
        if node.hint:
            canvas.text(text_box, node.hint, size=42, color=ON_SURFACE_VARIANT)
        end = text_box.left
    if node.focused:
        x = min(end + 6, text_box.right)
        canvas.line(x, text_box.top + 30, x, text_box.bottom - 30, PRIMARY, 4)


def _button(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    pill = Bounds(b.left, b.top + 20, b.right, b.bottom - 20)
    fill = PRIMARY if node.enabled else DISABLED
    canvas.rect(pill, fill, radius=pill.height / 2)
    canvas.text(pill, node.text or node.label or "", size=42, color=ON_PRIMARY, align="center")


def _plain_text(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=42, color=ON_SURFACE, min_size=28)


def _dialog(canvas: Canvas, node: SimNode) -> None:
    canvas.dim(0.32)
    canvas.rect(node.bounds, DIALOG, radius=74)


def _dialog_title(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=63, color=ON_SURFACE, min_size=40)


def _dialog_message(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=40, color=ON_SURFACE_VARIANT, min_size=26)


def _dialog_button(canvas: Canvas, node: SimNode) -> None:
    canvas.text(node.bounds, node.text or "", size=40, color=PRIMARY, align="center")


def _keyboard(canvas: Canvas, node: SimNode) -> None:
    canvas.rect(node.bounds, KEYBOARD)


def _keys(canvas: Canvas, node: SimNode) -> None:
    # uiautomator dumps the keyboard as one holder view; its keys are drawn inside it.
    b = node.bounds
    row_h = (b.height - 60) // 4
    key_w = b.width // 10
    for r, letters in enumerate(_KEY_ROWS):
        indent = (b.width - key_w * len(letters)) // 2
        top = b.top + 30 + r * row_h
        for i, ch in enumerate(letters):
            key = Bounds(
                b.left + indent + i * key_w + 8,
                top + 10,
                b.left + indent + (i + 1) * key_w - 8,
                top + row_h - 10,
            )
            canvas.rect(key, KEY, radius=14)
            canvas.text(key, ch, size=52, color=ON_SURFACE, align="center")
    top = b.top + 30 + 3 * row_h
    space = Bounds(b.left + key_w * 2 + 8, top + 10, b.right - key_w * 2 - 8, top + row_h - 10)
    canvas.rect(space, KEY, radius=14)
    enter = Bounds(b.right - key_w * 2 + 8, top + 10, b.right - 16, top + row_h - 10)
    canvas.rect(enter, PRIMARY, radius=14)


def _workspace(canvas: Canvas, node: SimNode) -> None:
    canvas.gradient(node.bounds, *WALLPAPER)


def _launcher_icon(canvas: Canvas, node: SimNode) -> None:
    b = node.bounds
    cx, r = (b.left + b.right) / 2, 72.0
    cy = b.top + 40 + r
    canvas.circle(cx, cy, r, tint(ICON_TINTS, node.text or ""))
    canvas.text(
        Bounds(int(cx - r), int(cy - r), int(cx + r), int(cy + r)),
        (node.text or "?")[:1],
        size=64,
        color=KEY,
        align="center",
    )
    label = Bounds(b.left + 6, round(cy + r + 16), b.right - 6, round(cy + r + 76))
    canvas.text(label, node.text or "", size=36, color=KEY, align="center", min_size=24)


# --- rules --------------------------------------------------------------------------------------


# The layout already cuts rows at the list's edges (a RecyclerView does not keep them): clip there.
CLIP: Clip = clip_to_bounds
RULES: tuple[Rule, ...] = (
    (lambda n, p: n.type == "hierarchy", _nothing),
    (lambda n, p: _ident_is(n, f"{ANDROID_SYSTEMUI}:id/status_bar_container"), _status_bar),
    (lambda n, p: _ident_is(n, f"{ANDROID_SYSTEMUI}:id/clock"), _clock),
    (lambda n, p: n.package == ANDROID_IME and _ident_is(n, ":id/keyboard_holder"), _keys),
    (lambda n, p: n.package == ANDROID_IME, _keyboard),
    (lambda n, p: _ident_is(n, ":id/workspace"), _workspace),
    (lambda n, p: n.ref is not None and n.ref.startswith("icon:"), _launcher_icon),
    (lambda n, p: n.type == "android.widget.FrameLayout" and _has_child(n, "android:id/alertTitle"), _dialog),
    (lambda n, p: _ident_is(n, "android:id/alertTitle"), _dialog_title),
    (lambda n, p: _ident_is(n, "android:id/message"), _dialog_message),
    (lambda n, p: _ident_is(n, "android:id/button1"), _dialog_button),
    (lambda n, p: _ident_is(n, ":id/toolbar"), _toolbar),
    (lambda n, p: n.type == "android.widget.ImageButton", _up_button),
    (
        lambda n, p: n.type == "android.widget.TextView" and p is not None and _ident_is(p, ":id/toolbar"),
        _title,
    ),
    (lambda n, p: n.type == "android.widget.LinearLayout" and _has_child(n, "android:id/title"), _row),
    (lambda n, p: _ident_is(n, "android:id/title"), _row_title),
    (lambda n, p: _ident_is(n, "android:id/summary"), _row_summary),
    (lambda n, p: n.type == "android.widget.Switch", _switch),
    (lambda n, p: n.type == "android.widget.EditText", _field),
    (lambda n, p: n.type == "android.widget.Button", _button),
    (lambda n, p: n.type == "android.widget.TextView", _plain_text),
    (
        lambda n, p: n.type == "android.widget.FrameLayout" and p is not None and p.type == "hierarchy",
        _window,
    ),
)
