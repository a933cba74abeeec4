"""What the harness believes about the device during one task: frozen values, replaced per update.

A :class:`WorldState` never changes once made: :class:`amc.world.model.WorldModel` builds the next
one after each step, so a planner (or anyone else) holding a state holds exactly what was believed
when it was handed out, and cannot change what the task believes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, NoReturn, overload

from ..core.models import Scene, jsonable
from ..core.steps import REDACTED

__all__ = ["DEFAULT_HISTORY_SIZE", "REDACTED", "History", "WorldEvent", "WorldState", "frozen"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def frozen(value: Any) -> Any:
    """``value`` made read-only all the way down: mappings become read-only mappings, lists and
    tuples tuples, sets frozensets; anything else is kept as it is."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(value)
    return value


def _summary(value: Any) -> Any:
    """A history record's scene summary as JSON: a SemanticScene whole (a few names), a Scene as
    what identifies it (the whole tree would make every timeline record and prompt carry it)."""
    if isinstance(value, Scene):
        return {
            "platform": str(value.platform),
            "foreground_app": value.foreground_app,
            "activity": value.activity,
            "elements": len(value),
        }
    return jsonable(value)


@dataclass(frozen=True)
class WorldEvent:
    """One executed step as the world model remembers it.

    The first four fields are the design's own, in its order (``WorldEvent(scene_summary, action,
    success, timestamp)``); the rest came with the history-records change and are keywords.
    ``scene_summary`` is optional: the step's SemanticScene, else its Scene, else None. ``args`` is
    a read-only copy with secrets hidden. ``page`` is ``WorldState.current_page`` when the record
    was made (after this step's own observation was applied). ``verified``, ``changed`` and
    ``saw`` are the loop's check of the step's expected outcome against the look after it
    (:mod:`amc.runtime.expectations`; None when no look followed the step).
    """

    scene_summary: Any = None
    action: str = ""
    success: bool = False
    timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))
    _: KW_ONLY
    args: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    page: str | None = None
    rationale: str | None = None
    thinking: str | None = None
    purpose: str | None = None
    expected_outcome: str | None = None
    error: str | None = None
    verified: bool | None = None
    changed: bool | None = None
    saw: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.action, str) or not self.action:
            raise TypeError(f"WorldEvent needs the action's name, got {self.action!r}")
        if not isinstance(self.args, MappingProxyType):
            object.__setattr__(self, "args", frozen(self.args if isinstance(self.args, Mapping) else {}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "args": jsonable(self.args),
            "success": self.success,
            "page": self.page,
            "rationale": self.rationale,
            "thinking": self.thinking,
            "purpose": self.purpose,
            "expected_outcome": self.expected_outcome,
            "error": self.error,
            "verified": self.verified,
            "changed": self.changed,
            "saw": self.saw,
            "scene_summary": _summary(self.scene_summary),
            "timestamp": self.timestamp.isoformat(),
        }


DEFAULT_HISTORY_SIZE = 10  # the design's bound; world/config.py reads the configured one


class History(Sequence[WorldEvent]):
    """A task's recent steps, oldest first, at most ``maxlen`` of them: a read-only sequence.

    It reads as the design's ``deque(maxlen=N)`` does (``len``, indexing, iteration, ``maxlen``)
    but cannot be written: a state is frozen, and the world model makes each next history with
    :meth:`appended`, which drops the oldest entry once ``maxlen`` are kept. ``append`` and the
    deque's other writers raise ``TypeError``. Equal to any sequence of the same events.
    """

    __slots__ = ("_events", "_maxlen")

    def __init__(self, events: Iterable[WorldEvent] = (), maxlen: int = DEFAULT_HISTORY_SIZE) -> None:
        if isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen < 1:
            raise ValueError(f"History.maxlen must be a positive integer, got {maxlen!r}")
        kept = tuple(events)
        self._events = kept[-maxlen:] if len(kept) > maxlen else kept
        self._maxlen = maxlen

    @property
    def maxlen(self) -> int:
        return self._maxlen

    def appended(self, event: WorldEvent) -> History:
        """A new history with ``event`` last, the oldest dropped past ``maxlen``."""
        new = History.__new__(History)
        kept = self._events[-(self._maxlen - 1) :] if self._maxlen > 1 else ()
        new._events = (*kept, event)
        new._maxlen = self._maxlen
        return new

    @overload
    def __getitem__(self, index: int) -> WorldEvent: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[WorldEvent, ...]: ...
    def __getitem__(self, index: int | slice) -> WorldEvent | tuple[WorldEvent, ...]:
        return self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[WorldEvent]:
        return iter(self._events)

    def __reversed__(self) -> Iterator[WorldEvent]:
        return reversed(self._events)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self._events == other._events
        if (isinstance(other, Sequence) and not isinstance(other, str | bytes)) or hasattr(other, "maxlen"):
            return self._events == tuple(other)  # type: ignore[arg-type]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._events)

    def __repr__(self) -> str:
        return f"History({list(self._events)!r}, maxlen={self._maxlen})"

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "WorldState.history is read-only: the world model records each step (WorldModel.observe)"
        )

    append = appendleft = extend = extendleft = pop = popleft = clear = remove = rotate = _refuse


