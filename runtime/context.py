"""Everything one task run has seen and done, in one object the planner can read."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..core.models import PlannedStep, Scene, StepResult
from ..world.models import WorldState

__all__ = ["StepRecord", "TaskContext"]

DEFAULT_SCENE_HISTORY = 50


@dataclass(frozen=True)
class StepRecord:
    """One executed step: what was planned, what happened, and the screen it led to.

    ``scene`` is the observation made right after the step (None when the device could not be
    observed, and dropped once the record is older than the task's ``scene_history``); ``page``
    and ``foreground_app`` summarise it and stay.
    """

    index: int
    step: PlannedStep
    result: StepResult
    page: str | None = None
    foreground_app: str | None = None
    scene: Scene | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "step": self.step.to_dict(),
            "result": self.result.to_dict(),
            "page": self.page,
            "foreground_app": self.foreground_app,
        }


@dataclass
class TaskContext:
    """A task's running record.

    ``scenes`` keeps the most recent observations (``scene_history`` of them; a long task does
    not hold every tree in memory, the run timeline keeps them on disk); ``step_results`` and
    ``steps`` keep every executed step. ``world`` is the task's WorldState, or None when the
    world model is off.
    """

    goal: str
    device_id: str
    scene_history: int = DEFAULT_SCENE_HISTORY
    scenes: deque[Scene] = field(init=False)
    step_results: list[StepResult] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    world: WorldState | None = None

    def __post_init__(self) -> None:
        if self.scene_history < 1:
            raise ValueError(f"scene_history must be at least 1, got {self.scene_history}")
        self.scenes = deque(maxlen=self.scene_history)

    @property
    def latest_scene(self) -> Scene | None:
        return self.scenes[-1] if self.scenes else None

    def add_scene(self, scene: Scene) -> None:
        self.scenes.append(scene)

    def add_step_result(self, result: StepResult) -> None:
        self.step_results.append(result)

    @property
    def failures_in_a_row(self) -> int:
        count = 0
        for result in reversed(self.step_results):
            if result.success:
                break
            count += 1
        return count

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "device_id": self.device_id,
            "steps": [record.to_dict() for record in self.steps],
            "world": self.world.to_dict() if self.world is not None else None,
        }
