"""The task's one way to look at the device.

Every observation of a task goes through its :class:`Observer`: the look before the first plan,
the look after each step, and every poll of a waiting step (``wait_for``, the asserts). Each look
is one ``Driver.observe()`` (repeated on a transient device error, at most ``retries`` times),
enriched once into an :class:`~amc.semantic.Observation`, recorded in the task's
:class:`~amc.runtime.context.TaskContext` (which owns the first and latest looks, their count and
the recent scenes: ``latest`` is the screen the next step's selectors resolve against) and, for a
look no step caused, shown to the world model (which keeps the observed app, the page and the
overlay current). The task's :class:`~amc.runtime.cancel.Cancel` is checked before each look, and
the pause between two looks waits on it: once the run is asked to stop, no new look is asked of the
device and a waiting step ends at once (``Interrupted``).
"""

from __future__ import annotations

import dataclasses
import logging
import time

from ..actions.settle import SettleConfig, Settled, settle, settle_maestro
from ..core.errors import HarnessError, Interrupted
from ..drivers.base import Driver, IdleSignal
from ..semantic.enricher import Enricher, enrich_scene
from ..semantic.models import Observation
from ..world.model import WorldModel
from ..world.models import WorldState
from .cancel import Cancel
from .context import TaskContext

__all__ = ["Observer"]

log = logging.getLogger(__name__)


class Observer:
    """Observes ``driver`` for one task, recording each look in ``context`` (a fresh one when none
    is given). Builds nothing and asks nothing until ``observe()``. The world model is the
    context's (None: the world is off, and ``world`` is None). ``cancel`` is the run's stop request
    (a fresh one, never set, when none is given)."""

    def __init__(
        self,
        driver: Driver,
        context: TaskContext | None = None,
        *,
        enricher: Enricher | None = None,
        retries: int = 1,
        cancel: Cancel | None = None,
    ) -> None:
        self.driver = driver
        self.cancel = cancel if cancel is not None else Cancel()
        self.context = (
            context if context is not None else TaskContext(device_id=str(getattr(driver, "device_id", "")))
        )
        self.enricher = enricher
        self.retries = retries

    @property
    def latest(self) -> Observation | None:
        """The last observation made, or None before the first."""
        return self.context.latest

    @property
    def count(self) -> int:
        """How many looks were made."""
        return self.context.observations

    @property
    def world_model(self) -> WorldModel | None:
        return self.context.world_model

    @property
    def world(self) -> WorldState | None:
        """The task's world as it stands, or None when the world model is off."""
        return self.context.world

    def look(self) -> Observation:
        """One observation, enriched, not yet shown to the world model (the loop shows a step's own
        outcome to it with the step). Raises the device's ``HarnessError`` after the retries."""
        attempt = 0
        while True:
            attempt += 1
            self.cancel.check("before a look at the screen")
            try:
                scene = self.driver.observe()
                break
            except HarnessError as exc:
                if not exc.transient or attempt > self.retries:
                    raise
                log.warning("observe failed (%s: %s); retrying (%d/%d)", exc.kind, exc, attempt, self.retries)
        semantic = enrich_scene(scene, self.enricher) if self.enricher is not None else None
        observation = Observation(scene, semantic)
        self.context.add_look(observation)
        return observation

    def current_app(self) -> str | None:
        """The app in front as the device says when asked (for a look whose page source does not
        name it): one request."""
        return self.driver.current_app()

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` between two looks; ``Interrupted`` as soon as the run is asked to stop."""
        self.cancel.pause(seconds)

    def settled(self, config: SettleConfig) -> Settled:
        """Waits after an action that changes the screen until it has settled, by ``config``'s
        rule (:mod:`amc.actions.settle`): the device's idle signal then one look, or looks until two
        in a row agree, bounded by ``config``; the last look is the step's outcome."""
        if config.timeout <= 0:
            return Settled(0, True, self.look())
        started = time.monotonic()
        idle = self._idle(config.timeout) if config.rule == "idle" else None
        if idle is True:  # the device says its screen is still: one look is the settled screen
            return Settled(0, True, self.look(), idle=True)
        first = self.look()
        left = max(0.0, config.timeout - (time.monotonic() - started))
        if config.rule == "maestro":
            return settle_maestro(first, self.look, self.pause, timeout=left)
        done = settle(first, self.look, self.pause, timeout=left, interval=config.interval)
        return dataclasses.replace(done, idle=idle)

    def _idle(self, timeout: float) -> bool | None:
        """The driver's idle signal (``Driver.wait_idle``), or None where it has none; a device
        error in it is logged and the looks decide (an interrupt is not: the run stops)."""
        self.cancel.check("before asking the device whether its screen is idle")
        if not isinstance(self.driver, IdleSignal):
            return None
        try:
            said = self.driver.wait_idle(timeout)
        except Interrupted:
            raise
        except HarnessError as exc:
            log.warning("the idle signal failed (%s: %s); comparing looks instead", exc.kind, exc)
            return None
        return said if isinstance(said, bool) else None

    def observe(self) -> Observation:
        """One observation that no step caused (a first look, a poll), shown to the world model."""
        observation = self.look()
        model = self.context.world_model
        if model is not None:
            model.see(observation.scene, observation.semantic)
        return observation
