"""What the harness believes about the device during one task."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core.models import jsonable

__all__ = ["REDACTED", "WorldEvent", "WorldState"]

REDACTED = "***"


@dataclass(frozen=True)
class WorldEvent:
    """One executed step as the world model remembers it.

    ``page`` is ``WorldState.current_page`` when the record was made (after this step's own
    observation was applied). ``scene_summary`` is optional and kept only for older readers: the
    step's SemanticScene when there was one, else None.
    """

    action: str
    args: dict[str, Any]
    success: bool
    page: str | None = None
    rationale: str | None = None
    thinking: str | None = None
    purpose: str | None = None
    expected_outcome: str | None = None
    error: str | None = None
    scene_summary: Any = None
    timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "args": jsonable(self.args),
            "success": self.success,
            "page": self.page,
            "rationale": self.rationale,
            "thinking": self.thinking,
            "purpose": self.purpose,
            "expected_outcome": self.expected_outcome,
            "error": self.error,
            "scene_summary": jsonable(self.scene_summary),
            "timestamp": self.timestamp.isoformat(),
        }


def _history(maxlen: int = 10) -> deque[WorldEvent]:
    return deque(maxlen=maxlen)


@dataclass
class WorldState:
    """Per-task belief: the app and page in front, remembered variables, recent steps.

    A planner reads it and must not change it; only :class:`world.model.WorldModel` writes.
    Variables named in ``secret_variables`` keep their value for the planner but are shown as
    ``***`` by ``to_dict()``, which is what timelines and reports use.
    ``current_app`` follows successful launch/terminate steps; ``observed_app`` is what the
    device last reported in a Scene, so a planner can see when the two disagree.
    """

    current_app: str | None = None
    current_page: str | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    history: deque[WorldEvent] = field(default_factory=_history)
    observed_app: str | None = None
    secret_variables: set[str] = field(default_factory=set)

    @classmethod
    def empty(cls, history_size: int) -> WorldState:
        return cls(history=deque(maxlen=history_size))

    @property
    def history_size(self) -> int | None:
        return self.history.maxlen

    @property
    def last_event(self) -> WorldEvent | None:
        return self.history[-1] if self.history else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "current_app": self.current_app,
            "current_page": self.current_page,
            "observed_app": self.observed_app,
            "variables": {
                key: REDACTED if key in self.secret_variables else jsonable(value)
                for key, value in self.variables.items()
            },
            "history": [event.to_dict() for event in self.history],
        }
