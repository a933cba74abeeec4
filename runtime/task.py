"""The task loop: Observe -> Plan -> Act, with the world hook after every executed step.

One ``run(goal)`` observes the device once and shows that first look to the world model (so the
first plan already knows the app and page in front), asks the planner for steps, executes them one
at a time, observes again after each (that observation is both the step's outcome and the next
plan's input) and folds each step into the task's WorldState. Every look goes through the task's
one :class:`~amc.runtime.observer.Observer`, the polls of waiting steps included. The planner is
handed what its ``plan()`` names of: the latest Scene and Observation, the task's context (read
only), the current frozen WorldState (``world=context.world``) and a read-only view of the steps
(:mod:`amc.runtime.planner` has the two shapes): nothing it can change. The loop's control flow
is explicit and bounded:

- a step that fails with a transient device error (``DeviceTimeout``, ``SessionLost``) is run
  again up to ``step_retries`` times, and only when the action is safe to repeat;
- any other device error ends the task with status ``device_error``, unless the step is in a
  block the flow itself asks to run again (``on_failure`` ``retry``: Maestro's ``retry`` catches
  any exception, ``Orchestra.retryCommand``), which then runs again; a planner that cannot reach
  what it plans with (a model's server) ends it ``infrastructure_error``;
- ``max_consecutive_failures`` failed steps in a row end it ``failed``;
- ``max_steps`` executed steps end it ``max_steps``: the bound of a planner that decides freely (an
  agent); ``None`` for a planner its own rules bound (a flow: its commands, ``repeat`` rounds,
  ``retry`` attempts and timeouts), which runs to its last step;
- an empty plan ends it ``succeeded`` unless the last step failed (then ``failed``);
- a stop request (the runner's :class:`~amc.runtime.cancel.Cancel`, set by Ctrl-C) ends it
  ``interrupted``: checked before each plan and each step, and a waiting step ends at its next
  poll (recorded ``interrupted``, not failed).

A failed step whose ``PlannedStep.on_failure`` is ``warn`` (recorded as a warning) or ``retry``
(its block runs again) does not fail the task and does not count toward
``max_consecutive_failures`` (:func:`amc.core.steps.step_status` is the rule). A step that sends
nothing to the device (a planner's ``skip``) is followed by no new observation: its outcome is the
screen as last seen.

The world hook only records; it cannot change any of these decisions. How one step runs (execute,
repeat, observe, record, tell the listeners) is :class:`~amc.runtime.session.Session`'s, which the
MCP server shares; only the stopping rules above are the loop's own.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions.settle import SettleConfig
from ..core import stop as stopping
from ..core.errors import ConfigError, GuardrailViolation, HarnessError, Interrupted
from ..core.models import PlannedStep
from ..drivers.base import Driver
from ..semantic.enricher import DefaultEnricher, Enricher, semantic_enabled
from ..semantic.models import Observation
from ..world.config import WorldConfig
from ..world.model import WorldModel
from ..world.models import WorldState
from .cancel import Cancel
from .context import DEFAULT_SCENE_HISTORY, StepView, TaskContext
from .executor import Executor
from .planner import ObservingPlanner, Planner, planner_inputs
from .session import Session, StepListener

__all__ = ["StepListener", "TaskResult", "TaskRunner", "TaskRunnerConfig", "TaskStatus", "open_session"]

log = logging.getLogger(__name__)


class TaskStatus(enum.StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    MAX_STEPS = "max_steps"
    DEVICE_ERROR = "device_error"
    INTERRUPTED = "interrupted"
    INFRASTRUCTURE_ERROR = "infrastructure_error"  # what the loop relies on besides the device failed


def _positive_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"TaskRunnerConfig.{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class TaskRunnerConfig:
    max_steps: int | None = 20  # None: no step limit (a flow's planner bounds itself)
    world: WorldConfig = field(default_factory=WorldConfig)
    step_retries: int = 1
    max_consecutive_failures: int = 3
    semantic: bool = True
    scene_history: int = DEFAULT_SCENE_HISTORY
    settle: SettleConfig = field(default_factory=SettleConfig)

    def __post_init__(self) -> None:
        if self.max_steps is not None:
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
            "settle": SettleConfig.from_env(environ),
        }
        values.update(overrides)
        return cls(**values)


def open_session(
    driver: Driver,
    goal: str,
    config: TaskRunnerConfig | None = None,
    *,
    executor: Executor | None = None,
    world_model: WorldModel | None = None,
    enricher: Enricher | None = None,
    listeners: Sequence[StepListener] = (),
    cancel: Cancel | None = None,
) -> Session:
    """A session on ``driver`` as ``config`` says: a world model (``world_model``, else a fresh one)
    unless the world is off; page enrichment by ``enricher``, else by the default enricher unless
    enrichment is off; the step retries, the scene history and the settle (the configuration from
    the environment when none is given); ``cancel``, the stop request its waits obey. Does no I/O."""
    config = config or TaskRunnerConfig.from_env()
    model = None
    if config.world.enabled:
        model = world_model if world_model is not None else WorldModel(config.world)
    if enricher is None and config.semantic:
        enricher = DefaultEnricher()
    return Session(
        driver,
        goal=goal,
        executor=executor,
        world_model=model,
        enricher=enricher,
        step_retries=config.step_retries,
        scene_history=config.scene_history,
        listeners=listeners,
        settle=config.settle,
        cancel=cancel,
    )


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
    def steps(self) -> StepView:
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


# What a planner's error ends the task with, by its category; any other: failed.
_STOP_STATUS: Mapping[str, TaskStatus] = {
    "device": TaskStatus.DEVICE_ERROR,
    "infrastructure": TaskStatus.INFRASTRUCTURE_ERROR,
}


class _Stop(Exception):
    """Internal: ends the loop with a status."""

    def __init__(self, status: TaskStatus, error: str | None = None, kind: str | None = None) -> None:
        super().__init__(error)
        self.status, self.error, self.kind = status, error, kind


def _interrupted(exc: Interrupted) -> _Stop:
    return _Stop(TaskStatus.INTERRUPTED, exc.message, Interrupted.__name__)


class TaskRunner:
    """Runs goals on one driver with one planner.

    Each ``run()`` gets its own context and, unless a ``world_model`` was passed in, its own fresh
    WorldState; a world model passed in is the caller's and carries its state across runs.
    ``cancel`` is the stop request its sessions obey (a fresh one, never set, when none is given).
    """

    def __init__(
        self,
        driver: Driver,
        planner: Planner | ObservingPlanner,
        executor: Executor | None = None,
        config: TaskRunnerConfig | None = None,
        world_model: WorldModel | None = None,
        *,
        enricher: Enricher | None = None,
        listeners: Sequence[StepListener] = (),
        cancel: Cancel | None = None,
    ) -> None:
        self.driver = driver
        self.planner = planner
        self.cancel = cancel if cancel is not None else Cancel()
        self._inputs = planner_inputs(planner.plan)
        self.executor = executor  # None: each session builds the default one (Session)
        self.config = config or TaskRunnerConfig.from_env()
        self._world_model = world_model
        self.enricher: Enricher | None = enricher or (DefaultEnricher() if self.config.semantic else None)
        self.listeners: list[StepListener] = list(listeners)

    # --- pieces of the loop -----------------------------------------------------------------

    def session(self, goal: str) -> Session:
        """A new session for ``goal`` on this runner's driver, executor, world model and listeners:
        what ``run()`` drives (no I/O until its first look)."""
        return open_session(
            self.driver,
            goal,
            self.config,
            executor=self.executor,
            world_model=self._world_model,
            enricher=self.enricher,
            listeners=self.listeners,
            cancel=self.cancel,
        )

    def _plan(
        self, goal: str, observation: Observation, context: TaskContext, start: int
    ) -> list[PlannedStep]:
        view = context.read_only(start)
        given: dict[str, Any] = {
            "goal": goal,
            "scene": observation.scene,
            "context": view,
            "world": context.world,
            "observation": observation,
            "steps": view.steps,
        }
        try:
            steps = self.planner.plan(**{name: given[name] for name in self._inputs})
        except Interrupted as exc:  # a planner that was told of the stop request too
            raise _interrupted(exc) from exc
        except HarnessError as exc:
            status = _STOP_STATUS.get(exc.category, TaskStatus.FAILED)
            # A guardrail is the planner stopping the task on purpose, not failing to plan.
            said = "stopped by a guardrail" if isinstance(exc, GuardrailViolation) else "planner failed"
            if status is TaskStatus.INFRASTRUCTURE_ERROR:
                raise _Stop(status, str(exc), exc.kind) from exc  # it says what failed itself
            raise _Stop(status, f"{said}: {exc}", exc.kind) from exc
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
        """Run ``goal`` in a new session (its own context and, unless a world model was passed in,
        its own fresh WorldState)."""
        return self.drive(self.session(goal), goal)

    def drive(self, session: Session, goal: str) -> TaskResult:
        """Run ``goal`` in ``session``, which may have run steps before (an MCP client's): the loop
        looks once, then plans and steps; the planner sees, and the bounds count, only the steps
        of this goal. The result's context is the session's; its stop request is the session's."""
        started = time.perf_counter()
        context = session.context
        start = len(context.steps)
        steps = context.read_only(start).steps
        status, error, kind = TaskStatus.SUCCEEDED, None, None
        try:
            try:
                observation = session.look()
            except Interrupted as exc:
                raise _interrupted(exc) from exc
            except HarnessError as exc:
                raise _Stop(TaskStatus.DEVICE_ERROR, f"observing the screen failed: {exc}", exc.kind) from exc
            while True:
                self._check(session, f"before step {len(steps) + 1}")
                with stopping.stoppable(session.cancel):  # Ctrl-C gives up a model request (core.stop)
                    planned = self._plan(goal, observation, context, start)
                if not planned:
                    if steps.last_failed:
                        last = steps[-1].result
                        raise _Stop(TaskStatus.FAILED, last.error, last.error_kind)
                    break
                for step in planned:
                    if self.config.max_steps is not None and len(steps) >= self.config.max_steps:
                        raise _Stop(TaskStatus.MAX_STEPS, f"stopped after {self.config.max_steps} steps")
                    self._check(session, f"before step {len(steps) + 1}")
                    observation = self._step(step, session, steps)
                    if not steps[-1].result.success:
                        break  # the rest of this plan assumed success: ask the planner again
        except _Stop as stop:
            status, error, kind = stop.status, stop.error, stop.kind
        return TaskResult(goal, status, context, time.perf_counter() - started, error, kind)

    @staticmethod
    def _check(session: Session, where: str) -> None:
        try:
            session.cancel.check(where)
        except Interrupted as exc:
            raise _interrupted(exc) from exc

    def _step(self, step: PlannedStep, session: Session, steps: StepView) -> Observation:
        """Run one step through the session and decide whether the task goes on."""
        outcome = session.run_step(step)
        result = outcome.result
        if result.error_category == Interrupted.category:
            raise _Stop(TaskStatus.INTERRUPTED, result.error, result.error_kind)
        if outcome.device_failed and step.on_failure != "retry":
            raise _Stop(TaskStatus.DEVICE_ERROR, result.error, result.error_kind)
        if isinstance(outcome.look_error, Interrupted):  # the step ran; its look was not asked for
            raise _interrupted(outcome.look_error)
        if outcome.look_error is not None:
            exc = outcome.look_error
            raise _Stop(TaskStatus.DEVICE_ERROR, f"observing the screen failed: {exc}", exc.kind)
        failures = steps.failures_in_a_row
        if failures >= self.config.max_consecutive_failures:
            message = f"{failures} steps failed in a row; last: {result.error}"
            raise _Stop(TaskStatus.FAILED, message, result.error_kind)
        assert outcome.observation is not None
        return outcome.observation