_NO_HISTORY = History()


@dataclass(frozen=True)
class WorldState:
    """Per-task belief: the app and page in front, remembered variables, recent steps.

    The design's four fields come first, in its order: ``current_app`` follows successful
    launch/terminate steps; ``current_page`` the page the enricher named last; ``variables`` what
    steps asked to remember; ``history`` the last ``history_size`` steps, oldest first, as a
    read-only :class:`History` whose ``maxlen`` is that bound (a ``deque(maxlen=N)`` passed in is
    taken with its bound). Added since: ``observed_app`` is what the device last reported in a
    Scene, so a planner can see when the two disagree; ``overlay`` names the alert or system dialog
    covering the app in the last observation (None when nothing does, or when the semantic layer
    is off) and ``overlay_kind`` what kind of cover it is (:data:`amc.core.apps.COVER_KINDS`:
    ``anr``, ``crash``, ``permission``, ``chooser`` …). Variables named in ``secret_variables`` keep their
    value for the planner but are shown as ``***`` by ``to_dict()``, which is what timelines and
    reports use. Every field is read-only (``variables`` is a read-only mapping of read-only
    values); only the world model makes new states.
    """

    current_app: str | None = None
    current_page: str | None = None
    variables: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    history: History = field(default_factory=lambda: _NO_HISTORY)
    observed_app: str | None = None
    secret_variables: frozenset[str] = frozenset()
    history_size: int = DEFAULT_HISTORY_SIZE
    overlay: str | None = None
    overlay_kind: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.variables, MappingProxyType):
            object.__setattr__(self, "variables", frozen(self.variables))
        if not isinstance(self.secret_variables, frozenset):
            object.__setattr__(self, "secret_variables", frozenset(self.secret_variables))
        history: Any = self.history
        if history is not _NO_HISTORY and isinstance(history, History):
            object.__setattr__(self, "history_size", history.maxlen)
            return
        bound = getattr(history, "maxlen", None)  # a deque(maxlen=N) carries its own bound
        size = bound if bound is not None and history is not _NO_HISTORY else self.history_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"WorldState.history_size must be a positive integer, got {size!r}")
        object.__setattr__(self, "history_size", size)
        object.__setattr__(self, "history", History(history, size))

    @classmethod
    def empty(cls, history_size: int = DEFAULT_HISTORY_SIZE) -> WorldState:
        return cls(history_size=history_size)

    @property
    def last_event(self) -> WorldEvent | None:
        return self.history[-1] if self.history else None

    def with_event(self, event: WorldEvent) -> History:
        """The history with ``event`` appended and the oldest dropped past ``history_size``."""
        return self.history.appended(event)

    def to_dict(self) -> dict[str, Any]:
        return {
            "current_app": self.current_app,
            "current_page": self.current_page,
            "observed_app": self.observed_app,
            "overlay": self.overlay,
            "overlay_kind": self.overlay_kind,
            "variables": {
                key: REDACTED if key in self.secret_variables else jsonable(value)
                for key, value in self.variables.items()
            },
            "history": [event.to_dict() for event in self.history],
        }
