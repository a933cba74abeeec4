"""What the LLM planner sends each turn: a system message and one user message, rebuilt every turn.

The model keeps no conversation: each request carries everything it needs, and the world model is
its memory. The user message is one JSON object:

- ``goal``: the task's goal; ``turn``: how many steps ran so far, and the bound;
- ``world``: the task's WorldState as the harness believes it (``current_app`` from launches,
  ``observed_app`` from the screen, ``current_page``, ``overlay``, ``variables`` with secret ones
  as ``***``) and its bounded ``history``: each step's action, arguments (secrets hidden),
  success, error and the reasons given for it (rationale, thinking, purpose, expected outcome);
  ``null`` when the world model is off;
- ``screen``: the compact screen (:mod:`amc.agent.screen`): app, page, overlay and the
  elements, each with a ref and the selector that finds it;
- ``last_step``: the step just run with its result and error kind (null before the first);
- ``allowed_apps``: the apps ``launch_app`` may start (absent when any may).

Every value a step of the task marked secret (``secret: true``) is replaced by ``***`` wherever it
appears in the message, the screen included (a field that shows what was typed).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from ..core.models import jsonable
from ..core.steps import StepRecord, hide_secrets, secret_values
from ..semantic.models import Observation
from ..storage.redaction import Redactor
from ..world.models import WorldState
from .screen import DEFAULT_LIMIT, compact_screen

__all__ = ["DEFAULT_HISTORY", "MAX_FIELD", "SYSTEM_PROMPT", "request_messages", "world_for_model"]

DEFAULT_HISTORY = 10
MAX_FIELD = 500  # characters of each reason or error shown back

SYSTEM_PROMPT = """\
You operate a {platform} device for a user, one tool call per turn, until the goal is reached.

Each turn you get, as JSON: the goal; the harness's world state (the app it launched as \
current_app, the app the screen shows as observed_app, the page, any overlay such as a dialog, the \
variables it remembers, secret ones as ***, and the recent steps with their arguments, success, \
error and the rationale and expected outcome given for them); the current screen as a list of \
elements, each with a ref and a `target` selector that finds it; and the last step's result.

Rules:
- Call exactly one tool per turn. To act on an element, pass its `target` selector as listed.
- Read the world before acting: do not repeat a step that already succeeded, and do not launch an \
app that current_app and observed_app both show in front.
- Give every call a short rationale and the expected_outcome; the next turn shows them back with \
the result, so compare what happened with what you expected.
- When a step failed, read its error and try something else.
- When the goal is reached, or cannot be reached, call done with a summary.{allowed}"""


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_FIELD:
        return value[: MAX_FIELD - 1] + "…"
    return value


_EVENT_FIELDS = ("action", "args", "error", "page", "rationale", "thinking", "purpose", "expected_outcome")


def _event(event: dict[str, Any]) -> dict[str, Any]:
    shown = {k: _cut(event[k]) for k in _EVENT_FIELDS if event.get(k) is not None}
    shown["success"] = event.get("success") is True
    return shown


def world_for_model(world: WorldState | None, max_history: int = DEFAULT_HISTORY) -> dict[str, Any] | None:
    """The world as the model is shown it: ``WorldState.to_dict()`` (secrets hidden), the history
    cut to its last ``max_history`` steps, each without its timestamp and scene summary."""
    if world is None:
        return None
    data = world.to_dict()
    history = data.pop("history")[-max_history:] if max_history > 0 else []
    data["history"] = [_event(event) for event in history]
    return data


def _last_step(steps: Sequence[StepRecord]) -> dict[str, Any] | None:
    if not steps:
        return None
    record = steps[-1]
    result = record.result
    return {
        "action": record.step.action,
        "args": jsonable(hide_secrets(record.step.args)),
        "success": result.success,
        "error_kind": result.error_kind,
        "error": _cut(result.error),
        "foreground_app": record.foreground_app,
        "page": record.page,
    }


def request_messages(
    *,
    goal: str,
    observation: Observation,
    world: WorldState | None,
    steps: Sequence[StepRecord],
    allowed_apps: Collection[str] = (),
    max_steps: int | None = None,
    max_history: int = DEFAULT_HISTORY,
    max_elements: int = DEFAULT_LIMIT,
) -> list[dict[str, Any]]:
    """The chat messages of one planning turn (see the module docstring)."""
    allowed = ""
    if allowed_apps:
        allowed = (
            f"\n- Only these apps may be launched: {', '.join(sorted(allowed_apps))}. A launch of any "
            "other app is refused, and leaving them for two steps in a row stops the task."
        )
    system = SYSTEM_PROMPT.format(platform=observation.scene.platform, allowed=allowed)
    redactor = Redactor(value for record in steps for value in secret_values(record.step.args))
    content: dict[str, Any] = {
        "goal": goal,
        "turn": {"steps_run": len(steps), "max_steps": max_steps},
        "world": world_for_model(world, max_history),
        "screen": compact_screen(observation, limit=max_elements).to_dict(),
        "last_step": _last_step(steps),
    }
    if allowed_apps:
        content["allowed_apps"] = sorted(allowed_apps)
    return [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": json.dumps(redactor.value(content), ensure_ascii=False, separators=(",", ":")),
        },
    ]
