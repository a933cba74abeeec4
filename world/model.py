"""The world model: derives a task's WorldState from the data the loop already has.

``observe()`` is the one update entry point, called once per executed step. Each rule is pure
bookkeeping over its arguments (no I/O, no model call) and is applied on its own: a rule that
cannot use its input logs why and leaves its field unchanged, and nothing ever raises out of
``observe()``, whatever it is given.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .config import WorldConfig
from .models import REDACTED, WorldEvent, WorldState

__all__ = ["APP_ID_KEYS", "SECRET_ARG_KEYS", "WorldModel", "app_id_from_args"]

log = logging.getLogger(__name__)

APP_ID_KEYS: tuple[str, ...] = ("app_id", "bundle_id", "package")
SECRET_ARG_KEYS: tuple[str, ...] = ("text", "value")
_MAX_TEXT = 2000


def _text(value: Any) -> str | None:
    """A short string field for the history, or None when the input is not a string."""
    if isinstance(value, str):
        return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + "…"
    return None


def app_id_from_args(args: Any) -> str | None:
    """The app a launch/terminate step names under ``app_id``, ``bundle_id`` or ``package``."""
    if not isinstance(args, Mapping):
        return None
    for key in APP_ID_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _recorded_args(args: Any) -> dict[str, Any]:
    """A copy of the step's arguments safe to keep: secrets typed with ``secret: true`` hidden."""
    if not isinstance(args, Mapping):
        return {}
    out = {str(k): v for k, v in args.items()}
    if out.get("secret") is True:
        for key in SECRET_ARG_KEYS:
            if key in out:
                out[key] = REDACTED
        remember = out.get("remember")
        if isinstance(remember, Mapping):
            out["remember"] = {str(k): REDACTED for k in remember}
    return out


class WorldModel:
    """Owns one task's :class:`WorldState` and applies the update rules to it."""

    def __init__(self, config: WorldConfig | None = None) -> None:
        self.config = config or WorldConfig()
        self._state = WorldState.empty(self.config.history_size)

    @property
    def state(self) -> WorldState:
        return self._state

    def observe(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        """Fold one executed step into the state. Never raises."""
        for rule in (self._page, self._app, self._observed_app, self._variables, self._history):
            try:
                rule(scene, semantic_scene, step, result)
            except Exception:
                log.exception("world model: rule %s skipped for step %r", rule.__name__, step)

    # --- rules ------------------------------------------------------------------------------

    def _page(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        if semantic_scene is None:
            return
        page = getattr(semantic_scene, "page", None)
        if isinstance(page, str) and page.strip():
            self._state.current_page = page
        else:
            log.debug("world model: semantic scene without a usable page (%r); page unchanged", page)

    def _app(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        action = getattr(step, "action", None)
        if action not in ("launch_app", "terminate_app"):
            return
        if getattr(result, "success", None) is not True:
            return
        app_id = app_id_from_args(getattr(step, "args", None))
        if app_id is None:
            log.warning(
                "world model: %s step without app_id/bundle_id/package; current_app unchanged", action
            )
            return
        if action == "launch_app":
            self._state.current_app = app_id
        elif self._state.current_app == app_id:
            self._state.current_app = None

    def _observed_app(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        app = getattr(scene, "foreground_app", None)
        if isinstance(app, str) and app:
            self._state.observed_app = app

    def _variables(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        args = getattr(step, "args", None)
        if not isinstance(args, Mapping) or "remember" not in args:
            return
        remember = args["remember"]
        if not isinstance(remember, Mapping):
            log.warning(
                "world model: 'remember' must be a mapping, got %s; variables unchanged",
                type(remember).__name__,
            )
            return
        secret = args.get("secret") is True
        for key, value in remember.items():
            if not isinstance(key, str) or not key:
                log.warning("world model: variable name %r is not a string; skipped", key)
                continue
            self._state.variables[key] = value
            if secret:
                self._state.secret_variables.add(key)
            else:
                self._state.secret_variables.discard(key)

    def _history(self, scene: Any, semantic_scene: Any, step: Any, result: Any) -> None:
        action = getattr(step, "action", None)
        success = getattr(result, "success", None)
        self._state.history.append(
            WorldEvent(
                action=action if isinstance(action, str) else repr(action),
                args=_recorded_args(getattr(step, "args", None)),
                success=success is True,
                page=self._state.current_page,
                rationale=_text(getattr(step, "rationale", None)),
                thinking=_text(getattr(step, "thinking", None)),
                purpose=_text(getattr(step, "purpose", None)),
                expected_outcome=_text(getattr(step, "expected_outcome", None)),
                error=_text(getattr(result, "error", None)),
                scene_summary=semantic_scene,
            )
        )
