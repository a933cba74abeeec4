"""What the harness believes about the device during one task: frozen values, replaced per update.

A :class:`WorldState` never changes once made: :class:`amc.world.model.WorldModel` builds the next
one after each step, so a planner (or anyone else) holding a state holds exactly what was believed
when it was handed out, and cannot change what the task believes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from ..core.models import jsonable
from ..core.steps import REDACTED

__all__ = ["REDACTED", "WorldEvent", "WorldState", "frozen"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def frozen(value: Any) -> Any:
    """``value`` made read-only all the way down: mappings become read-only mappings, lists and
    tuples tuples, sets frozensets; anything else is kept as it is."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(value)
    return value


@dataclass(frozen=True)
class WorldEvent:
    """One executed step as the world model remembers it.

    ``args`` is a read-only copy with secrets hidden. ``page`` is ``WorldState.current_page`` when
    the record was made (after this step's own observation was applied). ``scene_summary`` is
    optional and kept only for older readers: the step's SemanticScene when there was one.
    """

    action: str
    args: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    success: bool = False
    page: str | None = None
    rationale: str | None = None
    thinking: str | None = None
    purpose: str | None = None
    expected_outcome: str | None = None
    error: str | None = None
    scene_summary: Any = None
    timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        if not isinstance(self.args, MappingProxyType):
            object.__setattr__(self, "args", frozen(self.args if isinstance(self.args, Mapping) else {}))

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


@dataclass(frozen=True)
class WorldState:
    """Per-task belief: the app and page in front, remembered variables, recent steps.

    ``current_app`` follows successful launch/terminate steps; ``observed_app`` is what the device
    last reported in a Scene, so a planner can see when the two disagree; ``overlay`` names the
    alert or system dialog covering the app in the last observation (None when nothing does, or
    when the semantic layer is off). ``history`` holds the
    last ``history_size`` steps, oldest first. Variables named in ``secret_variables`` keep their
    value for the planner but are shown as ``***`` by ``to_dict()``, which is what timelines and
    reports use. Every field is read-only (``variables`` is a read-only mapping of read-only
    values); only the world model makes new states.
    """

    current_app: str | None = None
    current_page: str | None = None
    variables: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    history: tuple[WorldEvent, ...] = ()
    observed_app: str | None = None
    secret_variables: frozenset[str] = frozenset()
    history_size: int = 10
    overlay: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.variables, MappingProxyType):
            object.__setattr__(self, "variables", frozen(self.variables))
        if not isinstance(self.history, tuple):
            object.__setattr__(self, "history", tuple(self.history))
        if not isinstance(self.secret_variables, frozenset):
            object.__setattr__(self, "secret_variables", frozenset(self.secret_variables))
        if (
            isinstance(self.history_size, bool)
            or not isinstance(self.history_size, int)
            or self.history_size < 1
        ):
            raise ValueError(f"WorldState.history_size must be a positive integer, got {self.history_size!r}")
        if len(self.history) > self.history_size:
            object.__setattr__(self, "history", self.history[-self.history_size :])

    @classmethod
    def empty(cls, history_size: int = 10) -> WorldState:
        return cls(history_size=history_size)

    @property
    def last_event(self) -> WorldEvent | None:
        return self.history[-1] if self.history else None

    def with_event(self, event: WorldEvent) -> tuple[WorldEvent, ...]:
        """The history with ``event`` appended and the oldest dropped past ``history_size``."""
        kept: Iterable[WorldEvent] = self.history[-(self.history_size - 1) :] if self.history_size > 1 else ()
        return (*kept, event)

    def to_dict(self) -> dict[str, Any]:
        return {
            "current_app": self.current_app,
            "current_page": self.current_page,
            "observed_app": self.observed_app,
            "overlay": self.overlay,
            "variables": {
                key: REDACTED if key in self.secret_variables else jsonable(value)
                for key, value in self.variables.items()
            },
            "history": [event.to_dict() for event in self.history],
        }
