"""The simulated device's screenshots: drawn once per distinct screen, encoded once per format.

A screen is drawn from its node tree (:func:`sim.draw.picture`); asking again while the tree is
unchanged (a failure screenshot after a look, a report's picture per step on a screen that did not
move) returns the same bytes without drawing again. Only the last screen is kept. Pillow is
imported on the first screenshot, not when the device is built.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .nodes import SimNode

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["PictureCache"]


@dataclass
class _Drawn:
    key: tuple[SimNode, str, tuple[int, int], float, bool]
    image: Image
    encoded: dict[tuple[str, int], bytes] = field(default_factory=dict)


class PictureCache:
    """The last screen drawn and its encodings. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: _Drawn | None = None

    def _drawn(
        self, tree: SimNode, platform: str, size: tuple[int, int], scale: float, dark: bool = False
    ) -> _Drawn:
        key = (tree, platform, size, scale, dark)
        with self._lock:
            last = self._last
            if last is not None and last.key == key:
                return last
        from .draw import picture

        image = picture(tree, platform, size, scale)
        if dark:  # the system's dark appearance (sim.device_state): the colours inverted
            from PIL import ImageOps

            image = ImageOps.invert(image.convert("RGB"))
        drawn = _Drawn(key, image)
        with self._lock:
            self._last = drawn
        return drawn

    def png(
        self,
        tree: SimNode,
        platform: str,
        size: tuple[int, int],
        scale: float,
        alpha: bool = False,
        *,
        dark: bool = False,
    ) -> bytes:
        drawn = self._drawn(tree, platform, size, scale, dark)
        return self._encoded(drawn, "png-rgba" if alpha else "png", 0)

    def jpeg(
        self,
        tree: SimNode,
        platform: str,
        size: tuple[int, int],
        scale: float,
        quality: int,
        *,
        dark: bool = False,
    ) -> bytes:
        if not 1 <= quality <= 100:
            raise ValueError(f"a JPEG screenshot needs a quality from 1 to 100, got {quality}")
        return self._encoded(self._drawn(tree, platform, size, scale, dark), "jpeg", quality)

    def _encoded(self, drawn: _Drawn, kind: str, quality: int) -> bytes:
        form = (kind, quality)
        with self._lock:
            hit = drawn.encoded.get(form)
        if hit is not None:
            return hit
        from .draw import encode_jpeg, encode_png

        if kind == "jpeg":
            data = encode_jpeg(drawn.image, quality)
        else:
            data = encode_png(drawn.image.convert("RGBA") if kind == "png-rgba" else drawn.image)
        with self._lock:
            drawn.encoded[form] = data
        return data
