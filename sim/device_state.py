"""The simulated phone's own settings, mixed into :class:`~sim.device.SimDevice`: which way its
screen is turned, airplane mode, the system appearance (dark or light), its screen recording and its
gallery. Every face reads and changes these through the device, so a rotation asked over
uiautomator2 shows in the adb shell's ``settings get system user_rotation`` and in the next dump.

- **Orientation.** A turned screen is laid out at its turned size: the window is as wide as the
  portrait one is tall (a 1080x2400 Android screen becomes 2400x1080, a 390x844-point iPhone window
  844x390), the dumps and ``window_size`` report that size, as uiautomator's ``<hierarchy
  rotation="1">`` and WebDriverAgent's window rect do on a turned phone, and screenshots are drawn at
  it (``screencap`` and XCTest screenshots are in the display's current orientation).
- **Appearance.** In dark mode the screenshots are drawn with their colours inverted (white grounds
  black, dark text light); no app here has dark colours of its own, so this stands in for them.
- **Recording.** While a recording runs, every distinct screen the device shows (each look at it)
  is kept as a frame, with when it first showed; stopping draws the frames into an animated PNG
  (APNG, Pillow) that plays them at their pace. A phone's ``screenrecord`` writes H.264 in MP4; no
  video encoder is at hand here, and an APNG plays in every browser the report opens in.
  At most :data:`MAX_FRAMES` frames are kept (a longer recording keeps its first ones).
- **Gallery.** Media added (``add_media``) is kept by name, bounded (:data:`MAX_MEDIA_BYTES` in all).
"""

from __future__ import annotations

import io
import threading
from typing import TYPE_CHECKING

from ..core.errors import StepArgumentError

if TYPE_CHECKING:
    from collections.abc import Callable

    from .nodes import SimNode

__all__ = ["MAX_FRAMES", "MAX_MEDIA_BYTES", "ORIENTATIONS", "DeviceSettings", "recording_png"]

ORIENTATIONS = ("portrait", "landscape_left", "upside_down", "landscape_right")
MAX_FRAMES = 600
MAX_MEDIA_BYTES = 256 * 1024 * 1024
MIN_FRAME_MS = 50  # an APNG frame shows at least this long (browsers clamp shorter ones anyway)
LAST_FRAME_MS = 1000


class DeviceSettings:
    """The part of :class:`~sim.device.SimDevice` this module holds (see the module docstring)."""

    _lock: threading.RLock
    _clock: Callable[[], float]
    platform: str
    changes: int
    portrait_size: tuple[int, int] = (0, 0)
    orientation: str = "portrait"
    airplane: bool = False
    dark: bool = False
    _frames: list[tuple[float, SimNode, tuple[int, int], bool]] | None = None
    _gallery: dict[str, bytes] | None = None

    @property
    def window_size(self) -> tuple[int, int]:
        """The window's size in the device's units, turned with the screen."""
        width, height = self.portrait_size
        return (height, width) if self.orientation.startswith("landscape") else (width, height)

    @window_size.setter
    def window_size(self, size: tuple[int, int]) -> None:
        self.portrait_size = (int(size[0]), int(size[1]))

    @property
    def rotation(self) -> int:
        """Android's rotation number (``Surface.ROTATION_*``, ``user_rotation``): 0, 1, 2 or 3."""
        return ORIENTATIONS.index(self.orientation)

    def set_orientation(self, orientation: str) -> None:
        if orientation not in ORIENTATIONS:
            raise StepArgumentError(
                f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r:.80}"
            )
        with self._lock:
            if orientation != self.orientation:
                self.orientation = orientation
                self.changes += 1

    def set_airplane_mode(self, enabled: bool) -> None:
        with self._lock:
            if bool(enabled) != self.airplane:
                self.airplane = bool(enabled)
                self.changes += 1

    def set_dark_mode(self, enabled: bool) -> None:
        with self._lock:
            if bool(enabled) != self.dark:
                self.dark = bool(enabled)
                self.changes += 1

    # --- the gallery ------------------------------------------------------------------------

    def add_media(self, name: str, data: bytes) -> None:
        """Keep ``data`` in the gallery as ``name`` (its file name); a gallery past
        :data:`MAX_MEDIA_BYTES` refuses it as a full disk does."""
        base = name.replace("\\", "/").rsplit("/", 1)[-1]
        if not base or base in (".", ".."):
            raise StepArgumentError(f"a media file needs a file name, got {name!r:.80}")
        with self._lock:
            gallery = self._gallery if self._gallery is not None else {}
            if sum(len(v) for k, v in gallery.items() if k != base) + len(data) > MAX_MEDIA_BYTES:
                raise StepArgumentError(f"the device has no room for {base} ({len(data)} bytes)")
            gallery[base] = bytes(data)
            self._gallery = gallery
            self.changes += 1

    def gallery(self) -> dict[str, bytes]:
        """The media in the gallery, by file name."""
        with self._lock:
            return dict(self._gallery or {})

    # --- recording --------------------------------------------------------------------------

    @property
    def recording(self) -> bool:
        with self._lock:
            return self._frames is not None

    def start_recording(self) -> None:
        """Start keeping frames (a recording already under way goes on)."""
        with self._lock:
            if self._frames is None:
                self._frames = []
        self.tree()  # the first frame: the screen as the recording starts

    def tree(self) -> SimNode:  # the device's; declared here for the frame it keeps
        raise NotImplementedError

    def _keep_frame(self, tree: SimNode) -> None:
        """Called with each screen shown (the lock held): kept while recording, once per change."""
        frames = self._frames
        if frames is None or len(frames) >= MAX_FRAMES:
            return
        if frames and frames[-1][1] == tree and frames[-1][2] == self.window_size:
            return
        frames.append((self._clock(), tree, self.window_size, self.dark))

    def stop_recording(self) -> bytes:
        """Stop and return the recording as an animated PNG (a still one if the screen never
        changed); an empty bytes when no recording ran."""
        with self._lock:
            self.tree()  # the last frame: the screen as the recording stops
            frames, self._frames = self._frames, None
            stopped = self._clock()
        if not frames:
            return b""
        return recording_png(frames, self.platform, stopped)


def recording_png(
    frames: list[tuple[float, SimNode, tuple[int, int], bool]], platform: str, stopped: float
) -> bytes:
    """``frames`` (when each showed, its tree, the window's size, dark or not) as one APNG whose
    frames last as long as each screen showed; frames of a turned screen are drawn on a canvas large
    enough for both sizes, top left."""
    from PIL import Image, ImageOps

    from .draw import picture

    width = max(size[0] for _, _, size, _ in frames)
    height = max(size[1] for _, _, size, _ in frames)
    images: list[Image.Image] = []
    durations: list[int] = []
    for i, (when, tree, size, dark) in enumerate(frames):
        drawn = picture(tree, platform, size, 1.0).convert("RGB")
        if dark:
            drawn = ImageOps.invert(drawn)
        canvas = Image.new("RGB", (width, height), (0, 0, 0))
        canvas.paste(drawn, (0, 0))
        images.append(canvas)
        until = frames[i + 1][0] if i + 1 < len(frames) else None
        shown = (until - when) * 1000 if until is not None else max(LAST_FRAME_MS, (stopped - when) * 1000)
        durations.append(max(MIN_FRAME_MS, round(shown)))
    out = io.BytesIO()
    images[0].save(
        out,
        format="PNG",
        save_all=len(images) > 1,
        append_images=images[1:],
        duration=durations if len(images) > 1 else durations[0],
        loop=0,
    )
    return out.getvalue()
