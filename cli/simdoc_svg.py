"""A simulated screen's node tree drawn as a small SVG for ``docs/simulated-device.md``: boxes for
bars, rows, buttons, fields and switches, the texts a client reads, in the tree's coordinates.

A drawing, not a screenshot (the screenshots the faces send are ``sim/draw.py``'s): no icons, one
font, texts cut to their box. Deterministic, so the docs test can compare it byte for byte.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ..core.models import Bounds, Platform
from ..sim.nodes import SimNode

__all__ = ["svg"]

WIDTH = 240  # the picture's width on the page, in CSS pixels
_BAR = "#e4e6eb"
_BOX = "#eef2fb"
_LINE = "#b9bfcc"
_INK = "#1d1f24"
_HINT = "#8a8f99"


def _kind(node: SimNode) -> str:
    t, ident = node.type, node.ident or ""
    if ident.endswith(":id/status_bar_container") or ident.endswith(":id/toolbar"):
        return "bar"
    if t == "XCUIElementTypeNavigationBar" or t == "XCUIElementTypeStatusBar":
        return "bar"
    if t in ("android.widget.EditText", "XCUIElementTypeTextField", "XCUIElementTypeSecureTextField"):
        return "field"
    if t in ("android.widget.Switch", "XCUIElementTypeSwitch"):
        return "switch"
    if t == "XCUIElementTypeAlert" or any(c.ident == "android:id/alertTitle" for c in node.children):
        return "dialog"
    if t in ("android.widget.Button", "XCUIElementTypeButton", "XCUIElementTypeCell", "XCUIElementTypeIcon"):
        return "box"
    if node.ref is not None and node.ref.startswith("widget:") and node.children:
        return "box"  # an Android row: a clickable LinearLayout around its texts
    return "text"


def _rect(b: Bounds, fill: str, stroke: str | None = None, radius: int = 0, opacity: float = 1.0) -> str:
    line = f' stroke="{stroke}" stroke-width="2"' if stroke else ""
    line += f' fill-opacity="{opacity}"' if opacity != 1.0 else ""
    return (
        f'<rect x="{b.left}" y="{b.top}" width="{b.right - b.left}" height="{b.bottom - b.top}" '
        f'rx="{radius}" fill="{fill}"{line}/>'
    )


def _text(b: Bounds, text: str, size: int, colour: str = _INK) -> str:
    room = max(4, int((b.right - b.left) / (size * 0.5)))
    first = text.split("\n", 1)[0]
    shown = first if len(first) <= room and first == text else first[: room - 1] + "…"
    y = (b.top + b.bottom) // 2 + size // 3
    return f'<text x="{b.left + size // 4}" y="{y}" font-size="{size}" fill="{colour}">{escape(shown)}</text>'


def _words(node: SimNode, platform: Platform) -> str | None:
    if platform == "android":
        return node.text or None
    if node.type in ("XCUIElementTypeStaticText", "XCUIElementTypeButton", "XCUIElementTypeIcon"):
        return node.label or node.value or None
    return None


def _draw(node: SimNode, window: Bounds, platform: Platform, size: int, out: list[str]) -> None:
    if not node.visible or node.hidden or node.bounds.intersection(window) is None:
        return
    b, kind = node.bounds, _kind(node)
    if kind == "bar":
        out.append(_rect(b, _BAR))
    elif kind == "dialog":
        out.append(_rect(window, "#000000", opacity=0.35))
        out.append(_rect(b, "#ffffff", _LINE, radius=size))
    elif kind == "box":
        out.append(_rect(b, _BOX, _LINE, radius=size // 3))
    elif kind == "field":
        out.append(_rect(b, "#ffffff", _HINT, radius=size // 4))
        typed = node.text if platform == "android" else node.value
        hint = node.hint or ""
        if typed and typed != hint:
            out.append(_text(b, typed, size))
        elif hint:
            out.append(_text(b, hint, size, _HINT))
        return
    elif kind == "switch":
        on = node.checked
        pill = Bounds(
            b.right - size * 2, b.top + (b.bottom - b.top) // 4, b.right, b.bottom - (b.bottom - b.top) // 4
        )
        out.append(_rect(pill, "#34c759" if on else "#c7c7cc", radius=size))
        return
    words = _words(node, platform)
    if words and kind != "dialog":
        out.append(_text(b, words, size))
    for child in node.children:
        _draw(child, window, platform, size, out)


def svg(tree: SimNode, window_size: tuple[int, int], platform: Platform) -> str:
    """The screen ``tree`` shows, as an SVG document of ``WIDTH`` CSS pixels across."""
    width, height = window_size
    size = 40 if platform == "android" else 15
    window = Bounds(0, 0, width, height)
    body: list[str] = [_rect(window, "#fafafa", _LINE)]
    windows = tree.children if tree.type == "hierarchy" else ()
    if windows:  # Android: each window in turn; one over the app's other than the status bar is a dialog
        for i, child in enumerate(windows):
            if (
                i > 0
                and child.package != windows[0].package
                and not (child.ident or "").endswith("status_bar_container")
            ):
                body.append(_rect(window, "#000000", opacity=0.35))
                body.append(_rect(child.bounds, "#ffffff", _LINE, radius=size))
            _draw(child, window, platform, size, body)
    else:
        _draw(tree, window, platform, size, body)
    shown_height = round(WIDTH * height / width)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{shown_height}" '
        f'viewBox="0 0 {width} {height}" font-family={quoteattr("Helvetica, Arial, sans-serif")}>'
    )
    return "\n".join([head, *body, "</svg>"]) + "\n"
