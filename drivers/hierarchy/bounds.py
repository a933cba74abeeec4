"""Bounds as each XML format writes them: Android's ``"[l,t][r,b]"``, WDA's ``x y width height``."""

from __future__ import annotations

from typing import Final

from ...core.models import Bounds
from .common import EMPTY, new_bounds, rect_bounds

__all__ = ["android_bounds", "ios_bounds"]

_BOUNDS_CACHE_SIZE: Final = 4096
_bounds_cache: dict[str, Bounds] = {}


def android_bounds(raw: str | None) -> Bounds:
    """``"[l,t][r,b]"`` as Bounds (``EMPTY`` when absent); ``ValueError`` when malformed."""
    if raw is None:
        return EMPTY
    bounds = _bounds_cache.get(raw)
    if bounds is not None:
        return bounds
    # Splitting is about a third cheaper than a regex.
    if raw[:1] == "[" and raw[-1:] == "]":
        parts = raw[1:-1].split("][")
        if len(parts) == 2:
            left, top = parts[0].split(",")
            right, bottom = parts[1].split(",")
            bounds = new_bounds(int(left), int(top), int(right), int(bottom))
            if len(_bounds_cache) >= _BOUNDS_CACHE_SIZE:
                _bounds_cache.clear()
            _bounds_cache[raw] = bounds
            return bounds
    raise ValueError(raw)


def _number(raw: str | None) -> float:
    if not raw:
        return 0
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return 0


def ios_bounds(x: str | None, y: str | None, w: str | None, h: str | None) -> Bounds:
    """An element's ``x y width height`` attributes as Bounds; missing or malformed numbers count
    as 0."""
    try:  # whole numbers, as WDA writes them
        left, top = int(x), int(y)  # type: ignore[arg-type]
        return new_bounds(left, top, left + int(w), top + int(h))  # type: ignore[arg-type]
    except (TypeError, ValueError):  # missing, or fractions as some Appium versions write
        return rect_bounds(_number(x), _number(y), _number(w), _number(h))
