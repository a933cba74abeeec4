"""``FlowPlanner``: a flow's steps, handed out one at a time, read against the world state.

It implements :class:`amc.runtime.planner.Planner`. Two decisions use what the harness already
knows instead of asking the device again:

- a ``launch_app`` of the app that both the world model (``world.current_app``, set by an
  earlier successful launch in this task) and the latest observation (``foreground_app``) show in
  front is not sent to the device: the planner hands out a ``skip`` step instead, which the
  executor records like any step, with the reason, so the timeline, report and console show it;
- after a failed step it hands out nothing more, so the task ends ``failed`` instead of acting on
  a screen the flow did not expect.

``wait_for`` and the asserts need no planner help: the executor polls fresh observations for
them, bounded by each step's ``timeout``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.models import PlannedStep, Platform, Scene
from ...core.steps import StepRecord
from ...semantic.models import Observation
from ...world.models import WorldState
from ..planner import ScriptedPlanner
from .model import Flow

__all__ = ["FlowPlanner", "skip_instead", "skip_reason"]


def skip_reason(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> str | None:
    """Why ``step`` need not run given what the harness believes, or None when it must run.

    Only a ``launch_app`` is ever skipped, and only when the world model and the latest Scene
    agree the app is already in front; with the world model off nothing is skipped.
    """
    if step.action != "launch_app" or world is None or scene is None:
        return None
    app = step.args.get("app_id")
    if not isinstance(app, str) or world.current_app != app or scene.foreground_app != app:
        return None
    return f"{app} is already in front (the world model and the latest screen agree)"


def skip_instead(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> PlannedStep:
    """``step``, or the ``skip`` step that records why it need not run (see :func:`skip_reason`),
    keeping the reasons the planner gave for it."""
    reason = skip_reason(step, scene, world)
    if reason is None:
        return step
    return PlannedStep(
        "skip",
        {"reason": reason, "skipped": step.action},
        rationale=step.rationale,
        thinking=f"not sending {step.action} to the device: {reason}",
        purpose=step.purpose,
        expected_outcome="nothing changes on the device",
    )


class FlowPlanner:
    """Hands out ``flow``'s steps for a device of ``platform``, one per turn.

    Building it turns every step into a ``PlannedStep`` for ``platform``, so a step that names no
    app for that platform is a ``FlowError`` here, before the task starts.
    """

    def __init__(self, flow: Flow, platform: Platform) -> None:
        self.flow = flow
        self.platform = platform
        steps = flow.planned_steps(platform)
        self._total = len(steps)
        self._script = ScriptedPlanner(steps, stop_on_failure=True)

    @property
    def total(self) -> int:
        return self._total

    @property
    def remaining(self) -> int:
        return self._script.remaining

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        planned = self._script.plan(goal=goal, observation=observation, world=world, steps=steps)
        if not planned:
            return []
        return [skip_instead(planned[0], observation.scene, world)]
