"""What a flow needs that a device cannot give: checked before anything runs.

A step cannot run when no backend of this harness does its command (a Maestro command without an
action, JavaScript until it is wired in) or when its action says it cannot run on the device's
backend and platform (:meth:`amc.actions.Action.cannot_run`: ``clearKeychain`` on iOS,
``setLocation`` over uiautomator2 …). Steps a ``when: {platform: …}`` keeps off the device's
platform are not asked. Such a step is a problem naming its file, line and backend, unless it is
optional (or inside an optional block): then it is a note, and the step is skipped when the flow
runs.
"""

from __future__ import annotations

from ..actions import ACTIONS
from ..core.errors import FlowError
from .conditions import Combined, Condition, PlatformIs
from .model import Flow, FlowStep, Node, RunFlow

__all__ = ["platform_problems"]


def _never(condition: Condition | None, platform: str) -> bool:
    """Whether ``condition`` cannot hold on ``platform`` (whatever the screen shows)."""
    if isinstance(condition, PlatformIs):
        return condition.platform != platform
    if isinstance(condition, Combined):
        if condition.every:
            return any(_never(part, platform) for part in condition.parts)
        return bool(condition.parts) and all(_never(part, platform) for part in condition.parts)
    return False


def _walk(nodes: tuple[Node, ...], platform: str, optional: bool) -> list[tuple[Node, bool]]:
    found: list[tuple[Node, bool]] = []
    for node in nodes:
        if _never(node.when, platform):
            continue
        inner = optional or node.optional
        if isinstance(node, FlowStep) or node.unsupported is not None:
            found.append((node, inner))
        elif isinstance(node, RunFlow):
            found += _walk(node.flow.every_step, platform, inner)
        else:
            found += _walk(node.steps, platform, inner)
    return found


def _where(platform: str, backend: str | None, kind: str) -> str:
    if backend is None:
        return platform
    shown = (
        platform
        if platform == "android"
        else ("an iOS Simulator" if kind == "simulator" else "a physical iPhone")
    )
    return f"{backend} ({shown})"


def platform_problems(
    flow: Flow, platform: str, backend: str | None = None, kind: str = "device"
) -> tuple[list[FlowError], list[FlowError]]:
    """(problems, notes): the steps of ``flow`` that cannot run on a device of ``platform`` and
    ``kind`` (:data:`amc.actions.KINDS`: an iOS Simulator or a device; what ``amc run`` reads from
    the connected driver, ``amc check`` from the spec: :mod:`amc.drivers.kinds`) over ``backend``
    (a name of :data:`amc.actions.BACKENDS`, when given), each at its line."""
    problems: list[FlowError] = []
    notes: list[FlowError] = []
    where = _where(platform, backend, kind)
    for step, optional in _walk(flow.every_step, platform, False):
        why = step.unsupported
        shown = step.shown if isinstance(step, FlowStep) else step.command
        if why is None and backend is not None and isinstance(step, FlowStep):
            action = ACTIONS.get(step.command)
            if action is not None:
                why = action.cannot_run(step.args, backend, platform, kind)
        if why is None:
            continue
        if optional:
            notes.append(step.position.error(f"`{shown}` is skipped on {where}: {why}"))
        else:
            problems.append(
                step.position.error(
                    f"`{shown}` cannot run on {where}: {why}",
                    hint="make the step optional, or keep it off this platform with `when: {platform: …}`",
                )
            )
    return problems, notes
