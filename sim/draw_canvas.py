"""The canvas the simulated device's screen is painted on, and the walk that paints a node tree
with a platform's rule table (:mod:`sim.draw_android`, :mod:`sim.draw_ios`); :mod:`sim.draw` says
what is drawn and why Pillow draws it.

Its own module, under the rule tables and :func:`sim.draw.picture` that chooses one, so a rule table
imports what it paints with without importing the module that imports it.
"""

from __future__ import annotations

import unicodedata
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from ..core.models import Bounds
from .nodes import SimNode

__all__ = [
    "BULLET",
    "Canvas",
    "Clip",
    "Painter",
    "Rule",
    "clip_to_bounds",
    "paint_tree",
    "printable",
    "tint",
]

RGB = tuple[int, int, int]
Align = Literal["left", "center", "right"]
Painter = Callable[["Canvas", SimNode], None]
# (does this rule apply to the node, given its parent; how to paint it): the first that applies paints.
Rule = tuple[Callable[[SimNode, SimNode | None], bool], Painter]
# Where a node's children may draw (None: anywhere), given the node and the window.
Clip = Callable[[SimNode, Bounds], Bounds | None]

BULLET = "\u2022"
MIN_FONT_PX = 6
_FALLBACK = {
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2026": "...",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
}


@lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=px)
    except (ImportError, OSError):  # a Pillow built without FreeType: its fixed bitmap font
        return ImageFont.load_default_imagefont()


@lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    # The embedded font answers characters it lacks with its .notdef box.
    return bytes(_font(40).getmask("\U0010fffd"))


@lru_cache(maxsize=4096)
def _glyph_ok(ch: str) -> bool:
    if ch.isspace() or (" " <= ch <= "~"):
        return True
    return bytes(_font(40).getmask(ch)) != _missing_glyph()


@lru_cache(maxsize=4096)
def _ascii_form(ch: str) -> str:
    if ch in _FALLBACK:
        return _FALLBACK[ch]
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    return plain or "?"


def printable(text: str) -> str:
    """``text`` with every character the font cannot draw replaced by its closest ASCII form."""
    return "".join(ch if _glyph_ok(ch) else _ascii_form(ch) for ch in text)


@dataclass(frozen=True)
class _Region:
    image: Image.Image
    draw: ImageDraw.ImageDraw
    origin: tuple[int, int]  # top-left of this region in device units


