"""Turn the simulated device's native node tree straight into a Scene, without any wire format.

``SimDriver`` does not use this: it renders the platform's real dump and parses it, like every
other driver. This direct mapping is an independent oracle the tests compare that path against.
"""

from __future__ import annotations

import time

from ..core.models import Scene, UIElement
from .nodes import SimNode

__all__ = ["to_element", "to_scene"]


def _raw(node: SimNode, platform: str) -> dict[str, str]:
    raw: dict[str, str] = {}
    if node.package:
        raw["package" if platform == "android" else "bundleId"] = node.package
    if node.hint:
        raw["hint" if platform == "android" else "placeholderValue"] = node.hint
    return raw


def to_element(node: SimNode, platform: str) -> UIElement:
    android = platform == "android"
    if android:
        text, label, value = node.text, node.label, None
    else:
        text = node.label or node.value or None
        label, value = node.label, node.value
    return UIElement(
        type=node.type,
        text=text,
        label=label,
        identifier=node.ident,
        value=value,
        bounds=node.bounds,
        enabled=node.enabled,
        visible=node.visible,
        clickable=node.clickable if android else None,
        focusable=node.focusable if android else None,
        focused=node.focused,
        selected=node.selected,
        checked=node.checked if (android or node.checkable or node.type.endswith("Switch")) else None,
        scrollable=node.scrollable if android else None,
        password=node.password,
        children=tuple(to_element(child, platform) for child in node.children),
        attributes=_raw(node, platform),
    )


def to_scene(
    tree: SimNode,
    *,
    device_id: str,
    platform: str,
    foreground_app: str | None,
    activity: str | None,
    window_size: tuple[int, int],
    backend: str = "sim",
    started: float | None = None,
) -> Scene:
    start = time.perf_counter() if started is None else started
    root = to_element(tree, platform)
    return Scene(
        device_id=device_id,
        platform="android" if platform == "android" else "ios",
        root=root,
        foreground_app=foreground_app,
        activity=activity,
        window_size=window_size,
        backend=backend,
        capture_duration=time.perf_counter() - start,
    )
