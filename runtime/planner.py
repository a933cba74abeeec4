"""Planners decide the next steps. The loop only knows the ``Planner`` protocol.

``plan()`` returns the steps to run next; an empty list means the planner considers the goal
reached (or has nothing more it can do). A planner reads ``world`` and ``context`` and must not
change them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from ..core.models import PlannedStep, Scene
from ..world.models import WorldState
from .context import TaskContext

__all__ = ["Planner", "ScriptedPlanner", "StubPlanner"]


@runtime_checkable
class Planner(Protocol):
    def plan(
        self,
        *,
        goal: str,
        scene: Scene,
        context: TaskContext,
        world: WorldState | None = None,
    ) -> list[PlannedStep]: ...


class StubPlanner:
    """The first planner: describe the screen once, then call the goal reached.

    It accepts ``world`` and ignores it.
    """

    def plan(
        self,
        *,
        goal: str,
        scene: Scene,
        context: TaskContext,
        world: WorldState | None = None,
    ) -> list[PlannedStep]:
        if any(result.success for result in context.step_results):
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
        scene: Scene,
        context: TaskContext,
        world: WorldState | None = None,
    ) -> list[PlannedStep]:
        with self._lock:
            if self.stop_on_failure and context.step_results and not context.step_results[-1].success:
                return []
            if self._next >= len(self._steps):
                return []
            step = self._steps[self._next]
            self._next += 1
            return [step]
