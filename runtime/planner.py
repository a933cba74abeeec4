"""Planners decide the next steps. A planner has one of two shapes, told apart by its ``plan()``'s
signature (once per runner, see :func:`planner_inputs`):

- the design's shape, :class:`Planner`: ``plan(*, goal, scene, context, world=None)``: the latest
  Scene, the task's context and its WorldState (``world`` mirrors ``context.world``);
- the observing shape, :class:`ObservingPlanner`: ``plan(*, goal, observation, world, steps)``: the
  latest look as an :class:`~amc.semantic.Observation` (the Scene with its SemanticScene), the
  WorldState and a read-only view of the steps executed so far.

A planner is handed every input its signature names (one that takes ``**kwargs`` is also handed
the observing shape's four, as it always was), and can change none: Scenes and WorldStates are
frozen, ``context`` is ``TaskContext.read_only()`` and ``steps`` a read-only view. The first
call already gets the look made before any step, and the world already knows that app and page.
``plan()`` returns the steps to run next; an empty list means the planner considers the goal
reached (or has nothing more it can do).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..core.models import PlannedStep, Scene
from ..core.steps import StepRecord
from ..semantic.models import Observation
from ..world.models import WorldState
from .context import TaskContext

__all__ = [
    "PLANNER_INPUTS",
    "ObservingPlanner",
    "Planner",
    "ScriptedPlanner",
    "StubPlanner",
    "planner_inputs",
]


@runtime_checkable
class Planner(Protocol):
    """The design's planner: the latest Scene, the task's (read-only) context, and its world."""

    def plan(
        self, *, goal: str, scene: Scene, context: TaskContext, world: WorldState | None = None
    ) -> list[PlannedStep]: ...


@runtime_checkable
class ObservingPlanner(Protocol):
    """A planner that takes the latest look whole (Scene and SemanticScene) and the steps so far."""

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]: ...


# Everything the loop can hand a planner each turn, and what a ``**kwargs`` planner is handed.
PLANNER_INPUTS = ("goal", "scene", "context", "world", "observation", "steps")
_OBSERVING = frozenset({"goal", "observation", "world", "steps"})


def planner_inputs(plan: Callable[..., Any]) -> frozenset[str]:
    """The inputs ``plan`` takes by name: those its signature names, plus the observing shape's
    four when it takes ``**kwargs``. Raises ``TypeError`` when it needs an argument the loop
    cannot give."""
    try:
        parameters = inspect.signature(plan).parameters.values()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot read the planner's plan() signature: {exc}") from None
    named = frozenset(p.name for p in parameters) & frozenset(PLANNER_INPUTS)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        named |= _OBSERVING
    unknown = sorted(
        p.name
        for p in parameters
        if p.name not in PLANNER_INPUTS
        and p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    )
    if unknown:
        raise TypeError(
            f"plan() needs {', '.join(unknown)}, which the loop does not give "
            f"(it gives {', '.join(PLANNER_INPUTS)})"
        )
    return named


def _last_failed(steps: Sequence[StepRecord]) -> bool:
    return bool(steps) and steps[-1].failed


class StubPlanner:
    """The first planner, in the design's shape: describe the screen once, then call the goal
    reached once any step has succeeded. It accepts ``world`` and ignores it."""

    def plan(
        self, *, goal: str, scene: Scene, context: TaskContext, world: WorldState | None = None
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
