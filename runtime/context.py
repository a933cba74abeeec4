"""Everything one task run has seen and done: the loop's record, returned in its result.

:class:`TaskContext` is the design's context, by its names: ``scenes`` (the looks, newest last),
``step_results`` (each executed step's result, in order), ``latest_scene``, ``world`` (the task's
WorldState, None when the world model is off) and ``add_step_result(result)``, plus the fuller
record the harness keeps: ``steps`` (each result with its step and the screen it led to), the first
and latest :class:`~amc.semantic.Observation` and the number of looks.

Only the task loop writes it. A planner is handed ``context.read_only()``: the same record, live
and without a copy, through which every write raises ``TypeError``; so nothing a planner does
can change what the task believes or the task's result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from ..core.models import PlannedStep, Scene, StepResult
from ..core.steps import StepRecord
from ..semantic.models import Observation
from ..world.model import WorldModel
from ..world.models import WorldState

__all__ = ["DEFAULT_SCENE_HISTORY", "StepView", "TaskContext"]

DEFAULT_SCENE_HISTORY = 50

# The step a bare StepResult is recorded under (``add_step_result`` called the design's way).
_UNRECORDED = PlannedStep("unrecorded")


def _same_items(view: Sequence[Any], other: Sequence[Any]) -> bool:
    """A read-only view equals any sequence (a list, a tuple, another view) of the same items."""
    return len(other) == len(view) and all(a == b for a, b in zip(view, other, strict=True))


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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return _same_items(self, other)

    __hash__ = None  # type: ignore[assignment]

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


class _ResultView(Sequence[StepResult]):
    """The results of a :class:`StepView`'s steps, read-only and without a copy; equal to any
    sequence of the same results (``context.step_results == [r1, r2]``)."""

    __slots__ = ("_steps",)

    def __init__(self, steps: StepView) -> None:
        self._steps = steps

    @overload
    def __getitem__(self, index: int) -> StepResult: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[StepResult]: ...
    def __getitem__(self, index: int | slice) -> StepResult | Sequence[StepResult]:
        if isinstance(index, slice):
            return tuple(record.result for record in self._steps[index])
        return self._steps[index].result

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[StepResult]:
        return (record.result for record in self._steps)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return _same_items(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{list(self)!r}"


@dataclass
class _Record:
    """The data behind a context and its read-only views."""

    goal: str
    device_id: str
    scene_history: int
    steps: list[StepRecord] = field(default_factory=list)
    scenes: list[Scene] = field(default_factory=list)
    world: WorldState | None = None
    world_model: WorldModel | None = None
    first: Observation | None = None
    latest: Observation | None = None
    observations: int = 0


class TaskContext:
    """A task's running record (see the module's docstring for what a planner gets).

    ``steps`` holds every executed step (each keeps its post-step Scene only while it is among the
    last ``scene_history``; the run timeline keeps every page source on disk), and ``scenes`` the
    last ``scene_history`` looks. ``world`` is the task's WorldState as it stands: read from the
    world model the context was given (the one owner of what the task believes), or the value
    last assigned. Building a context does no I/O.
    """

    __slots__ = ("_record", "_start", "_writable")
    _record: _Record
    _start: int
    _writable: bool

    def __init__(
        self,
        goal: str = "",
        device_id: str = "",
        scene_history: int = DEFAULT_SCENE_HISTORY,
        *,
        world: WorldState | None = None,
        world_model: WorldModel | None = None,
    ) -> None:
        if isinstance(scene_history, bool) or not isinstance(scene_history, int) or scene_history < 1:
            raise ValueError(f"scene_history must be at least 1, got {scene_history!r}")
        record = _Record(goal, device_id, scene_history, world=world, world_model=world_model)
        object.__setattr__(self, "_record", record)
        object.__setattr__(self, "_start", 0)
        object.__setattr__(self, "_writable", True)

    def read_only(self, start: int = 0) -> TaskContext:
        """The same record, live, with every write refused; with ``start``, its steps and step
        results begin at that step (one goal's steps in a longer session)."""
        view = object.__new__(TaskContext)
        object.__setattr__(view, "_record", self._record)
        object.__setattr__(view, "_start", self._start + start)
        object.__setattr__(view, "_writable", False)
        return view

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._writable:
            raise TypeError(f"this task context is read-only (a planner cannot set {name!r})")
        object.__setattr__(self, name, value)

    def _check_writable(self, what: str) -> None:
        if not self._writable:
            raise TypeError(f"this task context is read-only (a planner cannot {what}): the loop records")

    # --- the design's names ---------------------------------------------------------------------

    @property
    def scenes(self) -> Sequence[Scene]:
        """The last ``scene_history`` Scenes looked at, oldest first (read-only)."""
        return tuple(self._record.scenes)

    @property
    def step_results(self) -> Sequence[StepResult]:
        """Every executed step's result, in order (a read-only view, no copy)."""
        return _ResultView(self.steps)

    @property
    def latest_scene(self) -> Scene | None:
        """The last Scene looked at, or None before the first look."""
        latest = self._record.latest
        return latest.scene if latest is not None else None

    @property
    def world(self) -> WorldState | None:
        record = self._record
        return record.world_model.state if record.world_model is not None else record.world

    @world.setter
    def world(self, value: WorldState | None) -> None:
        self._check_writable("set the world")
        self._record.world, self._record.world_model = value, None

    def add_step_result(self, result: StepResult | StepRecord, step: PlannedStep | None = None) -> StepRecord:
        """Record one executed step: a :class:`StepRecord` as it is, or a bare ``StepResult`` (the
        design's way) under ``step`` (else a step named ``unrecorded``). Returns the record."""
        self._check_writable("record a step")
        steps = self._record.steps
        if isinstance(result, StepRecord):
            record = result
        elif isinstance(result, StepResult):
            scene = self.latest_scene
            record = StepRecord(len(steps), step if step is not None else _UNRECORDED, result, scene=scene)
        else:
            raise TypeError(f"add_step_result takes a StepResult, got {type(result).__name__}")
        steps.append(record)
        old = len(steps) - self._record.scene_history - 1
        if old >= 0 and steps[old].scene is not None:  # keep full Scenes on the newest records only
            steps[old] = dataclasses.replace(steps[old], scene=None)
        return record

    # --- the rest of the record -----------------------------------------------------------------

    def add_look(self, observation: Observation) -> None:
        """Record one look at the device (the first, the latest, the count and ``scenes``)."""
        self._check_writable("record a look")
        record = self._record
        if record.first is None:
            record.first = observation
        record.latest = observation
        record.observations += 1
        record.scenes.append(observation.scene)
        if len(record.scenes) > record.scene_history:
            del record.scenes[0]

    @property
    def goal(self) -> str:
        return self._record.goal

    @property
    def device_id(self) -> str:
        return self._record.device_id

    @property
    def scene_history(self) -> int:
        return self._record.scene_history

    @property
    def world_model(self) -> WorldModel | None:
        """The world model the context reads ``world`` from (None when the world is off or was
        assigned); None on a read-only view, which can only read the state."""
        return self._record.world_model if self._writable else None

    @property
    def steps(self) -> StepView:
        """Every executed step with its result and the screen it led to (read-only, no copy)."""
        return StepView(self._record.steps, self._start)

    @property
    def first(self) -> Observation | None:
        """The look before the first plan."""
        return self._record.first

    @property
    def latest(self) -> Observation | None:
        """The last look of all."""
        return self._record.latest

    @property
    def observations(self) -> int:
        """How many looks were made."""
        return self._record.observations

    @property
    def failures_in_a_row(self) -> int:
        return self.steps.failures_in_a_row

    def __repr__(self) -> str:
        shown = "read-only " if not self._writable else ""
        return f"<{shown}TaskContext goal={self.goal!r} device={self.device_id!r} steps={len(self.steps)}>"

    def to_dict(self) -> dict[str, Any]:
        world = self.world
        return {
            "goal": self.goal,
            "device_id": self.device_id,
            "steps": [record.to_dict() for record in self.steps],
            "world": world.to_dict() if world is not None else None,
        }
