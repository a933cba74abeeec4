"""What the screenshot actions share: a picture cropped to an element (Maestro's ``cropOn``:
the element's bounds, found as ``tapOn`` finds it, cut out of the screenshot,
``Orchestra.kt`` ``takeScreenshotCommand`` / ``assertScreenshotCommand``), and Maestro's comparison
of a picture with a reference (``ScreenshotMatch.kt``: the share of pixels whose colours lie within
10 % of the largest RGB distance, which must reach ``thresholdPercentage``)."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed, DeviceError, HarnessError, TargetNotFound
from ..core.selectors import Selector
from .base import Screen

__all__ = ["PIXEL_TOLERANCE", "crop", "match_percentage", "open_image"]

PIXEL_TOLERANCE = 0.1  # ScreenshotMatch.DEFAULT_PIXEL_TOLERANCE
MAX_PIXELS = 64_000_000  # a reference or screenshot larger than this is refused, not decoded


def open_image(data: bytes, what: str, error: type[HarnessError] = DeviceError) -> Any:
    """``data`` decoded as an RGB Pillow image; ``error`` naming ``what`` when it is not one (a
    device's screenshot: ``DeviceError``; a flow's reference picture: ``AssertionFailed``, as
    Maestro's "Failed to read image file")."""
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        if image.width * image.height > MAX_PIXELS:
            raise error(f"{what} is {image.width}x{image.height} pixels; the limit is {MAX_PIXELS}")
        return image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise error(f"{what} is not a picture Pillow can read: {exc}") from None


def crop(picture: bytes, target: Mapping[str, Any], screen: Screen) -> bytes:
    """``picture`` cut to the element ``target`` finds on the screen now (its bounds, in the
    window's units, scaled to the picture's pixels), as PNG."""
    scene = screen.observe().scene
    elements = Selector.from_mapping(target).find_all(scene)
    if not elements:
        raise TargetNotFound(f"cropOn: no element matches {Selector.from_mapping(target).describe()}")
    bounds = elements[0].bounds
    if bounds.width <= 0 or bounds.height <= 0:
        raise AssertionFailed(
            f"Cannot crop screenshot: the element has invalid dimensions (width: {bounds.width}, "
            f"height: {bounds.height})"
        )
    image = open_image(picture, "the screenshot")
    width = scene.window_size[0] or image.width
    scale = image.width / width
    box = (
        max(0, math.floor(bounds.left * scale)),
        max(0, math.floor(bounds.top * scale)),
        min(image.width, math.ceil(bounds.right * scale)),
        min(image.height, math.ceil(bounds.bottom * scale)),
    )
    out = io.BytesIO()
    image.crop(box).save(out, format="PNG")
    return out.getvalue()


def match_percentage(expected: Any, actual: Any, tolerance: float = PIXEL_TOLERANCE) -> float:
    """The share (0-100) of pixels of two same-sized RGB images within ``tolerance`` of each other:
    a pixel differs when its squared RGB distance exceeds ``(tolerance * sqrt(3 * 255**2))**2``."""
    from PIL import ImageChops, ImageMath

    total = expected.width * expected.height
    if total == 0:
        return 100.0
    r, g, b = (band.convert("I") for band in ImageChops.difference(expected, actual).split())
    limit = (tolerance * math.sqrt(255.0 * 255.0 * 3)) ** 2
    squared = ImageMath.lambda_eval(
        lambda v: v["r"] * v["r"] + v["g"] * v["g"] + v["b"] * v["b"], r=r, g=g, b=b
    )
    over = ImageMath.lambda_eval(lambda v: v["s"] > limit, s=squared)
    differing: int = over.convert("L").histogram()[1]
    return float(100.0 - differing / total * 100.0)
