"""``FlowPlanner``: a flow's tree, interpreted one step per turn, read against the world state.

It implements :class:`amc.runtime.planner.Planner`. The flow's commands, conditions, subflows and
``repeat`` / ``retry`` blocks are walked by a generator that hands out one ``PlannedStep`` per
``plan()`` and gets back the record of what it did. What it decides, with nothing but what the
loop hands it (the latest observation, the frozen world, the steps so far):

- a ``when:`` that does not hold (checked on the latest observation, the device's platform, the
  world's ``current_app``) hands out a ``skip`` step with the reason: recorded, sent nowhere;
- a ``launch_app`` of the app that both the world model (``current_app``) and the latest
  observation (``foreground_app``) show in front is skipped the same way;
- each step carries what its failure means (``PlannedStep.on_failure``): ``warn`` for an
  ``optional`` step or a step of an optional block, ``retry`` inside a ``retry`` block with
  attempts left, else ``fail``. A failed step ends its block; a ``retry`` runs its block again,
  an optional block lets the flow go on after it, anything else ends the flow (the task fails);
- ``repeat`` runs its block ``times`` times, or while its condition holds (at most ``max``).

``cancel`` (a :class:`~amc.runtime.cancel.Cancel` or a ``threading.Event``), once set, makes the next
``plan()`` raise ``FlowInterrupted`` (the task loop checks its own stop request before every plan
too, so ``amc run`` gives the planner none).
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ..core.errors import Interrupted
from ..core.models import OnFailure, PlannedStep, Platform, Scene
from ..core.steps import StepRecord
from ..runtime.cancel import Cancel
from ..semantic.models import Observation
from ..world.models import WorldState
from .conditions import Condition, holds
from .model import Flow, FlowStep, Node, Repeat, Retry, RunFlow

__all__ = ["FlowInterrupted", "FlowPlanner", "skip_instead", "skip_reason"]

Walk = Generator[PlannedStep, StepRecord, bool]


class FlowInterrupted(Interrupted):
    """The run was asked to stop (Ctrl-C) between two steps."""


def skip_reason(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> str | None:
    """Why ``step`` need not run given what the harness believes, or None when it must run.

    Only a ``launch_app`` is ever skipped this way, and only when the world model and the latest
    Scene agree the app is already in front; with the world model off nothing is skipped.
    """
    if step.action != "launch_app" or world is None or scene is None:
        return None
    app = step.args.get("app_id")
    if not isinstance(app, str) or world.current_app != app or scene.foreground_app != app:
        return None
    return f"{app} is already in front (the world model and the latest screen agree)"


def _skip_step(skipped: str, reason: str, rationale: str | None, purpose: str | None) -> PlannedStep:
    return PlannedStep(
        "skip",
        {"reason": reason, "skipped": skipped},
        rationale=rationale,
        thinking=f"not sending {skipped} to the device: {reason}",
        purpose=purpose,
        expected_outcome="nothing changes on the device",
    )


def skip_instead(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> PlannedStep:
    """``step``, or the ``skip`` step that records why it need not run (see :func:`skip_reason`),
    keeping the reasons the planner gave for it: the one rule for a skipped launch, used by flows
    and both agent doors."""
    reason = skip_reason(step, scene, world)
    if reason is None:
        return step
    return _skip_step(step.action, reason, step.rationale, step.purpose)


def _skip(node: Node, reason: str, flow: str) -> PlannedStep:
    """The ``skip`` step for a flow node whose ``when:`` does not hold."""
    return _skip_step(
        node.command, reason, f"{node.position}: `{node.command}`", f"flow {flow} step {node.number}"
    )


@dataclass
class _Handler:
    """An enclosing block that takes a failure: an optional one, or a retry with attempts left."""

    optional: bool
    left: int = 0  # retry attempts still to come


class FlowPlanner:
    """Interprets ``flow`` for a device of ``platform``, one step per turn.

    Building it turns every command into a ``PlannedStep`` for ``platform`` once, so a step that
    names no app for that platform is a ``FlowError`` here, before the task starts.
    """

    def __init__(
        self, flow: Flow, platform: Platform, *, cancel: Cancel | threading.Event | None = None
    ) -> None:
        self.flow = flow
        self.platform = platform
        self.cancel = cancel
        flow.planned_steps(platform)  # every command checked against the platform, before any runs
        self._observation: Observation | None = None
        self._world: WorldState | None = None
        self._walk = self._nodes(flow.steps, flow.name, ())
        self._started = False
        self._done = False
        self._lock = threading.Lock()

    @property
    def total(self) -> int | None:
        """How many steps the flow runs, when that is fixed (no condition or retry), else None."""
        return self.flow.total

    @property
    def most_steps(self) -> int:
        return self.flow.most_steps

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        with self._lock:
            if self.cancel is not None and self.cancel.is_set():
                raise FlowInterrupted("the run was interrupted (Ctrl-C) before this step")
            if self._done:
                return []
            self._observation, self._world = observation, world
            try:
                if not self._started:
                    self._started = True
                    step = next(self._walk)
                else:
                    step = self._walk.send(steps[-1])
            except StopIteration:
                self._done = True
                return []
            return [step]

    # --- the walk -------------------------------------------------------------------------------

    def _holds(self, condition: Condition) -> bool:
        observation, world = self._observation, self._world
        scene = observation.scene if observation is not None else None
        app = world.current_app if world is not None else (scene.foreground_app if scene else None)
        return holds(condition, scene=scene, platform=self.platform, current_app=app)

    @staticmethod
    def _on_failure(optional: bool, handlers: tuple[_Handler, ...]) -> OnFailure:
        if optional:
            return "warn"
        for handler in reversed(handlers):
            if handler.optional:
                return "warn"
            if handler.left > 0:
                return "retry"
        return "fail"

    def _nodes(self, nodes: Sequence[Node], flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        """Run ``nodes`` in order; False as soon as one fails (the rest of the block is left)."""
        for node in nodes:
            if node.when is not None and not self._holds(node.when):
                yield _skip(node, f"when: {node.when.describe()} does not hold", flow)
                continue
            ok = yield from self._node(node, flow, handlers)
            if not ok:
                return False
        return True

    def _node(self, node: Node, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        if isinstance(node, FlowStep):
            return (yield from self._command(node, flow, handlers))
        inner = (*handlers, _Handler(optional=True)) if node.optional else handlers
        if isinstance(node, RunFlow):
            ok = yield from self._nodes(node.flow.steps, node.flow.name, inner)
        elif isinstance(node, Repeat):
            ok = yield from self._repeat(node, flow, inner)
        else:
            ok = yield from self._retry(node, flow, inner)
        return ok or node.optional

    def _command(self, node: FlowStep, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        step = node.to_planned(flow, self.platform, on_failure=self._on_failure(node.optional, handlers))
        scene = self._observation.scene if self._observation is not None else None
        handed = skip_instead(step, scene, self._world)
        record = yield handed
        return handed is not step or record.result.success or node.optional

    def _repeat(self, node: Repeat, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        for _ in range(node.limit):
            if node.condition is not None and not self._holds(node.condition):
                break
            ok = yield from self._nodes(node.steps, flow, handlers)
            if not ok:
                return False
        return True

    def _retry(self, node: Retry, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        for attempt in range(node.times + 1):
            handler = _Handler(optional=False, left=node.times - attempt)
            ok = yield from self._nodes(node.steps, flow, (*handlers, handler))
            if ok:
                return True
        return False
