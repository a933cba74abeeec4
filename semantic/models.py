"""What a screen means, as opposed to what is on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.models import Scene

__all__ = ["Observation", "SemanticScene"]


@dataclass(frozen=True)
class SemanticScene:
    """A page identity for one Scene, plus what else the enricher could tell.

    ``page`` is required and non-empty; every other field is optional. ``source`` says how the
    page was derived (``"activity"``, ``"title"`` …) so a planner can judge how far to trust it.
    ``alert`` names what covers the app (the dialog's title, or "Lock screen" …) and ``cover`` says
    what kind of cover it is (:data:`amc.core.apps.COVER_KINDS`).
    """

    page: str
    title: str | None = None
    app: str | None = None
    activity: str | None = None
    source: str | None = None
    keyboard_visible: bool = False
    alert: str | None = None
    cover: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.page, str) or not self.page.strip():
            raise ValueError(f"SemanticScene.page must be a non-empty string, got {self.page!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "title": self.title,
            "app": self.app,
            "activity": self.activity,
            "source": self.source,
            "keyboard_visible": self.keyboard_visible,
            "alert": self.alert,
            "cover": self.cover,
        }


@dataclass(frozen=True)
class Observation:
    """One look at the device, built once by the task loop: the Scene and what it means.

    This is what a planner is handed and what the world model folds in, so both read the same
    screen. ``semantic`` is None when enrichment is off or could not name the page.
    """

    scene: Scene
    semantic: SemanticScene | None = None

    @property
    def page(self) -> str | None:
        return self.semantic.page if self.semantic is not None else None

    @property
    def foreground_app(self) -> str | None:
        return self.scene.foreground_app
