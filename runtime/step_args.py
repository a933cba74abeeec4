"""What every step handler shares: the :class:`Screen` it sees, the :class:`Action` table entry, and
the checked reading of a step's arguments (each wrong argument a ``StepArgumentError`` naming it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import ConfigError, StepArgumentError, TargetNotFound
from ..core.limits import quote
from ..core.models import Scene
from ..core.selectors import Selector
from ..core.steps import APP_ID_KEYS, SELECTOR_KEYS, app_id_from_args
from ..semantic.models import Observation
from ..world.models import WorldState

if TYPE_CHECKING:
    from .executor import Executor

__all__ = [
    "COMMON_KEYS",
    "MAX_COORDINATE",
    "Action",
    "Screen",
    "app_id_arg",
    "describe_scene",
    "latest_scene",
    "needs_selector",
    "screen_point",
    "selector_arg",
    "string_arg",
]

COMMON_KEYS = frozenset({"remember", "secret"})  # arguments every step may carry
MAX_COORDINATE = 100_000  # the bound of a coordinate when no screen with a known size has been seen


class Screen(Protocol):
    """What a step sees of the device: the latest observation and a way to look again.

    :class:`amc.runtime.observer.Observer` is the one implementation the task loop uses.
    """

    @property
    def latest(self) -> Observation | None: ...

    @property
    def world(self) -> WorldState | None: ...

    def observe(self) -> Observation: ...


@dataclass(frozen=True)
class Action:
    """One entry of the action table."""

    handler: Callable[[Executor, Mapping[str, Any], Screen], Any]
    keys: frozenset[str]
    idempotent: bool
    summary: str
    looks_after: bool = True  # False: sends nothing to the device, so the loop need not look again


def string_arg(args: Mapping[str, Any], name: str, *, allow_empty: bool = False) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise StepArgumentError(f"argument {name!r} must be a string, got {value!r}")
    if not allow_empty and not value.strip():
        raise StepArgumentError(f"argument {name!r} must not be empty")
    return value


def app_id_arg(args: Mapping[str, Any]) -> str:
    app_id = app_id_from_args(args)
    if app_id is None:
        raise StepArgumentError(f"needs the app to act on as one of {', '.join(APP_ID_KEYS)}")
    return app_id


def selector_arg(args: Mapping[str, Any], *, key: str = "target", inline: bool = True) -> Selector | None:
    """The selector a step names under ``target`` (or, with ``inline``, as top-level fields)."""
    try:
        if key in args:
            return Selector.from_mapping(args[key])
        if inline:
            fields = {k: v for k, v in args.items() if k in SELECTOR_KEYS}
            if fields:
                return Selector.from_mapping(fields)
    except ConfigError as exc:
        raise StepArgumentError(f"bad selector: {exc.message}") from exc
    return None


def screen_point(args: Mapping[str, Any], names: tuple[str, str], screen: Screen) -> tuple[int, int]:
    """The point a step names under ``names`` (x, y), in device units, inside the screen: from 0 up
    to (not including) the latest screen's width and height, or :data:`MAX_COORDINATE` while no
    screen of known size has been seen. Anything else is a ``StepArgumentError`` naming the argument,
    before the device is asked anything. The one bound of a coordinate every planner's step meets
    (flows, the agent, MCP, the inspector)."""
    latest = screen.latest
    window = latest.scene.window_size if latest is not None else (0, 0)
    point: list[int] = []
    for name, size in zip(names, window, strict=True):
        value = args.get(name)
        if value is None:
            raise StepArgumentError(f"missing argument {name!r}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise StepArgumentError(f"argument {name!r} must be a number, got {quote(value)}")
        limit = size if size > 0 else MAX_COORDINATE
        if not 0 <= value < limit:  # also NaN; a huge int is compared exactly, never converted
            where = f"inside the screen (0 to {size - 1})" if size > 0 else f"from 0 to {MAX_COORDINATE}"
            raise StepArgumentError(f"argument {name!r} must be {where}, got {quote(value)}")
        point.append(min(round(value), limit - 1))
    return point[0], point[1]


def latest_scene(screen: Screen) -> Scene:
    latest = screen.latest
    if latest is None:
        raise TargetNotFound("no screen has been observed yet, so a selector cannot be resolved")
    return latest.scene


def describe_scene(scene: Scene, limit: int = 40) -> str:
    """A short plain-text description of a Scene: app, activity and the visible texts."""
    texts = scene.texts()
    shown = ", ".join(repr(t) for t in texts[:limit])
    more = f" and {len(texts) - limit} more" if len(texts) > limit else ""
    where = scene.foreground_app or "unknown app"
    if scene.activity:
        where += f" ({scene.activity})"
    return f"{scene.platform} {scene.device_id}: {where}; {len(scene)} elements; texts: {shown}{more}"


def needs_selector(args: Mapping[str, Any]) -> Selector:
    selector = selector_arg(args)
    if selector is None:
        raise StepArgumentError("needs a selector (target / text / id / label …)")
    return selector
