"""Draw the simulated device's screen from its layout, so the picture and the UI dump agree.

The layout (:mod:`sim.layout`) builds one :class:`~sim.nodes.SimNode` tree per look; the
renderers turn it into uiautomator XML, WebDriverAgent XML/JSON or Appium source, and this module
paints the same tree: every visible node is drawn inside its own bounds by a painter chosen from
its platform's rule table (:mod:`sim.draw_android`, :mod:`sim.draw_ios`), parents before
children, later windows on top, scrolling containers clipped to their bounds. Nothing is drawn
that the tree does not hold, except decoration inside a node's bounds (icons, switch thumbs, the
keys of Android's keyboard, whose keys uiautomator does not dump either).

Pillow draws it. It is already installed with the clients this project drives (uiautomator2 and
adbutils require it; uiautomator2 hands screenshots out as Pillow images), it encodes PNG and JPEG
itself, and since 10.1 ``ImageFont.load_default(size)`` is a scalable FreeType font embedded in
the package (Aileron Regular), so the same picture comes out on every machine with no font
installed and nothing downloaded. The alternatives were worse for this: the standard library
can write a PNG (the simulated device's first screenshots were one colour) but cannot draw text;
cairo or Skia bindings are large native packages nobody here needs otherwise; an SVG would need a
rasteriser to become the PNG a phone sends. Aileron covers printable ASCII and a few marks (curly
quotes, the ellipsis, the degree sign): a character it has no glyph for is drawn as its closest
ASCII form (NFKD, then a small table: ``é`` as ``e``, a non-breaking hyphen as ``-``), never as a
box; a secure field's bullets are drawn as dots, as the phones do.

Sizes are in the device's units (Android pixels, iOS points) times ``scale``: 1 on Android (a
screenshot has the screen's pixels), 3 on the simulated iPhone (its screenshot is 1170x2532
pixels for a 390x844-point window, as an iPhone 14's is).
"""

from __future__ import annotations

import io

from PIL import Image

from .draw_android import BACKGROUND as ANDROID_BACKGROUND
from .draw_android import CLIP as ANDROID_CLIP
from .draw_android import RULES as ANDROID_RULES
from .draw_canvas import Canvas, paint_tree
from .draw_ios import CLIP as IOS_CLIP
from .draw_ios import RULES as IOS_RULES
from .draw_ios import WHITE as IOS_BACKGROUND
from .nodes import SimNode

__all__ = ["encode_jpeg", "encode_png", "picture"]


def picture(tree: SimNode, platform: str, size: tuple[int, int], scale: float) -> Image.Image:
    """The screen ``tree`` shows on ``platform``, ``size`` device units drawn at ``scale``."""
    if platform == "android":
        canvas = Canvas(size, scale, ANDROID_BACKGROUND)
        paint_tree(canvas, tree, ANDROID_RULES, ANDROID_CLIP)
    else:
        canvas = Canvas(size, scale, IOS_BACKGROUND)
        paint_tree(canvas, tree, IOS_RULES, IOS_CLIP)
    return canvas.image


def encode_png(image: Image.Image) -> bytes:
    """``image`` as PNG bytes (what ``screencap -p``, WebDriverAgent and Appium send)."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=3)
    return out.getvalue()


def encode_jpeg(image: Image.Image, quality: int = 80) -> bytes:
    """``image`` as JPEG bytes (what uiautomator2's ``takeScreenshot`` sends)."""
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=max(1, min(100, int(quality))))
    return out.getvalue()
