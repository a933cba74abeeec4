"""The executor: runs one PlannedStep on a Driver and reports a StepResult, never an exception.

Steps are dispatched through the action table (:data:`amc.actions.ACTIONS`: one module per action,
each with its arguments, handler and properties). Before the handler runs, the step's arguments are
checked by the action (an unknown action or argument, a wrong type or bound, a bad selector is a
failed step of kind ``StepArgumentError`` and the device is not called), a step the action's rules
say this device cannot run is ``Unsupported`` before the device is asked, and an action that waits
for the screen gets its default ``timeout`` when the step gives none. Selectors are resolved against
the task's latest observation, so finding a target costs no device request; a wait looks again
through the task's :class:`~amc.actions.Screen` (the runner's observer), never the driver itself.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..actions import ACTIONS, Action, Screen
from ..core.errors import HarnessError, StepArgumentError, Unsupported
from ..core.models import PlannedStep, StepResult
from ..drivers.base import Driver
from ..drivers.kinds import device_kind

__all__ = ["Executor"]

log = logging.getLogger(__name__)


class Executor:
    """Runs steps on one driver through :data:`~amc.actions.ACTIONS` (or a table you pass)."""

    def __init__(
        self,
        driver: Driver,
        actions: Mapping[str, Action] | None = None,
        *,
        spell: Callable[[str, str], str] | None = None,
    ) -> None:
        self.driver = driver
        self.actions: Mapping[str, Action] = ACTIONS if actions is None else actions
        # How a failed step's message names the action's arguments (action, message -> message):
        # in the words of the flow the step came from (a Maestro flow's options); None: as they are.
        self.spell = spell

    def is_idempotent(self, action: str) -> bool:
        """Whether ``action`` may be sent again after a transient failure (an unknown one: no)."""
        entry = self.actions.get(action)
        return entry is not None and entry.idempotent

    def looks_after(self, action: str) -> bool:
        """Whether the loop observes the device after ``action`` (an unknown action: yes)."""
        entry = self.actions.get(action)
        return entry is None or entry.looks_after

    def changes_screen(self, action: str) -> bool:
        """Whether the screen may still be changing after ``action`` (the next look then waits for
        it to settle); an unknown action: no."""
        entry = self.actions.get(action)
        return entry is not None and entry.changes_screen

    def check(self, step: PlannedStep) -> tuple[Action, dict[str, Any]]:
        """The step's action and its checked arguments (the action's default timeout filled in);
        ``StepArgumentError`` when the step cannot run."""
        entry = self.actions.get(step.action)
        if entry is None:
            raise StepArgumentError(
                f"unknown action {step.action!r}; known actions: {', '.join(sorted(self.actions))}"
            )
        args = dict(step.args)
        if entry.waits is not None and "timeout" not in args:
            args["timeout"] = entry.waits
        return entry, entry.validate(args)

    def _refuse(self, entry: Action, args: Mapping[str, Any]) -> None:
        """``Unsupported`` before the device is asked, where the action's rules say this device
        cannot (the rule ``amc check --device`` reads: :meth:`amc.actions.Action.cannot_run`)."""
        driver = self.driver
        why = entry.cannot_run(args, driver.backend, driver.platform, device_kind(driver))
        if why is not None:
            raise Unsupported(f"{entry.name} cannot run on {driver.backend} ({driver.platform}): {why}")

    def execute(self, step: PlannedStep, screen: Screen) -> StepResult:
        """Run ``step``, resolving selectors on ``screen.latest`` and waiting through ``screen``."""
        started = time.perf_counter()
        entry = self.actions.get(step.action)
        ran = step.args.get(entry.ran_for) if entry is not None and entry.ran_for else None
        if isinstance(ran, int | float) and not isinstance(ran, bool) and 0 <= ran < 1e6:
            started -= ran  # it ran before its turn (a flow's script): its time counts as the step's
        try:
            entry, args = self.check(step)
            self._refuse(entry, args)
            output = entry.handler(self.driver, args, screen)
        except HarnessError as exc:
            duration = time.perf_counter() - started
            log.info("step %s failed: %s: %s", step.action, exc.kind, exc)
            return StepResult(
                success=False,
                error=str(exc) if self.spell is None else self.spell(step.action, str(exc)),
                error_kind=exc.kind,
                error_category=exc.category,
                retryable=exc.transient and self.is_idempotent(step.action),
                duration=duration,
            )
        except Exception as exc:
            duration = time.perf_counter() - started
            log.exception("step %s raised an unexpected %s", step.action, type(exc).__name__)
            return StepResult(
                success=False,
                error=f"unexpected {type(exc).__name__}: {exc}",
                error_kind=type(exc).__name__,
                error_category="internal",
                duration=duration,
            )
        return StepResult(success=True, output=output, duration=time.perf_counter() - started)
