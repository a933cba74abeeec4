"""One task's long-lived state and the one way a step runs: what every driver of the loop shares.

A :class:`Session` holds a task's context (every executed step), its one
:class:`~amc.runtime.observer.Observer` and its world model, and runs steps one at a time:
execute (repeating a transient failure of a step that is safe to repeat, at most
``step_retries`` times), observe the outcome once, fold step and outcome into the world model,
record the step and tell the listeners (the run timeline is one). Nothing here decides whether
a task goes on: :class:`~amc.runtime.task.TaskRunner` asks a planner for steps and runs them
through a session, stopping on its own rules; the MCP server runs one step per tool call
through a session that lives as long as the server.

The session's :class:`~amc.runtime.cancel.Cancel` (its observer's) is the stop request of whoever
runs it: once set, a waiting step ends at its next poll as ``interrupted``, no step is repeated and
no look is asked of the device.

Building a session does no I/O; the first ``look()`` is the first device request.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..actions.base import MAX_SETTLE
from ..actions.settle import SettleConfig, Settled
from ..core import stop
from ..core.errors import HarnessError, Interrupted
from ..core.models import PlannedStep, StepResult
from ..core.steps import StepRecord
from ..drivers.base import Driver
from ..semantic.enricher import Enricher
from ..semantic.models import Observation
from ..world.model import WorldModel
from ..world.models import WorldState
from .cancel import Cancel
from .context import DEFAULT_SCENE_HISTORY, TaskContext
from .executor import Executor
from .expectations import check as check_expectation
from .observer import Observer

__all__ = ["Session", "StepListener", "StepOutcome"]

log = logging.getLogger(__name__)

StepListener = Callable[[StepRecord, TaskContext], None]

# How many distinct page and app names a session shares between its step records (see _shared).
_SHARED_NAMES = 256


@dataclass(frozen=True)
class StepOutcome:
    """One executed step as the session recorded it.

    ``observation`` is the look made after the step (None when the device itself failed the
    step, so no look was tried, or when that look failed: ``look_error`` then says why).
    """

    record: StepRecord
    observation: Observation | None
    look_error: HarnessError | None = None

    @property
    def result(self) -> StepResult:
        return self.record.result

    @property
    def device_failed(self) -> bool:
        """The step failed because of the device (not the app, an argument or a selector)."""
        return not self.result.success and self.result.error_category == "device"


class Session:
    """A task on one driver: its context, its observer and its world model (None when off).

    ``world_model`` is used as given (a caller's model carries its state across sessions); pass
    None to run with the world model off. ``listeners`` are called after every executed step,
    in order, with the step's record and the context.
    """

    def __init__(
        self,
        driver: Driver,
        *,
        goal: str,
        executor: Executor | None = None,
        world_model: WorldModel | None = None,
        enricher: Enricher | None = None,
        step_retries: int = 1,
        scene_history: int = DEFAULT_SCENE_HISTORY,
        listeners: Sequence[StepListener] = (),
        settle: SettleConfig | None = None,
        cancel: Cancel | None = None,
    ) -> None:
        self.driver = driver
        self.cancel = cancel if cancel is not None else Cancel()
        self.executor = executor or Executor(driver)
        self.step_retries = step_retries
        self.settle = settle or SettleConfig()
        # Only a screen that animates is waited for (drivers/base.py: ``Driver.animates``).
        self.animates = getattr(driver, "animates", False) is True
        self.context = TaskContext(
            goal=goal,
            device_id=str(getattr(driver, "device_id", "")),  # a scripted stand-in may not say
            scene_history=scene_history,
            world_model=world_model,
        )
        self.listeners: list[StepListener] = list(listeners)
        self._names: dict[str, str] = {}
        self.observer = Observer(
            driver, self.context, enricher=enricher, retries=step_retries, cancel=self.cancel
        )

    @property
    def world(self) -> WorldState | None:
        """The task's world as it stands (None when the world model is off)."""
        return self.context.world

    @property
    def world_model(self) -> WorldModel | None:
        return self.context.world_model

    @property
    def steps(self) -> Sequence[StepRecord]:
        """A read-only view of every step executed so far."""
        return self.context.steps

    def look(self) -> Observation:
        """A look that no step caused (a task's first look, an agent's ``observe``), shown to the
        world model. Raises the device's ``HarnessError`` after the observer's retries."""
        with stop.stoppable(self.cancel):  # Ctrl-C gives up the device's reply (core.stop)
            return self.observer.observe()

    def _execute(self, step: PlannedStep) -> StepResult:
        attempt = 0
        while True:
            attempt += 1
            result = self.executor.execute(step, self.observer)
            done = result.success or not result.retryable or attempt > self.step_retries
            if done or self.cancel.is_set():  # a stop request: never sent again
                return dataclasses.replace(result, attempts=attempt) if attempt > 1 else result
            log.warning(
                "step %s failed transiently (%s); retrying (%d/%d)",
                step.action,
                result.error_kind,
                attempt,
                self.step_retries,
            )

    def _shared(self, name: str | None) -> str | None:
        """One string object per distinct page or app name across the step records: each look
        builds its names anew, and a long task would otherwise keep a copy of both per step (the
        table holds at most ``_SHARED_NAMES`` names, then starts again)."""
        if name is None:
            return None
        kept = self._names.get(name)
        if kept is not None:
            return kept
        if len(self._names) >= _SHARED_NAMES:
            self._names.clear()
        self._names[name] = name
        return name

    def _settle_for(self, step: PlannedStep) -> SettleConfig:
        """The session's settle, or the step's own ``settle`` (seconds; 0: do not wait)."""
        own = step.args.get("settle")
        if isinstance(own, int | float) and not isinstance(own, bool) and 0 <= own <= MAX_SETTLE:
            return dataclasses.replace(self.settle, timeout=float(own))
        return self.settle

    def run_step(self, step: PlannedStep) -> StepOutcome:
        """Execute ``step``, observe its outcome once (not after a step that sent nothing to the
        device, a planner's ``skip``: its outcome is the latest look), check what the step expected
        against that look (:mod:`~amc.runtime.expectations`; the result's ``verification``), fold
        both into the world, record the step and tell the listeners. Never raises for a failed step
        or a failed look: the outcome says. While it runs, Ctrl-C gives up what is in flight (a
        device's reply, a script, a wait: :mod:`amc.core.stop`) and the step is recorded
        ``interrupted``."""
        with stop.stoppable(self.cancel):
            return self._run_step(step)

    def _run_step(self, step: PlannedStep) -> StepOutcome:
        before = self.observer.latest  # the look the step started from (for its expectation)
        log.info("step %d %s: started", len(self.context.steps) + 1, step.action)  # run.log: what runs
        result = self._execute(step)
        observation: Observation | None = None
        look_error: HarnessError | None = None
        settled: Settled | None = None
        latest = self.observer.latest
        try:
            if result.success and not self.executor.looks_after(step.action) and latest is not None:
                observation = latest  # nothing was sent to the device: the screen is as last seen
            elif result.success and self.animates and self.executor.changes_screen(step.action):
                settled = self.observer.settled(self._settle_for(step))
                observation = settled.observation
            elif result.success or result.error_category not in ("device", Interrupted.category):
                observation = self.observer.look()
            elif result.error_category == "device" and step.on_failure == "retry":
                observation = self.observer.look()  # its block runs again (task.py): from this look
        except HarnessError as exc:
            look_error = exc
        # The step's expectation, checked on the (settled) look after it (runtime/expectations.py).
        verdict = check_expectation(step.expected_outcome, before, observation, self.world, step=step)
        if verdict is not None:
            result = dataclasses.replace(result, verification=verdict.to_dict())
        record = StepRecord(
            index=len(self.context.steps),
            step=step,
            result=result,
            page=self._shared(observation.page) if observation is not None else None,
            foreground_app=self._shared(observation.foreground_app) if observation is not None else None,
            scene=observation.scene if observation is not None else None,
            settle_looks=settled.looks if settled is not None else 0,
            settled=settled.settled if settled is not None else None,
            settle_idle=settled.idle if settled is not None else None,
            acted_on=latest.scene if latest is not None else None,
        )
        self.context.add_step_result(record)
        # The design's hook: once per executed step, right after its result is recorded.
        model = self.context.world_model
        if model is not None:
            if observation is not None:
                model.observe(observation.scene, observation.semantic, step, result)
            else:
                model.observe(None, None, step, result)
        for listener in self.listeners:
            listener(record, self.context)
        return StepOutcome(record, observation, look_error)
