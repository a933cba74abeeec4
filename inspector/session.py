"""One device seen through the inspector: the latest screen, its elements, and actions on it.

A :class:`Snapshot` is one look (the Scene, its picture, its elements numbered in document order)
with a version; a page names an element by (version, number), so an action never lands on an
element of a screen that has since changed (:class:`StaleScreen`). Every action is written as a
flow step first, checked by the flow loader, turned into the ``PlannedStep`` a flow run would
make and run the one way a step runs (:class:`amc.runtime.session.Session`: the executor `amc run`
uses, selectors resolved on the look the page showed, one look after the step): a tap on an
element is written with the first of its unique selectors, and what the inspector did is exactly
what a replay of the recording does. A step that succeeded is appended to the draft (when
recording); the look after it, with a new picture, is the next snapshot. One lock keeps the
actions of concurrent requests in order.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..actions.swipe import DIRECTIONS
from ..core.errors import HarnessError, StepArgumentError, TargetNotFound
from ..core.models import Scene, UIElement
from ..drivers.base import Driver
from ..flows import parse_flow
from ..runtime.session import Session
from .draft import FlowDraft
from .selectors import flow_yaml, unique_selectors

__all__ = ["DIRECTIONS", "MAX_TEXT", "InspectorSession", "Snapshot", "StaleScreen"]

MAX_TEXT = 2000
_IOS_BUTTON = "XCUIElementTypeButton"
_IOS_NAVBAR = "XCUIElementTypeNavigationBar"


class StaleScreen(TargetNotFound):
    """The page named an element of a screen that is no longer the latest one."""


@dataclass(frozen=True)
class Snapshot:
    """One look at the device: ``elements[i]`` is element ``i`` (document order) of ``scene``."""

    version: int
    scene: Scene
    elements: tuple[UIElement, ...]
    parents: tuple[int | None, ...]
    picture: bytes | None
    picture_error: str | None = None

    @classmethod
    def of(cls, version: int, scene: Scene, picture: bytes | None, problem: str | None) -> Snapshot:
        elements: list[UIElement] = []
        parents: list[int | None] = []
        stack: list[tuple[UIElement, int | None]] = [(scene.root, None)]
        while stack:
            el, parent = stack.pop()
            parents.append(parent)
            elements.append(el)
            number = len(elements) - 1
            stack.extend((child, number) for child in reversed(el.children))
        return cls(version, scene, tuple(elements), tuple(parents), picture, problem)


class InspectorSession:
    """The inspector's device. Nothing is asked of it before :meth:`look`."""

    def __init__(self, driver: Driver, *, draft: FlowDraft | None = None) -> None:
        self.driver = driver
        self.draft = draft
        # The world model is off: the inspector shows the device, it keeps no belief about it.
        self._session = Session(driver, goal="inspect", world_model=None)
        self._lock = threading.RLock()
        self._snapshot: Snapshot | None = None
        self._versions = 0

    @property
    def platform(self) -> str:
        return self.driver.platform

    def look(self) -> Snapshot:
        """Observe the device and take its picture: the new latest snapshot."""
        with self._lock:
            return self._snapshot_of(self._session.look().scene)

    def _snapshot_of(self, scene: Scene) -> Snapshot:
        with self._lock:
            picture: bytes | None = None
            problem: str | None = None
            try:
                picture = self.driver.screenshot()
            except HarnessError as exc:  # the tree is still worth showing
                problem = str(exc)
            self._versions += 1
            self._snapshot = Snapshot.of(self._versions, scene, picture, problem)
            return self._snapshot

    def latest(self) -> Snapshot:
        with self._lock:
            return self._snapshot if self._snapshot is not None else self.look()

    def _current(self, version: Any) -> Snapshot:
        snapshot = self.latest()
        if version != snapshot.version:
            raise StaleScreen(
                f"the page acted on screen {version!r}, but the latest is screen {snapshot.version}",
                hint="refresh the page's screen and choose the element again",
            )
        return snapshot

    def element(self, version: Any, ref: Any) -> tuple[Snapshot, UIElement]:
        snapshot = self._current(version)
        if isinstance(ref, bool) or not isinstance(ref, int) or not 0 <= ref < len(snapshot.elements):
            raise TargetNotFound(
                f"screen {snapshot.version} has no element {ref!r} (it has {len(snapshot.elements)})"
            )
        return snapshot, snapshot.elements[ref]

    def details(self, version: Any, ref: Any) -> dict[str, Any]:
        """An element's attributes and the flow selectors that find it and only it."""
        snapshot, el = self.element(version, ref)
        suggestions = unique_selectors(snapshot.scene, el)
        return {
            "version": snapshot.version,
            "ref": ref,
            "attributes": {**el.to_dict(children=False), "raw": dict(el.attributes)},
            "selectors": [{**s.to_dict(), "step": f"- tap: {s.yaml}"} for s in suggestions],
        }

    # --- actions ------------------------------------------------------------------------------

    def _run(self, snapshot: Snapshot, command: str, value: Any) -> Snapshot:
        """Check ``command: value`` as a flow step, run it on ``snapshot``, record it, look again."""
        text = "steps:\n  - " + flow_yaml({command: value}) + "\n"
        flow = parse_flow(text, file="<inspector>", environ={})
        step = flow.planned_steps(self.platform)[0]
        if "timeout" in step.args:  # acted on the screen shown: its element is there or it is not
            step = dataclasses.replace(step, args={**step.args, "timeout": 0.0})
        latest = self._session.context.latest
        if latest is None or latest.scene is not snapshot.scene:
            raise StaleScreen("the device was looked at since this screen was shown", hint="refresh")
        outcome = self._session.run_step(step)  # on the session's latest look: the snapshot shown
        if not outcome.result.success:
            if outcome.observation is not None:  # what the device shows now, for the page's next look
                self._snapshot_of(outcome.observation.scene)
            raise _failure(outcome.result.error_kind, outcome.result.error)
        if self.draft is not None:
            self.draft.add(command, value)
        if outcome.observation is None:
            return self.look()  # the look after the step failed: try once more, or say why
        return self._snapshot_of(outcome.observation.scene)

    def _selector(self, snapshot: Snapshot, el: UIElement) -> Mapping[str, Any]:
        suggestions = unique_selectors(snapshot.scene, el, limit=1)
        if not suggestions:
            raise TargetNotFound("no selector finds this element alone on this screen")
        return suggestions[0].fields

    def tap(self, version: Any, ref: Any) -> Snapshot:
        with self._lock:
            snapshot, el = self.element(version, ref)
            return self._run(snapshot, "tap", dict(self._selector(snapshot, el)))

    def type_text(self, version: Any, text: Any, ref: Any = None) -> Snapshot:
        with self._lock:
            if not isinstance(text, str) or len(text) > MAX_TEXT:
                raise StepArgumentError(f"the text to type must be a string of at most {MAX_TEXT} characters")
            value: dict[str, Any] = {"text": text}
            if ref is None:
                snapshot = self._current(version)
            else:
                snapshot, el = self.element(version, ref)
                value["target"] = dict(self._selector(snapshot, el))
                if el.password or el.type.endswith("SecureTextField"):
                    value["secret"] = True
            return self._run(snapshot, "type_text", value)

    def back(self, version: Any) -> Snapshot:
        """Android's back key; on iOS (no back key) a tap on the navigation bar's back button."""
        with self._lock:
            snapshot = self._current(version)
            if self.platform == "android":
                return self._run(snapshot, "press", "back")
            for number, el in enumerate(snapshot.elements):
                parent = snapshot.parents[number]
                if (
                    el.type == _IOS_BUTTON
                    and el.visible
                    and parent is not None
                    and snapshot.elements[parent].type == _IOS_NAVBAR
                ):
                    return self._run(snapshot, "tap", dict(self._selector(snapshot, el)))
            raise TargetNotFound(
                "this screen has no back button (iOS has no back key)",
                hint="tap the element that goes back, or press home",
            )

    def swipe(self, version: Any, direction: Any) -> Snapshot:
        with self._lock:
            if direction not in DIRECTIONS:
                raise StepArgumentError(
                    f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}"
                )
            return self._run(self._current(version), "swipe", direction)


def _failure(kind: str | None, message: str | None) -> HarnessError:
    """The error a failed step reported, as its own class of the error tree when it is one."""
    from ..core import errors

    cls = getattr(errors, kind or "", None) if kind in errors.__all__ else None
    text = message or "the step failed"
    if isinstance(cls, type) and issubclass(cls, HarnessError):
        return cls(text)
    return HarnessError(f"{kind}: {text}" if kind else text)
