"""The world model: derives a task's WorldState from the data the loop already has.

Two entry points, both pure bookkeeping over their arguments (no I/O, no model call):

- :meth:`WorldModel.observe` ``(scene, semantic_scene, step, result)``, the design's single update
  entry point, folds in one executed step with the look made after it: the observed app, the
  page, the overlay, the current app, the variables and one history record;
- :meth:`WorldModel.see` ``(scene, semantic_scene=None)`` folds in a look at the device that is not
  a step's outcome (the first look of a task, the polls of a waiting step): the first three only.

Each rule is applied on its own: a rule that cannot use its input logs why and leaves its field
unchanged, and nothing ever raises out of either method, whatever the values inside the typed
arguments are. Each update makes a new frozen :class:`WorldState`; ``state`` is the latest.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.models import PlannedStep, Scene, StepResult
from ..core.steps import app_id_from_args, hide_secrets, secret_names
from ..semantic.models import SemanticScene
from .config import WorldConfig
from .models import WorldEvent, WorldState, frozen

__all__ = ["WorldModel"]

log = logging.getLogger(__name__)

_MAX_TEXT = 2000

Changes = dict[str, Any]


def _text(value: Any) -> str | None:
    """A short string field for the history, or None when the input is not a string."""
    if isinstance(value, str):
        return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + "…"
    return None


def _verification(value: Any) -> dict[str, Any]:
    """The history fields of a step result's ``verification`` (what the loop checked after it)."""
    if not isinstance(value, Mapping):
        return {}
    verified, changed = value.get("verified"), value.get("changed")
    return {
        "verified": verified if isinstance(verified, bool) else None,
        "changed": changed if isinstance(changed, bool) else None,
        "saw": _text(value.get("saw")),
    }


@dataclass(frozen=True)
class _Look:
    """What the rules read of one look: the Scene and its SemanticScene, either possibly None."""

    scene: Any
    semantic: Any


class WorldModel:
    """Owns one task's :class:`WorldState` and applies the update rules to it."""

    def __init__(self, config: WorldConfig | None = None) -> None:
        self.config = config or WorldConfig()
        self._state = WorldState.empty(self.config.history_size)

    @property
    def state(self) -> WorldState:
        return self._state

    def see(self, scene: Scene | None, semantic_scene: SemanticScene | None = None) -> None:
        """Fold in a look at the device that no step caused. Never raises."""
        self._apply((self._screen,), _Look(scene, semantic_scene), None, None)

    def observe(
        self,
        scene: Scene | None,
        semantic_scene: SemanticScene | None,
        step: PlannedStep,
        result: StepResult,
    ) -> None:
        """Fold one executed step into the state: ``scene`` is the look made after it (None when
        the device could not be observed), ``semantic_scene`` its enrichment (None when enrichment
        is off or found nothing), ``step`` what ran and ``result`` how it went. Never raises."""
        self._apply(
            (self._screen, self._app, self._variables, self._history),
            _Look(scene, semantic_scene),
            step,
            result,
        )

    def _apply(
        self,
        rules: tuple[Callable[[Changes, _Look, Any, Any], None], ...],
        look: _Look,
        step: PlannedStep | None,
        result: StepResult | None,
    ) -> None:
        changes: Changes = {}
        for rule in rules:
            try:
                rule(changes, look, step, result)
            except Exception:
                log.exception("world model: rule %s skipped for step %r", rule.__name__, step)
        if changes:
            self._state = dataclasses.replace(self._state, **changes)

    def _now(self, changes: Changes, name: str) -> Any:
        """A field's value as the rules applied so far left it."""
        return changes[name] if name in changes else getattr(self._state, name)

    # --- rules ------------------------------------------------------------------------------

    def _screen(self, changes: Changes, look: _Look, step: Any, result: Any) -> None:
        if look.scene is None and look.semantic is None:
            return
        app = getattr(look.scene, "foreground_app", None)
        if isinstance(app, str) and app:
            changes["observed_app"] = app
        semantic = look.semantic
        if semantic is None:
            changes["overlay"] = changes["overlay_kind"] = None
            return
        page = getattr(semantic, "page", None)
        if isinstance(page, str) and page.strip():
            changes["current_page"] = page
        else:
            log.debug("world model: semantic scene without a usable page (%r); page unchanged", page)
        alert = getattr(semantic, "alert", None)
        changes["overlay"] = alert if isinstance(alert, str) and alert else None
        kind = getattr(semantic, "cover", None)
        changes["overlay_kind"] = kind if changes["overlay"] is not None and isinstance(kind, str) else None

    def _app(self, changes: Changes, look: _Look, step: Any, result: Any) -> None:
        """``current_app`` from a successful lifecycle step: ``launch_app`` (and ``open_link`` naming
        an app) sets it; ``terminate_app`` and ``clear_state`` (which stops the app) clear it when
        they name it; an ``open_link`` naming no app makes it unknown (the link may open any app)."""
        action = getattr(step, "action", None)
        if action not in ("launch_app", "terminate_app", "clear_state", "open_link"):
            return
        if getattr(result, "success", None) is not True:
            return
        app_id = app_id_from_args(getattr(step, "args", None))
        if action == "open_link":
            changes["current_app"] = app_id
            return
        if app_id is None:
            log.warning(
                "world model: %s step without app_id/bundle_id/package; current_app unchanged", action
            )
            return
        if action == "launch_app":
            changes["current_app"] = app_id
        elif self._now(changes, "current_app") == app_id:
            changes["current_app"] = None

    def _variables(self, changes: Changes, look: _Look, step: Any, result: Any) -> None:
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
        hidden = secret_names(args)
        variables = dict(self._now(changes, "variables"))
        secrets = set(self._now(changes, "secret_variables"))
        for key, value in remember.items():
            if not isinstance(key, str) or not key:
                log.warning("world model: variable name %r is not a string; skipped", key)
                continue
            variables[key] = frozen(value)
            if key in hidden:
                secrets.add(key)
            else:
                secrets.discard(key)
        changes["variables"] = frozen(variables)
        changes["secret_variables"] = frozenset(secrets)

    def _history(self, changes: Changes, look: _Look, step: Any, result: Any) -> None:
        action = getattr(step, "action", None)
        success = getattr(result, "success", None)
        event = WorldEvent(
            # the design's summary: the SemanticScene when there is one, else the Scene
            look.semantic if look.semantic is not None else look.scene,
            action if isinstance(action, str) and action else repr(action),
            success is True,
            args=hide_secrets(getattr(step, "args", None)),
            page=self._now(changes, "current_page"),
            rationale=_text(getattr(step, "rationale", None)),
            thinking=_text(getattr(step, "thinking", None)),
            purpose=_text(getattr(step, "purpose", None)),
            expected_outcome=_text(getattr(step, "expected_outcome", None)),
            error=_text(getattr(result, "error", None)),
            **_verification(getattr(result, "verification", None)),
        )
        changes["history"] = self._state.with_event(event)