class Canvas:
    """A picture of a ``size`` screen (device units) drawn at ``scale`` pixels per unit."""

    def __init__(self, size: tuple[int, int], scale: float, background: RGB) -> None:
        if size[0] <= 0 or size[1] <= 0 or not 0 < scale <= 8:
            raise ValueError(f"cannot draw a {size[0]}x{size[1]} screen at scale {scale}")
        self.size = size
        self.scale = scale
        image = Image.new("RGB", self._px_size(size), background)
        self._region = _Region(image, ImageDraw.Draw(image), (0, 0))

    @property
    def window(self) -> Bounds:
        return Bounds(0, 0, self.size[0], self.size[1])

    @property
    def image(self) -> Image.Image:
        return self._region.image

    def _px_size(self, size: tuple[int, int]) -> tuple[int, int]:
        return max(1, round(size[0] * self.scale)), max(1, round(size[1] * self.scale))

    def _box(self, left: float, top: float, right: float, bottom: float) -> tuple[int, int, int, int]:
        ox, oy = self._region.origin
        s = self.scale
        return (
            round((left - ox) * s),
            round((top - oy) * s),
            max(round((left - ox) * s), round((right - ox) * s) - 1),
            max(round((top - oy) * s), round((bottom - oy) * s) - 1),
        )

    def _point(self, x: float, y: float) -> tuple[float, float]:
        ox, oy = self._region.origin
        return (x - ox) * self.scale, (y - oy) * self.scale

    # --- shapes -----------------------------------------------------------------------------

    def rect(
        self,
        b: Bounds,
        fill: RGB | None = None,
        *,
        outline: RGB | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        """A rectangle covering ``b`` (rounded by ``radius`` units), filled and/or outlined."""
        if b.is_empty():
            return
        box = self._box(b.left, b.top, b.right, b.bottom)
        line = max(1, round(width * self.scale)) if outline is not None else 0
        if radius > 0:
            r = min(radius * self.scale, (box[2] - box[0]) / 2, (box[3] - box[1]) / 2)
            self._region.draw.rounded_rectangle(box, radius=r, fill=fill, outline=outline, width=line)
        else:
            self._region.draw.rectangle(box, fill=fill, outline=outline, width=line)

    def circle(self, cx: float, cy: float, r: float, fill: RGB, *, outline: RGB | None = None) -> None:
        x, y = self._point(cx, cy)
        rr = r * self.scale
        width = max(1, round(self.scale)) if outline is not None else 0
        self._region.draw.ellipse((x - rr, y - rr, x + rr, y + rr), fill=fill, outline=outline, width=width)

    def line(self, x1: float, y1: float, x2: float, y2: float, color: RGB, width: float = 1) -> None:
        self._region.draw.line(
            (*self._point(x1, y1), *self._point(x2, y2)), fill=color, width=max(1, round(width * self.scale))
        )

    def polygon(self, points: Sequence[tuple[float, float]], fill: RGB) -> None:
        self._region.draw.polygon([self._point(x, y) for x, y in points], fill=fill)

    def gradient(self, b: Bounds, top: RGB, bottom: RGB, *, bands: int = 48) -> None:
        """Fill ``b`` from ``top``'s colour to ``bottom``'s, in horizontal bands (a wallpaper)."""
        for i in range(bands):
            t = i / (bands - 1)
            colour = (
                round(top[0] + (bottom[0] - top[0]) * t),
                round(top[1] + (bottom[1] - top[1]) * t),
                round(top[2] + (bottom[2] - top[2]) * t),
            )
            band = Bounds(b.left, b.top + b.height * i // bands, b.right, b.top + b.height * (i + 1) // bands)
            self.rect(band, colour)

    def dim(self, alpha: float) -> None:
        """Darken everything drawn so far (a dialog's scrim), ``alpha`` from 0 to 1."""
        region = self._region
        shade = Image.new("RGB", region.image.size, (0, 0, 0))
        region.image.paste(Image.blend(region.image, shade, alpha))

    # --- text -------------------------------------------------------------------------------

    def text(
        self,
        b: Bounds,
        text: str,
        *,
        size: float,
        color: RGB,
        align: Align = "left",
        min_size: float | None = None,
    ) -> Bounds | None:
        """Draw one line of ``text`` inside ``b``, vertically centred: at ``size`` units, shrunk
        down to ``min_size`` to fit the width, then cut with ``...``. Returns where the ink went
        (device units), or None when nothing could be drawn."""
        shown = printable(text.replace("\n", " ")).strip()
        if not shown or b.is_empty() or b.height < size * 0.5:
            return None  # nothing, or a sliver at a list's edge: no room for a readable line
        px = max(MIN_FONT_PX, round(min(size, b.height * 0.92) * self.scale))
        least = max(MIN_FONT_PX, round((min_size if min_size is not None else size * 0.8) * self.scale))
        room = b.width * self.scale
        font = _font(px)
        while font.getlength(shown) > room and px > least:
            px -= 1
            font = _font(px)
        if font.getlength(shown) > room:
            shown = self._cut(shown, font, room)
            if not shown:
                return None
        width = font.getlength(shown)
        left, top, right, bottom = self._box(b.left, b.top, b.right, b.bottom)
        x = {"left": left, "center": (left + right - width) / 2, "right": right - width}[align]
        y = (top + bottom) / 2
        self._region.draw.text((x, y), shown, font=font, fill=color, anchor="lm")
        ink = self._region.draw.textbbox((x, y), shown, font=font, anchor="lm")
        ox, oy = self._region.origin
        s = self.scale
        return Bounds(
            int(ink[0] / s + ox), int(ink[1] / s + oy), int(ink[2] / s + ox) + 1, int(ink[3] / s + oy) + 1
        )

    @staticmethod
    def _cut(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, room: float) -> str:
        for end in range(len(text) - 1, 0, -1):
            candidate = text[:end].rstrip() + "..."
            if font.getlength(candidate) <= room:
                return candidate
        return ""

    def dots(self, b: Bounds, count: int, color: RGB, *, radius: float) -> None:
        """``count`` dots from the left of ``b``, vertically centred: a secure field's text."""
        step = radius * 3
        cy = (b.top + b.bottom) / 2
        for i in range(min(count, max(0, int((b.width - radius) // step)))):
            self.circle(b.left + radius + i * step, cy, radius, color)

    # --- clipping ---------------------------------------------------------------------------

    @contextmanager
    def clipped(self, b: Bounds) -> Iterator[None]:
        """Draw what follows into ``b`` only (a list's rows do not spill over its bar)."""
        outer = self._region
        inside = b.intersection(Bounds(outer.origin[0], outer.origin[1], *self._limit(outer)))
        if inside is None:
            # Nothing of the area is on this canvas: draw into a throwaway region.
            scratch = Image.new("RGB", (1, 1))
            self._region = _Region(scratch, ImageDraw.Draw(scratch), (b.left, b.top))
            try:
                yield
            finally:
                self._region = outer
            return
        box = self._box(inside.left, inside.top, inside.right, inside.bottom)
        piece = outer.image.crop((box[0], box[1], box[2] + 1, box[3] + 1))
        self._region = _Region(piece, ImageDraw.Draw(piece), (inside.left, inside.top))
        try:
            yield
        finally:
            self._region = outer
            outer.image.paste(piece, (box[0], box[1]))

    def _limit(self, region: _Region) -> tuple[int, int]:
        w, h = region.image.size
        return region.origin[0] + int(w / self.scale), region.origin[1] + int(h / self.scale)


def clip_to_bounds(node: SimNode, window: Bounds) -> Bounds | None:
    """Where a node's children may draw: a scrolling container's bounds, else anywhere."""
    return node.bounds if node.scrollable else None


def tint(colours: Sequence[RGB], key: str) -> RGB:
    """One of ``colours`` for ``key``, the same every time (an icon's colour from its name)."""
    return colours[zlib.crc32(key.encode("utf-8")) % len(colours)]


def paint_tree(canvas: Canvas, root: SimNode, rules: Sequence[Rule], clip: Clip = clip_to_bounds) -> None:
    """Paint ``root`` and its visible descendants, parents first, each with the first rule that
    applies; the children of a node are kept inside the area ``clip`` gives for it."""

    def paint(node: SimNode, parent: SimNode | None) -> None:
        if not node.visible:
            return
        for applies, painter in rules:
            if applies(node, parent):
                painter(canvas, node)
                break
        if not node.children:
            return
        area = clip(node, canvas.window)
        if area is not None:
            with canvas.clipped(area):
                for child in node.children:
                    paint(child, node)
        else:
            for child in node.children:
                paint(child, node)

    paint(root, None)
