"""Everything one task run has seen and done: the runner's record, returned in its result.

Only the task loop writes it. A planner never gets it: it is handed the latest
:class:`~amc.semantic.Observation`, the task's current (frozen) WorldState and a read-only view of
the executed steps instead (see :mod:`amc.runtime.planner`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from ..core.models import StepResult
from ..core.steps import StepRecord
from ..semantic.models import Observation
from ..world.models import WorldState

__all__ = ["DEFAULT_SCENE_HISTORY", "StepView", "TaskContext"]

DEFAULT_SCENE_HISTORY = 50


class StepView(Sequence[StepRecord]):
    """A read-only view of a task's executed steps (no copy: it follows the task as it goes).

    With ``start`` it shows only the steps from that index on: the steps of one goal run in a
    session that had run steps before (an MCP client's ``run_flow``).
    """

    __slots__ = ("_start", "_steps")

    def __init__(self, steps: list[StepRecord], start: int = 0) -> None:
        self._steps = steps
        self._start = start

    @overload
    def __getitem__(self, index: int) -> StepRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[StepRecord]: ...
    def __getitem__(self, index: int | slice) -> StepRecord | Sequence[StepRecord]:
        if isinstance(index, slice):
            return tuple(self._steps[self._start :][index])
        size = len(self)
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError("step index out of range")
        return self._steps[self._start + position]

    def __len__(self) -> int:
        return max(0, len(self._steps) - self._start)

    def __iter__(self) -> Iterator[StepRecord]:
        return iter(self._steps[self._start :]) if self._start else iter(self._steps)

    def __repr__(self) -> str:
        return f"StepView({len(self)} steps)"

    @property
    def last_result(self) -> StepResult | None:
        """The result of the last executed step, or None before the first."""
        return self[-1].result if len(self) else None

    @property
    def last_failed(self) -> bool:
        """True when the last executed step failed the task (a warning or a retried step does not)."""
        return len(self) > 0 and self[-1].failed

    @property
    def failures_in_a_row(self) -> int:
        """Failed steps at the end of the task, in a row; any other status ends the count."""
        count = 0
        for index in range(len(self._steps) - 1, self._start - 1, -1):
            if not self._steps[index].failed:
                break
            count += 1
        return count


@dataclass
class TaskContext:
    """A task's running record.

    ``steps`` holds every executed step (each keeps its post-step Scene only while it is among the
    last ``scene_history``: the run timeline keeps every page source on disk). ``first`` is the look
    before the first plan, ``latest`` the last look of all, ``observations`` how many looks were
    made. ``world`` is the task's WorldState as it stands (None when the world model is off): the
    one source of truth for what the task believes.
    """

    goal: str
    device_id: str
    scene_history: int = DEFAULT_SCENE_HISTORY
    steps: list[StepRecord] = field(default_factory=list)
    world: WorldState | None = None
    first: Observation | None = None
    latest: Observation | None = None
    observations: int = 0
    view: StepView = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.scene_history < 1:
            raise ValueError(f"scene_history must be at least 1, got {self.scene_history}")
        self.view = StepView(self.steps)

    @property
    def failures_in_a_row(self) -> int:
        return self.view.failures_in_a_row

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "device_id": self.device_id,
            "steps": [record.to_dict() for record in self.steps],
            "world": self.world.to_dict() if self.world is not None else None,
        }
