"""The agent's executor: the action table with its guardrails, and a way to record a bad reply.

- :func:`agent_actions` is :data:`~amc.runtime.executor.ACTIONS` with every action that names an
  app (``launch_app``, ``terminate_app``, and any the table gains that takes ``app_id``) refusing
  an app outside ``allowed_apps`` (when given); only checks (``assert_app``) may name any app. The
  step fails with ``GuardrailViolation`` before any device request, its error naming the allowed
  apps, so the world history shows the model what it may use.
- It adds ``reply_error``, which no tool offers: the LLM planner hands it out when a model's
  reply cannot be used (no tool call, an unknown tool, bad arguments, the server failed), so
  the failure is an executed, recorded, failed step of kind ``ModelReplyError`` that the next
  request shows back, and the loop's own bounds (``max_consecutive_failures``, ``max_steps``)
  limit how often the model is asked again.
- With ``allowed_apps``, every acting step is refused while an app outside them is in front
  (asked of the device right before the step: one ``current_app`` request, so an app that came up
  after the last look is seen too), with ``GuardrailViolation`` and nothing sent to the device. What
  may still run there: the navigation keys that leave it (:data:`LEAVING_KEYS`: ``press back``,
  ``press home``), the steps that name an app (``launch_app``, ``terminate_app``, ``clear_state``,
  ``open_link``: allowed apps only, each acting on that app, a launch bringing it to the front),
  and the
  steps that only look (:data:`LOOKING`: waits, asserts, ``describe_screen``, ``screenshot``,
  ``remember``). So after ``press home`` a tap on another app's icon opens it (the home screen is
  not outside the list), and the next acting step in that app is refused: no step acts in it.
- :func:`outside_allowed` is the one rule for "is this app outside the allowed set": the home
  screen (a launcher, SpringBoard), the system's own dialogs over an app (a permission prompt,
  the status bar and notification shade, a keyboard) and an unknown app are never outside it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..core.apps import ANDROID_SYSTEMUI, is_home_screen, is_ime_package, is_permission_dialog
from ..core.errors import GuardrailViolation, ModelReplyError, StepArgumentError
from ..core.steps import APP_ID_KEYS, app_id_from_args
from ..drivers.base import Driver
from ..runtime.executor import ACTIONS, Action, Executor, Screen

__all__ = ["LEAVING_KEYS", "LOOKING", "REPLY_ERROR", "agent_actions", "agent_executor", "outside_allowed"]

REPLY_ERROR = "reply_error"
# Keys that take the device out of the app in front: allowed while a disallowed app is there.
LEAVING_KEYS = frozenset({"back", "home"})
# Steps that only look (or record) and send no action to the device: allowed whatever is in front.
LOOKING = frozenset(
    {
        "wait_for",
        "assert_visible",
        "assert_not_visible",
        "assert_app",
        "describe_screen",
        "screenshot",
        "remember",
        "skip",
        REPLY_ERROR,
    }
)
_CHECKS = frozenset({"assert_app"})  # they name an app to look for it, and act on nothing
# Actions whose app is optional, and which without one may reach any app (a link opens whichever
# app takes it): with allowed apps, they must name one.
_ANY_APP_WITHOUT_ONE = frozenset({"open_link"})


def outside_allowed(app: str | None, allowed: Collection[str]) -> bool:
    """True when ``allowed`` is set and ``app`` is a known app that is neither in it, nor the home
    screen, nor the system's own UI over an app (a permission prompt, system UI, a keyboard)."""
    if not allowed or app is None or app in allowed:
        return False
    return not (
        is_home_screen(app) or is_permission_dialog(app) or app == ANDROID_SYSTEMUI or is_ime_package(app)
    )


def _in_front_guarded(name: str, action: Action, allowed: frozenset[str]) -> Action:
    """``action`` refused while an app outside ``allowed`` is in front (see the module docstring)."""
    inner = action.handler

    def handler(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
        if name == "press" and args.get("key") in LEAVING_KEYS:
            return inner(ex, args, screen)
        front = ex.driver.current_app()
        if outside_allowed(front, allowed):
            raise GuardrailViolation(
                f"{front} is in front, outside the allowed apps ({', '.join(sorted(allowed))}); "
                f"{name} refused",
                hint="press back or home, or launch one of the allowed apps",
            )
        return inner(ex, args, screen)

    return Action(handler, action.keys, action.idempotent, action.summary, action.looks_after)


def _guarded(name: str, action: Action, allowed: frozenset[str]) -> Action:
    inner = action.handler

    def handler(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
        app = app_id_from_args(args)
        if app is None and name in _ANY_APP_WITHOUT_ONE:
            raise GuardrailViolation(
                f"{name} names no app, so it may open any; with allowed apps it must name one "
                f"({', '.join(sorted(allowed))})",
                hint="give app_id, one of the allowed apps",
            )
        if app is not None and app not in allowed:
            raise GuardrailViolation(
                f"{app} is outside the allowed apps ({', '.join(sorted(allowed))}); {name} refused",
                hint="use one of the allowed apps, or finish with done",
            )
        return inner(ex, args, screen)

    return Action(
        handler, action.keys, action.idempotent, f"{action.summary} (allowed apps only)", action.looks_after
    )


def _reply_error(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    problem = args.get("problem")
    if not isinstance(problem, str) or not problem:
        raise StepArgumentError("reply_error needs 'problem': what was wrong with the reply")
    raise ModelReplyError(
        problem, hint="answer with exactly one call of an offered tool, its arguments a JSON object"
    )


def agent_actions(
    allowed_apps: Collection[str] = (), actions: Mapping[str, Action] = ACTIONS
) -> dict[str, Action]:
    """``actions`` with the guardrails of ``allowed_apps`` (none when empty) and ``reply_error``."""
    table = dict(actions)
    allowed = frozenset(allowed_apps)
    if allowed:
        for name, action in actions.items():
            if action.keys & set(APP_ID_KEYS) and name not in _CHECKS:
                table[name] = _guarded(name, action, allowed)
        for name, action in list(table.items()):
            if name not in LOOKING and not action.keys & set(APP_ID_KEYS):
                table[name] = _in_front_guarded(name, action, allowed)
    table[REPLY_ERROR] = Action(
        _reply_error,
        frozenset({"problem", "tool", "arguments"}),
        True,
        "record a model reply that could not be used",
    )
    return table


def agent_executor(driver: Driver, allowed_apps: Collection[str] = ()) -> Executor:
    """An executor for ``driver`` over :func:`agent_actions`."""
    return Executor(driver, agent_actions(allowed_apps))
