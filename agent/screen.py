"""The screen as an agent reads it: a compact list of the elements worth acting on.

Each element gets a short ref (``e1``, ``e2`` … in document order) and the flow selector that
finds it on this screen: the first of ``{id}``, ``{text}``, ``{label}``, ``{text, type}`` and
``{type}`` that finds that element alone, else the first whose first match it is, else the one
that finds it at the smallest ``index``. Every selector is checked against the Scene with the
selector code the executor resolves targets with, so passing it back as ``target`` acts on that
element.

Listed are the visible elements on screen that say something (text, label, identifier, value)
or can be acted on (clickable, focusable, scrollable, checkable); layout containers with neither
are left out, and the list stops at ``limit`` elements (``omitted`` says how many more). The text
and value of a password field are shown as ``***``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.models import Scene, UIElement
from ..core.selectors import Selector
from ..core.steps import REDACTED
from ..semantic.models import Observation

__all__ = ["DEFAULT_LIMIT", "CompactScreen", "ScreenElement", "compact_screen", "short_type"]

DEFAULT_LIMIT = 80
MAX_TEXT = 120
_IOS_PREFIX = "XCUIElementType"


def short_type(native: str) -> str:
    """``android.widget.Button`` and ``XCUIElementTypeButton`` -> ``Button``."""
    if native.startswith(_IOS_PREFIX):
        return native[len(_IOS_PREFIX) :]
    return native.rsplit(".", 1)[-1]


def _said(value: str | None) -> str | None:
    """A text worth showing: None for nothing or only blanks."""
    return value if value is not None and value.strip() else None


def _cut(value: str | None) -> str | None:
    if value is None:
        return None
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…"


@dataclass(frozen=True)
class ScreenElement:
    """One listed element: its ref, what it shows, where it is, and the selector that finds it."""

    ref: str
    type: str
    target: Mapping[str, Any]
    bounds: tuple[int, int, int, int]
    text: str | None = None
    label: str | None = None
    id: str | None = None
    value: str | None = None
    flags: tuple[str, ...] = ()

    def to_text(self) -> str:
        """One line, e.g. ``e3 Button "Sign in" id=login [40,900][1040,1020] clickable target={…}``."""
        parts = [self.ref, self.type]
        if self.text is not None:
            parts.append(json.dumps(self.text, ensure_ascii=False))
        if self.label is not None:
            parts.append(f"label={json.dumps(self.label, ensure_ascii=False)}")
        if self.id is not None:
            parts.append(f"id={self.id}")
        if self.value is not None:
            parts.append(f"value={json.dumps(self.value, ensure_ascii=False)}")
        left, top, right, bottom = self.bounds
        parts.append(f"[{left},{top}][{right},{bottom}]")
        parts.extend(self.flags)
        parts.append("target=" + json.dumps(dict(self.target), ensure_ascii=False, separators=(",", ":")))
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ref": self.ref, "type": self.type}
        for name in ("text", "label", "id", "value"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["bounds"] = list(self.bounds)
        if self.flags:
            out["flags"] = list(self.flags)
        out["target"] = dict(self.target)
        return out


@dataclass(frozen=True)
class CompactScreen:
    """What an agent is shown of one observation."""

    platform: str
    device_id: str
    app: str | None
    activity: str | None
    page: str | None
    title: str | None
    overlay: str | None
    keyboard: bool
    window: tuple[int, int]
    elements: tuple[ScreenElement, ...]
    omitted: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "device_id": self.device_id,
            "foreground_app": self.app,
            "activity": self.activity,
            "page": self.page,
            "title": self.title,
            "overlay": self.overlay,
            "keyboard_visible": self.keyboard,
            "window": list(self.window),
            "elements": [e.to_dict() for e in self.elements],
            "omitted_elements": self.omitted,
        }

    def to_text(self) -> str:
        """A header line (app, page, overlay, keyboard, window), then one line per element."""
        width, height = self.window
        head = [
            f"{self.platform} {self.device_id}: app {self.app or 'unknown'}",
            f"page {self.page or 'unknown'}"
            + (f" ({json.dumps(self.title, ensure_ascii=False)})" if self.title else ""),
            f"overlay {self.overlay or 'none'}",
            "keyboard shown" if self.keyboard else "keyboard hidden",
            f"window {width}x{height}",
        ]
        lines = [", ".join(head)]
        lines += [e.to_text() for e in self.elements]
        if self.omitted:
            lines.append(f"… and {self.omitted} more elements")
        return "\n".join(lines)


_FLAGS = ("clickable", "focusable", "focused", "selected", "checked", "scrollable")


def _flags(el: UIElement) -> tuple[str, ...]:
    flags = [name for name in _FLAGS if getattr(el, name)]
    if not el.enabled:
        flags.append("disabled")
    if el.password:
        flags.append("password")
    return tuple(flags)


def _worth_listing(el: UIElement, scene: Scene) -> bool:
    if not el.visible or el.bounds.is_empty():
        return False
    window = scene.window
    if not window.is_empty() and el.bounds.intersection(window) is None:
        return False
    says = _said(el.text) or _said(el.label) or _said(el.identifier) or _said(el.value)
    acts = el.clickable or el.focusable or el.scrollable or el.checked is not None
    return bool(says or acts)


def _short_id(identifier: str) -> str:
    return identifier.split(":id/", 1)[1] if ":id/" in identifier else identifier


def _candidates(el: UIElement) -> list[dict[str, Any]]:
    kind = short_type(el.type)
    identifier, text, label = _said(el.identifier), _said(el.text), _said(el.label)
    if el.password:
        text = None
    found: list[dict[str, Any]] = []
    if identifier:
        found.append({"id": _short_id(identifier)})
    if text:
        found.append({"text": text})
    if label:
        found.append({"label": label})
    if text:
        found.append({"text": text, "type": kind})
    found.append({"type": kind})
    return found


class _Finder:
    """Selectors checked against one Scene, each resolved once."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self._found: dict[str, list[UIElement]] = {}

    def matches(self, fields: Mapping[str, Any]) -> list[UIElement]:
        key = repr(sorted(fields.items()))
        if key not in self._found:
            self._found[key] = Selector.from_mapping(fields).find_all(self.scene)
        return self._found[key]

    def target(self, el: UIElement) -> dict[str, Any]:
        """The first candidate that finds ``el`` alone; else the first whose first match is ``el``;
        else the one that finds it at the smallest ``index``."""
        first: dict[str, Any] | None = None
        best: dict[str, Any] | None = None
        best_index = -1
        for fields in _candidates(el):
            found = self.matches(fields)
            position = next((i for i, other in enumerate(found) if other is el), None)
            if position is None:
                continue
            if len(found) == 1:
                return fields
            if position == 0 and first is None:
                first = fields
            elif position > 0 and (best is None or position < best_index):
                best, best_index = fields, position
        if first is not None:
            return first
        if best is None:  # not found by its own fields (cannot happen for a visible element)
            return {"type": short_type(el.type)}
        return {**best, "index": best_index}


