"""The agent's executor: the action table with its guardrails, and a way to record a bad reply.

- :func:`agent_actions` is :data:`~amc.actions.ACTIONS` with every action that names an
  app (``launch_app``, ``terminate_app``, and any the table gains that takes ``app_id``) refusing
  an app outside ``allowed_apps`` (when given); only checks (``assert_app``) may name any app. The
  step fails with ``GuardrailViolation`` before any device request, its error naming the allowed
  apps, so the world history shows the model what it may use.
- It adds ``reply_error``, which no tool offers: the LLM planner hands it out when a model's
  reply cannot be used (no tool call, an unknown tool, bad arguments, the server failed), so
  the failure is an executed, recorded, failed step of kind ``ModelReplyError`` that the next
  request shows back, and the loop's own bounds (``max_consecutive_failures``, ``max_steps``)
  limit how often the model is asked again.
- With ``allowed_apps``, every action that changes the screen (``Action.changes_screen``: a tap,
  typing, a swipe, a key, scrolling …) is refused while an app outside them is in front (asked of
  the device right before the step: one ``current_app`` request, so an app that came up after the
  last look is seen too), with ``GuardrailViolation`` and nothing sent to the device. What may still
  run there: the navigation keys that leave it (:data:`LEAVING_KEYS`: ``press back``, ``press
  home``), the actions that name an app (``launch_app``, ``terminate_app``, ``clear_state``,
  ``open_link``: allowed apps only, each acting on that app, a launch bringing it to the front), and
  the actions that only look (waits, asserts, ``describe_screen``, ``screenshot``, ``remember``). So
  after ``press home`` a tap on another app's icon opens it (the home screen is not outside the
  list), and the next acting step in that app is refused: no step acts in it.
- :func:`outside_allowed` is the one rule for "is this app outside the allowed set": the home
  screen (a launcher, SpringBoard), the system's own dialogs over an app (a permission prompt,
  the status bar and notification shade, a keyboard) and an unknown app are never outside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

from ..actions import ACTIONS, Action, Param, Screen
from ..actions.kinds import Anything, Text
from ..core.apps import ANDROID_SYSTEMUI, is_home_screen, is_ime_package, is_permission_dialog
from ..core.errors import GuardrailViolation, ModelReplyError
from ..drivers.base import Driver
from ..runtime.executor import Executor

__all__ = ["LEAVING_KEYS", "REPLY_ERROR", "agent_actions", "agent_executor", "outside_allowed"]

REPLY_ERROR = "reply_error"
# Keys that take the device out of the app in front: allowed while a disallowed app is there.
LEAVING_KEYS = frozenset({"back", "home"})
_CHECKS = frozenset({"assert_app"})  # they name an app to look for it, and act on nothing
# Actions whose app is optional, and which without one may reach any app (a link opens whichever
# app takes it): with allowed apps, they must name one.
_ANY_APP_WITHOUT_ONE = frozenset({"open_link"})


def outside_allowed(app: str | None, allowed: Collection[str]) -> bool:
    """True when ``allowed`` is set and ``app`` is a known app that is neither in it, nor the home
    screen, nor the system's own UI over an app (a permission prompt, system UI, a keyboard)."""
    if not allowed or app is None or app in allowed:
        return False
    system = is_permission_dialog(app) or app == ANDROID_SYSTEMUI or is_ime_package(app)
    return not (is_home_screen(app) or system)


def _in_front_guarded(name: str, action: Action, allowed: frozenset[str]) -> Action:
    """``action`` refused while an app outside ``allowed`` is in front (see the module docstring)."""
    inner = action.handler

    def handler(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
        if name == "press" and args.get("key") in LEAVING_KEYS:
            return inner(driver, args, screen)
        front = driver.current_app()
        if outside_allowed(front, allowed):
            raise GuardrailViolation(
                f"{front} is in front, outside the allowed apps ({', '.join(sorted(allowed))}); "
                f"{name} refused",
                hint="press back or home, or launch one of the allowed apps",
            )
        return inner(driver, args, screen)

    return dataclasses.replace(action, handler=handler)


def _guarded(name: str, action: Action, allowed: frozenset[str]) -> Action:
    inner = action.handler

    def handler(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
        app = args.get("app_id")
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
        return inner(driver, args, screen)

    return dataclasses.replace(action, handler=handler, summary=f"{action.summary} (allowed apps only)")


def _reply_error(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    raise ModelReplyError(
        args["problem"], hint="answer with exactly one call of an offered tool, its arguments a JSON object"
    )


REPLY_ERROR_ACTION = Action(
    REPLY_ERROR,
    "record a model reply that could not be used",
    _reply_error,
    params=(
        Param("problem", Text(max_length=4000), "what was wrong with the reply", required=True),
        Param("tool", Anything(), "the tool the reply named"),
        Param("arguments", Anything(), "the arguments it sent"),
    ),
    idempotent=True,
    looks_after=False,
    offered=False,
)


def agent_actions(
    allowed_apps: Collection[str] = (), actions: Mapping[str, Action] = ACTIONS
) -> dict[str, Action]:
    """``actions`` with the guardrails of ``allowed_apps`` (none when empty) and ``reply_error``."""
    table = dict(actions)
    allowed = frozenset(allowed_apps)
    if allowed:
        for name, action in actions.items():
            if action.param("app_id") is not None and name not in _CHECKS:
                table[name] = _guarded(name, action, allowed)
            elif action.changes_screen:  # acts on the screen in front: only an allowed app's
                table[name] = _in_front_guarded(name, action, allowed)
    table[REPLY_ERROR] = REPLY_ERROR_ACTION
    return table


def agent_executor(driver: Driver, allowed_apps: Collection[str] = ()) -> Executor:
    """An executor for ``driver`` over :func:`agent_actions`."""
    return Executor(driver, agent_actions(allowed_apps))
