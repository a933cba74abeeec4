"""Value objects shared by every layer: what is on screen, what to do, and what happened.

Everything here is a frozen dataclass with ``to_dict()`` so it can be logged, written to a run
timeline or compared in a test without touching a device.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from .selectors import Selector

__all__ = [
    "ON_FAILURE",
    "Bounds",
    "OnFailure",
    "PlannedStep",
    "Platform",
    "Scene",
    "StepResult",
    "UIElement",
    "jsonable",
    "parsed_scene",
]

Platform = Literal["android", "ios"]
PLATFORMS: tuple[str, ...] = ("android", "ios")
OnFailure = Literal["fail", "warn", "retry"]
ON_FAILURE: tuple[str, ...] = ("fail", "warn", "retry")


def jsonable(value: Any) -> Any:
    """Turn ``value`` into something ``json.dumps`` accepts, summarising what it cannot keep.

    Bytes become ``"<N bytes>"`` (a screenshot does not belong in a log line); objects with
    ``to_dict()`` are converted; anything else unknown becomes its ``repr``.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    return repr(value)


@dataclass(frozen=True, slots=True)
class Bounds:
    """A screen rectangle in the device's own units (pixels on Android, points on iOS)."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def center(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    def is_empty(self) -> bool:
        """True for zero-size or inverted rectangles: nothing there can be tapped."""
        return self.width <= 0 or self.height <= 0

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersection(self, other: Bounds) -> Bounds | None:
        left, top = max(self.left, other.left), max(self.top, other.top)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Bounds(left, top, right, bottom)

    @classmethod
    def from_rect(cls, x: float, y: float, width: float, height: float) -> Bounds:
        """From an origin and a size, as iOS reports them (rounded to whole units)."""
        left, top = round(x), round(y)
        return cls(left, top, left + round(width), top + round(height))

    def to_dict(self) -> dict[str, int]:
        return {"left": self.left, "top": self.top, "right": self.right, "bottom": self.bottom}


EMPTY_BOUNDS = Bounds(0, 0, 0, 0)


@dataclass(frozen=True, slots=True, eq=False)
class UIElement:
    """One node of a device's UI tree in platform-neutral terms.

    ``type`` keeps the native name (``android.widget.Button``, ``XCUIElementTypeButton``).
    ``label`` is Android's content-desc or iOS's accessibility label; ``identifier`` is Android's
    resource-id or iOS's accessibility identifier (WDA ``name``). Flags a platform does not report
    are ``None`` rather than a guessed ``False``. ``attributes`` keeps the raw attributes as read
    (for an element parsed from XML, a read-only mapping over its document node: ``dict()`` it for
    a copy to change or to serialise).

    Equality and hash are by value over every field but ``attributes``, as for a dataclass; an
    element a parser builds on demand (:class:`~core.lazy.LazyElement`) equals the plain one.
    """

    type: str
    text: str | None = None
    label: str | None = None
    identifier: str | None = None
    value: str | None = None
    bounds: Bounds = EMPTY_BOUNDS
    enabled: bool = True
    visible: bool = True
    clickable: bool | None = None
    focusable: bool | None = None
    focused: bool | None = None
    selected: bool | None = None
    checked: bool | None = None
    scrollable: bool | None = None
    password: bool | None = None
    children: tuple[UIElement, ...] = ()
    attributes: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def _key(self) -> tuple[object, ...]:
        return (
            self.type,
            self.text,
            self.label,
            self.identifier,
            self.value,
            self.bounds,
            self.enabled,
            self.visible,
            self.clickable,
            self.focusable,
            self.focused,
            self.selected,
            self.checked,
            self.scrollable,
            self.password,
            self.children,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, UIElement):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def iter(self) -> Iterator[UIElement]:
        """This element and all its descendants, depth first, in document order."""
        stack: list[UIElement] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    @property
    def display_text(self) -> str | None:
        """What a person would read on it: the text, else the label, else the value."""
        return self.text or self.label or self.value or None

    def to_dict(self, *, children: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in ("text", "label", "identifier", "value"):
            val = getattr(self, name)
            if val is not None:
                out[name] = val
        out["bounds"] = self.bounds.to_dict()
        out["enabled"] = self.enabled
        out["visible"] = self.visible
        for name in ("clickable", "focusable", "focused", "selected", "checked", "scrollable", "password"):
            val = getattr(self, name)
            if val is not None:
                out[name] = val
        if children and self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out


ElementPredicate = Callable[[UIElement], bool]


@dataclass(frozen=True, slots=True)
class Scene:
    """One observation of a device screen.

    ``foreground_app`` is the package (Android) or bundle id (iOS) the backend reported for the
    app in front, or ``None`` when it did not say. ``source`` keeps the raw dump it was built from
    (for evidence and timelines); it is never re-parsed implicitly.
    """

    device_id: str
    platform: Platform
    root: UIElement
    foreground_app: str | None = None
    activity: str | None = None
    window_size: tuple[int, int] = (0, 0)
    captured_at: float = field(default_factory=time.time)
    backend: str = "unknown"
    capture_duration: float = 0.0
    source: str | None = field(default=None, compare=False, repr=False)
    # What the backend itself said covers the screen (a kind of amc.core.apps.COVER_KINDS:
    # "keyguard" when WebDriverAgent says the phone is locked), None when it said nothing.
    cover: str | None = None
    # UTF-8 bytes a parser checked and left to decode when ``source`` is first read.
    _utf8: bytes | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_platform(self.platform)

    def __iter__(self) -> Iterator[UIElement]:
        return self.root.iter()

    def elements(self) -> list[UIElement]:
        """Every element, depth first, in document order."""
        return list(self.root.iter())

    def __len__(self) -> int:
        from .lazy import count  # answered natively when a parser built the tree

        return count(self.root)

    @property
    def window(self) -> Bounds:
        width, height = self.window_size
        return Bounds(0, 0, width, height)

    def find_all(self, match: Selector | ElementPredicate) -> list[UIElement]:
        """Every element the selector (or predicate) matches, in document order."""
        from .selectors import Selector

        if isinstance(match, Selector):
            return match.find_all(self)
        return [el for el in self.root.iter() if match(el)]

    def find(self, match: Selector | ElementPredicate) -> UIElement | None:
        """The first element the selector (or predicate) matches, or None."""
        from .selectors import Selector

        if isinstance(match, Selector):
            return match.first(self)
        for el in self.root.iter():
            if match(el):
                return el
        return None

    def texts(self) -> list[str]:
        """The readable text of every visible element that has some, in document order."""
        from .lazy import texts  # answered natively when a parser built the tree

        return texts(self.root)

    def to_dict(self, *, tree: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "device_id": self.device_id,
            "platform": self.platform,
            "foreground_app": self.foreground_app,
            "activity": self.activity,
            "window_size": list(self.window_size),
            "captured_at": self.captured_at,
            "backend": self.backend,
            "capture_duration": self.capture_duration,
            "element_count": len(self),
            "cover": self.cover,
        }
        if tree:
            out["root"] = self.root.to_dict()
        return out


_SOURCE_SLOT: Any = vars(Scene)["source"]  # the slots behind the descriptor below
_UTF8_SLOT: Any = vars(Scene)["_utf8"]


class _SourceText:
    """``Scene.source``: the text given, or the UTF-8 bytes :func:`parsed_scene` left, decoded
    (and kept) on first read."""

    def __get__(self, obj: Scene | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        text = _SOURCE_SLOT.__get__(obj)
        if text is None:
            raw = _UTF8_SLOT.__get__(obj)
            if raw is not None:
                text = raw.decode("utf-8", "replace")
                _SOURCE_SLOT.__set__(obj, text)
                _UTF8_SLOT.__set__(obj, None)
        return text

    def __set__(self, obj: Scene, value: str | None) -> None:
        _SOURCE_SLOT.__set__(obj, value)


setattr(Scene, "source", _SourceText())  # noqa: B010 - the slot stays behind the descriptor


def _check_platform(platform: str) -> None:
    if platform not in PLATFORMS:
        raise ValueError(f"Scene.platform must be one of {PLATFORMS}, got {platform!r}")


_SCENE_FIELDS: Final = (
    "device_id",
    "platform",
    "root",
    "foreground_app",
    "activity",
    "window_size",
    "captured_at",
    "backend",
    "capture_duration",
    "source",
    "cover",
    "_utf8",
)
# The slots' setters, or None (then the constructor) if Scene ever changes shape.
_SCENE_SETTERS: Final = (
    tuple((_SOURCE_SLOT if name == "source" else vars(Scene)[name]).__set__ for name in _SCENE_FIELDS)
    if tuple(f.name for f in fields(Scene)) == _SCENE_FIELDS
    else None
)


def parsed_scene(
    *,
    device_id: str,
    platform: Platform,
    root: UIElement,
    foreground_app: str | None,
    window_size: tuple[int, int],
    backend: str,
    capture_duration: float,
    source: str | None,
    utf8: bytes | None = None,
) -> Scene:
    """The Scene a parser built, its fields set straight into their slots (the frozen dataclass's
    ``__init__`` costs a microsecond, a third of parsing a small dump). With ``utf8`` (and no
    ``source``), ``source`` is those bytes decoded when first read: a parser whose XML parser
    already checked them saves the decoding while nobody asks."""
    _check_platform(platform)
    if _SCENE_SETTERS is None:  # pragma: no cover - only if Scene changes shape
        scene = Scene(
            device_id=device_id,
            platform=platform,
            root=root,
            foreground_app=foreground_app,
            window_size=window_size,
            backend=backend,
            capture_duration=capture_duration,
            source=source,
        )
        _UTF8_SLOT.__set__(scene, utf8 if source is None else None)
        return scene
    scene = object.__new__(Scene)
    values = (
        device_id,
        platform,
        root,
        foreground_app,
        None,
        window_size,
        time.time(),
        backend,
        capture_duration,
        source,
        None,
        utf8 if source is None else None,
    )
    for setter, value in zip(_SCENE_SETTERS, values, strict=True):
        setter(scene, value)
    return scene


@dataclass(frozen=True)
class PlannedStep:
    """One action a planner wants executed, with the reasons it gave.

    ``args`` holds what the action needs (``{"app_id": ...}``, ``{"x": 10, "y": 20}`` …);
    ``rationale``/``thinking``/``purpose``/``expected_outcome`` are free text a planner may add
    and the world model keeps in its history. Invalid steps fail here, before any device call.

    ``on_failure`` says what a failure of this step means to the task (see
    :func:`amc.core.steps.step_status`): ``fail`` (the default) counts as a failed step; ``warn``
    (an optional flow step) is recorded as a warning; ``retry`` (a step of a block that will be run
    again) is recorded as retried. Neither of the last two fails the task.
    """

    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
    rationale: str | None = None
    thinking: str | None = None
    purpose: str | None = None
    expected_outcome: str | None = None
    on_failure: OnFailure = "fail"

    def __post_init__(self) -> None:
        if not isinstance(self.action, str) or not self.action.strip():
            raise ValueError(f"PlannedStep.action must be a non-empty string, got {self.action!r}")
        if not isinstance(self.args, Mapping):
            raise ValueError(
                f"PlannedStep.args must be a mapping of names to values, got {type(self.args).__name__}"
            )
        for key in self.args:
            if not isinstance(key, str):
                raise ValueError(f"PlannedStep.args keys must be strings, got {key!r}")
        for name in ("rationale", "thinking", "purpose", "expected_outcome"):
            val = getattr(self, name)
            if val is not None and not isinstance(val, str):
                raise ValueError(f"PlannedStep.{name} must be a string or None, got {type(val).__name__}")
        if self.on_failure not in ON_FAILURE:
            raise ValueError(
                f"PlannedStep.on_failure must be one of {', '.join(ON_FAILURE)}, got {self.on_failure!r}"
            )
        # Keep the step immutable even when the caller keeps a reference to the dict it passed.
        object.__setattr__(self, "args", dict(self.args))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "action": self.action,
            "args": jsonable(self.args),
            "rationale": self.rationale,
            "thinking": self.thinking,
            "purpose": self.purpose,
            "expected_outcome": self.expected_outcome,
        }
        if self.on_failure != "fail":
            out["on_failure"] = self.on_failure
        return out


@dataclass(frozen=True)
class StepResult:
    """What happened when a step ran.

    On failure ``error`` is the message and ``error_kind`` the exception's class name
    (``AppNotInstalled``, ``DeviceTimeout`` …); ``error_category`` is the branch of the error
    tree (``device``, ``app`` …). ``retryable`` is set when the failure was transient *and* the
    action is safe to repeat; the task loop decides whether to repeat it.
    """

    success: bool
    error: str | None = None
    output: Any = None
    duration: float = 0.0
    error_kind: str | None = None
    error_category: str | None = None
    retryable: bool = False
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "error": self.error,
            "error_kind": self.error_kind,
            "error_category": self.error_category,
            "output": jsonable(self.output),
            "duration": round(self.duration, 6),
            "attempts": self.attempts,
        }
