"""The task's one way to look at the device.

Every observation of a task goes through its :class:`Observer`: the look before the first plan,
the look after each step, and every poll of a waiting step (``wait_for``, the asserts). Each look
is one ``Driver.observe()`` (repeated on a transient device error, at most ``retries`` times),
enriched once into an :class:`~amc.semantic.Observation`, shown to the world model (which keeps
the observed app, the page and the overlay current) and kept as ``latest``, the screen the next
step's selectors resolve against. The task's :class:`~amc.runtime.cancel.Cancel` is checked
before each look, and the pause between two polls waits on it: once the run is asked to stop, no
new look is asked of the device and a waiting step ends at once (``Interrupted``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..core.errors import HarnessError
from ..drivers.base import Driver
from ..semantic.enricher import Enricher, enrich_scene
from ..semantic.models import Observation
from ..world.model import WorldModel
from ..world.models import WorldState
from .cancel import Cancel

__all__ = ["Observer"]

log = logging.getLogger(__name__)


class Observer:
    """Observes ``driver`` for one task. Builds nothing and asks nothing until ``observe()``.

    ``on_observation`` (optional) is told of every observation, in order; the runner uses it to
    count them. With no ``world_model`` the world is off and ``world`` is None. ``cancel`` is the
    run's stop request (a fresh one, never set, when none is given).
    """

    def __init__(
        self,
        driver: Driver,
        *,
        enricher: Enricher | None = None,
        world_model: WorldModel | None = None,
        retries: int = 1,
        on_observation: Callable[[Observation], None] | None = None,
        cancel: Cancel | None = None,
    ) -> None:
        self.driver = driver
        self.cancel = cancel if cancel is not None else Cancel()
        self.enricher = enricher
        self.world_model = world_model
        self.retries = retries
        self._on_observation = on_observation
        self._latest: Observation | None = None
        self.count = 0

    @property
    def latest(self) -> Observation | None:
        """The last observation made, or None before the first."""
        return self._latest

    @property
    def world(self) -> WorldState | None:
        """The task's world as it stands, or None when the world model is off."""
        return self.world_model.state if self.world_model is not None else None

    def look(self) -> Observation:
        """One observation, enriched, not yet shown to the world model (the loop shows a step's own
        outcome to it with the step). Raises the device's ``HarnessError`` after the retries, or
        ``Interrupted`` (before asking the device) once the run was asked to stop."""
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
        self._latest = observation
        self.count += 1
        if self._on_observation is not None:
            self._on_observation(observation)
        return observation

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` between two looks; ``Interrupted`` as soon as the run is asked to stop."""
        self.cancel.pause(seconds)

    def observe(self) -> Observation:
        """One observation that no step caused (a first look, a poll), shown to the world model."""
        observation = self.look()
        if self.world_model is not None:
            self.world_model.see(observation)
        return observation
