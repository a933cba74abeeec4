"""The task loop: Observe -> Plan -> Act, with the world hook after every executed step.

One ``run(goal)`` observes the device once and shows that first look to the world model (so the
first plan already knows the app and page in front), asks the planner for steps, executes them one
at a time, observes again after each (that observation is both the step's outcome and the next
plan's input) and folds each step into the task's WorldState. Every look goes through the task's
one :class:`~amc.runtime.observer.Observer`, the polls of waiting steps included. The planner is
handed the latest observation, the current frozen WorldState and a read-only view of the steps:
nothing it can change. The loop's control flow is explicit and bounded:

- a step that fails with a transient device error (``DeviceTimeout``, ``SessionLost``) is run
  again up to ``step_retries`` times, and only when the action is safe to repeat;
- any other device error ends the task with status ``device_error``;
- ``max_consecutive_failures`` failed steps in a row end it ``failed``;
- ``max_steps`` executed steps end it ``max_steps``;
- an empty plan ends it ``succeeded`` unless the last step failed (then ``failed``).

A failed step whose ``PlannedStep.on_failure`` is ``warn`` (recorded as a warning) or ``retry``
(its block runs again) does not fail the task and does not count toward
``max_consecutive_failures`` (:func:`amc.core.steps.step_status` is the rule). A step that sends
nothing to the device (a planner's ``skip``) is followed by no new observation: its outcome is the
screen as last seen.

The world hook only records; it cannot change any of these decisions.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ConfigError, DeviceError, HarnessError
from ..core.models import PlannedStep, StepResult
from ..core.steps import StepRecord
from ..drivers.base import Driver
from ..semantic.enricher import DefaultEnricher, Enricher, semantic_enabled
from ..semantic.models import Observation
from ..world.config import WorldConfig
from ..world.model import WorldModel
from ..world.models import WorldState
from .context import DEFAULT_SCENE_HISTORY, TaskContext
from .executor import Executor
from .observer import Observer
from .planner import Planner

__all__ = ["StepListener", "TaskResult", "TaskRunner", "TaskRunnerConfig", "TaskStatus"]

log = logging.getLogger(__name__)

StepListener = Callable[[StepRecord, TaskContext], None]


class TaskStatus(enum.StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    MAX_STEPS = "max_steps"
    DEVICE_ERROR = "device_error"


def _positive_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"TaskRunnerConfig.{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class TaskRunnerConfig:
    max_steps: int = 20
    world: WorldConfig = field(default_factory=WorldConfig)
    step_retries: int = 1
    max_consecutive_failures: int = 3
    semantic: bool = True
    scene_history: int = DEFAULT_SCENE_HISTORY

    def __post_init__(self) -> None:
        _positive_int("max_steps", self.max_steps, 1)
        _positive_int("step_retries", self.step_retries, 0)
        _positive_int("max_consecutive_failures", self.max_consecutive_failures, 1)
        _positive_int("scene_history", self.scene_history, 1)
        if not isinstance(self.world, WorldConfig):
            raise ConfigError(
                f"TaskRunnerConfig.world must be a WorldConfig, got {type(self.world).__name__}"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> TaskRunnerConfig:
        """Defaults, with the world model and semantic enrichment read from the environment."""
        values: dict[str, Any] = {
            "world": WorldConfig.from_env(environ),
            "semantic": semantic_enabled(environ),
        }
        values.update(overrides)
        return cls(**values)


@dataclass
class TaskResult:
    """How a task ended, with everything it did."""

    goal: str
    status: TaskStatus
    context: TaskContext
    duration: float
    error: str | None = None
    error_kind: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is TaskStatus.SUCCEEDED

    @property
    def steps(self) -> list[StepRecord]:
        return self.context.steps

    @property
    def world(self) -> WorldState | None:
        return self.context.world

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "status": self.status.value,
            "duration": round(self.duration, 6),
            "error": self.error,
            "error_kind": self.error_kind,
            **self.context.to_dict(),
        }


class _Stop(Exception):
    """Internal: ends the loop with a status."""

    def __init__(self, status: TaskStatus, error: str | None = None, kind: str | None = None) -> None:
        super().__init__(error)
        self.status, self.error, self.kind = status, error, kind


class TaskRunner:
    """Runs goals on one driver with one planner.

    Each ``run()`` gets its own context and, unless a ``world_model`` was passed in, its own fresh
    WorldState; a world model passed in is the caller's and carries its state across runs.
    """

    def __init__(
        self,
        driver: Driver,
        planner: Planner,
        executor: Executor | None = None,
        config: TaskRunnerConfig | None = None,
        world_model: WorldModel | None = None,
        *,
        enricher: Enricher | None = None,
        listeners: Sequence[StepListener] = (),
    ) -> None:
        self.driver = driver
        self.planner = planner
        self.executor = executor or Executor(driver)
        self.config = config or TaskRunnerConfig()
        self._world_model = world_model
        self.enricher: Enricher | None = enricher or (DefaultEnricher() if self.config.semantic else None)
        self.listeners: list[StepListener] = list(listeners)

    # --- pieces of the loop -----------------------------------------------------------------

    def _new_world_model(self) -> WorldModel | None:
        if not self.config.world.enabled:
            return None
        return self._world_model if self._world_model is not None else WorldModel(self.config.world)

    def _observer(self, context: TaskContext, world_model: WorldModel | None) -> Observer:
        def seen(observation: Observation) -> None:
            if context.first is None:
                context.first = observation
            context.latest = observation
            context.observations += 1

        return Observer(
            self.driver,
            enricher=self.enricher,
            world_model=world_model,
            retries=self.config.step_retries,
            on_observation=seen,
        )

    @staticmethod
    def _look(observer: Observer, *, first: bool) -> Observation:
        """The loop's own look (the first one, or a step's outcome); a device error ends the task."""
        try:
            return observer.observe() if first else observer.look()
        except HarnessError as exc:
            raise _Stop(TaskStatus.DEVICE_ERROR, f"observing the screen failed: {exc}", exc.kind) from exc

    def _execute(self, step: PlannedStep, observer: Observer) -> StepResult:
        attempt = 0
        while True:
            attempt += 1
            result = self.executor.execute(step, observer)
            if result.success or not result.retryable or attempt > self.config.step_retries:
                return dataclasses.replace(result, attempts=attempt) if attempt > 1 else result
            log.warning(
                "step %s failed transiently (%s); retrying (%d/%d)",
                step.action,
                result.error_kind,
                attempt,
                self.config.step_retries,
            )

    def _plan(self, goal: str, observation: Observation, context: TaskContext) -> list[PlannedStep]:
        try:
            steps = self.planner.plan(
                goal=goal, observation=observation, world=context.world, steps=context.view
            )
        except HarnessError as exc:
            status = TaskStatus.DEVICE_ERROR if isinstance(exc, DeviceError) else TaskStatus.FAILED
            raise _Stop(status, f"planner failed: {exc}", exc.kind) from exc
        except Exception as exc:
            log.exception("planner raised")
            raise _Stop(
                TaskStatus.FAILED, f"planner raised {type(exc).__name__}: {exc}", type(exc).__name__
            ) from exc
        if not isinstance(steps, list) or not all(isinstance(s, PlannedStep) for s in steps):
            raise _Stop(
                TaskStatus.FAILED, f"planner returned {steps!r}, not a list of PlannedStep", "PlannerError"
            )
        return steps

    # --- the loop ---------------------------------------------------------------------------

    def run(self, goal: str) -> TaskResult:
        started = time.perf_counter()
        context = TaskContext(
            goal=goal, device_id=self.driver.device_id, scene_history=self.config.scene_history
        )
        world_model = self._new_world_model()
        observer = self._observer(context, world_model)
        context.world = observer.world
        status, error, kind = TaskStatus.SUCCEEDED, None, None
        try:
            observation = self._look(observer, first=True)
            context.world = observer.world
            while True:
                steps = self._plan(goal, observation, context)
                if not steps:
                    if context.view.last_failed:
                        last = context.steps[-1].result
                        raise _Stop(TaskStatus.FAILED, last.error, last.error_kind)
                    break
                for step in steps:
                    if len(context.steps) >= self.config.max_steps:
                        raise _Stop(TaskStatus.MAX_STEPS, f"stopped after {self.config.max_steps} steps")
                    observation = self._step(step, context, observer)
                    if not context.steps[-1].result.success:
                        break  # the rest of this plan assumed success: ask the planner again
        except _Stop as stop:
            status, error, kind = stop.status, stop.error, stop.kind
        return TaskResult(goal, status, context, time.perf_counter() - started, error, kind)

    @staticmethod
    def _forget_old_scene(context: TaskContext) -> None:
        """Keep full Scenes only on the last ``scene_history`` step records, so a long task's memory
        stays flat (the run timeline keeps every page source on disk)."""
        old = len(context.steps) - context.scene_history - 1
        if old >= 0 and context.steps[old].scene is not None:
            context.steps[old] = dataclasses.replace(context.steps[old], scene=None)

    def _step(self, step: PlannedStep, context: TaskContext, observer: Observer) -> Observation:
        """Execute one step, observe its outcome, record it, and decide whether the task goes on."""
        result = self._execute(step, observer)
        device_failed = not result.success and result.error_category == "device"
        observation: Observation | None = None
        stop: _Stop | None = None
        if device_failed:
            stop = _Stop(TaskStatus.DEVICE_ERROR, result.error, result.error_kind)
        elif result.success and not self.executor.looks_after(step.action) and observer.latest is not None:
            observation = observer.latest  # nothing was sent to the device: the screen is as last seen
        else:
            try:
                observation = self._look(observer, first=False)
            except _Stop as exc:
                stop = exc
        if observer.world_model is not None:
            observer.world_model.observe(observation, step, result)
            context.world = observer.world
        record = StepRecord(
            index=len(context.steps),
            step=step,
            result=result,
            page=observation.page if observation is not None else None,
            foreground_app=observation.foreground_app if observation is not None else None,
            scene=observation.scene if observation is not None else None,
        )
        context.steps.append(record)
        self._forget_old_scene(context)
        for listener in self.listeners:
            listener(record, context)
        if stop is not None:
            raise stop
        if context.failures_in_a_row >= self.config.max_consecutive_failures:
            raise _Stop(
                TaskStatus.FAILED,
                f"{context.failures_in_a_row} steps failed in a row; last: {result.error}",
                result.error_kind,
            )
        assert observation is not None
        return observation
