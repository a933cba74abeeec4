"""Planners decide the next steps. The loop only knows the ``Planner`` protocol.

``plan()`` is handed, each turn, one copy of each input, none of which it can change:

- ``goal``: what the task is for;
- ``observation``: the latest look at the device, the Scene with its SemanticScene (the first
  call already gets the look made before any step);
- ``world``: the task's WorldState as it stands (frozen; None when the world model is off);
- ``steps``: a read-only view of every step executed so far, with its result.

It returns the steps to run next; an empty list means the planner considers the goal reached (or
has nothing more it can do).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from ..core.models import PlannedStep
from ..core.steps import StepRecord
from ..semantic.models import Observation
from ..world.models import WorldState

__all__ = ["Planner", "ScriptedPlanner", "StubPlanner"]


@runtime_checkable
class Planner(Protocol):
    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]: ...


def _last_failed(steps: Sequence[StepRecord]) -> bool:
    return bool(steps) and steps[-1].failed


class StubPlanner:
    """The first planner: describe the screen once, then call the goal reached.

    It accepts ``world`` and ignores it.
    """

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        if any(record.result.success for record in steps):
            return []
        return [
            PlannedStep(
                "describe_screen",
                rationale=f"look at the screen before working on: {goal}",
                purpose="learn what is on screen",
                expected_outcome="a description of the current screen",
            )
        ]


class ScriptedPlanner:
    """Hands out a fixed list of steps, one per turn.

    With ``stop_on_failure`` (the default) it stops handing out steps after a step failed, so the
    task ends failed instead of acting on a screen it did not expect.
    """

    def __init__(self, steps: Iterable[PlannedStep], *, stop_on_failure: bool = True) -> None:
        self._steps: Sequence[PlannedStep] = tuple(steps)
        for step in self._steps:
            if not isinstance(step, PlannedStep):
                raise TypeError(f"ScriptedPlanner takes PlannedStep objects, got {type(step).__name__}")
        self.stop_on_failure = stop_on_failure
        self._next = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        return len(self._steps) - self._next

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        with self._lock:
            if self.stop_on_failure and _last_failed(steps):
                return []
            if self._next >= len(self._steps):
                return []
            step = self._steps[self._next]
            self._next += 1
            return [step]