def compact_screen(observation: Observation, *, limit: int = DEFAULT_LIMIT) -> CompactScreen:
    """``observation`` as an agent is shown it (see the module docstring)."""
    scene = observation.scene
    semantic = observation.semantic
    finder = _Finder(scene)
    listed: list[ScreenElement] = []
    omitted = 0
    for el in scene.root.iter():
        if not _worth_listing(el, scene):
            continue
        if len(listed) >= limit:
            omitted += 1
            continue
        secret = bool(el.password)
        text, label, value = _said(el.text), _said(el.label), _said(el.value)
        b = el.bounds
        listed.append(
            ScreenElement(
                ref=f"e{len(listed) + 1}",
                type=short_type(el.type),
                target=finder.target(el),
                bounds=(b.left, b.top, b.right, b.bottom),
                text=REDACTED if secret and text else _cut(text),
                label=_cut(label) if label != text else None,
                id=_said(el.identifier),
                value=REDACTED if secret and value else _cut(value) if value not in (text, label) else None,
                flags=_flags(el),
            )
        )
    return CompactScreen(
        platform=scene.platform,
        device_id=scene.device_id,
        app=scene.foreground_app,
        activity=scene.activity,
        page=semantic.page if semantic is not None else None,
        title=semantic.title if semantic is not None else None,
        overlay=semantic.alert if semantic is not None else None,
        keyboard=semantic.keyboard_visible if semantic is not None else False,
        window=scene.window_size,
        elements=tuple(listed),
        omitted=omitted,
    )
