"""The uiautomator2 server's JSON-RPC methods beyond taps, dumps and text (see :mod:`sim.u2_rpc`):
selectors' children and named objects, scrolling and flinging, long and double clicks through
``injectInputEvent``, drags, pinches and gestures, toasts, orientation, the notification shade and
the screen's power, each as ``AutomatorServiceImpl`` of openatx/android-uiautomator-server answers
it (``AutomatorService.java`` lists their signatures).

- ``childByText`` / ``childByDescription`` / ``childByInstance`` search a collection's descendants
  and answer a name for the object found (``UiObjectNotFoundException`` otherwise); later calls may
  pass that name where a selector goes, as the real server keeps found objects by name.
- ``scrollForward``/``Backward`` (and the fling forms) swipe inside the scrollable object and answer
  whether the content moved; ``scrollTo…End``/``…Beginning`` repeat up to ``maxSwipes``;
  ``scrollTo`` scrolls until the target exists.
- ``injectInputEvent(action, x, y, meta)``: ``ACTION_DOWN`` (0), ``ACTION_MOVE`` (2),
  ``ACTION_UP`` (1) make a touch: a tap when it did not move, a long press when held 500 ms or more
  (``ViewConfiguration.getLongPressTimeout``), a second tap within 300 ms at the same place a double
  tap (``getDoubleTapTimeout``), a swipe when it moved.
- A swipe or drag of ``steps`` lasts ``steps`` times 5 ms (``UiDevice.swipe``: "each step execution is
  throttled to 5ms per step"), on a device whose timing plays gestures.
- ``getLastToast`` answers the last toast shown (an app's, or ``makeToast``'s) until
  ``clearLastToast``; ``getLastTraversedText`` is None: no accessibility text traversal happens here.
- ``setOrientation`` takes n/natural, l/left, r/right, u/upsidedown (anything else: the server's
  ``NotImplementedException``) and ``deviceInfo`` reports it as ``displayRotation``.
- ``waitForIdle(timeout)`` answers ``null`` once the screen has not changed for Android's quiet time
  (500 ms on a phone's timing) or at the timeout (:mod:`sim.idle`).
- ``openNotification``/``openQuickSettings`` pull the shade down (:mod:`sim.covers`); ``sleep``
  turns the screen off and ``wakeUp`` on (``deviceInfo.screenOn``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .idle import wait_idle
from .nodes import SimNode
from .render_android import render_hierarchy
from .u2_selector import RpcError, candidates, selector_matches

if TYPE_CHECKING:
    from .u2_rpc import U2Server

__all__ = ["ROTATIONS", "U2Methods"]

STEP_SECONDS = 0.005
LONG_PRESS = 0.5
DOUBLE_TAP = 0.3
TOUCH_SLOP = 24.0  # px: ViewConfiguration's touch slop (8 dp at 420 dpi)
_MAX_SWIPES = 30
ROTATIONS = {"n": 0, "natural": 0, "l": 1, "left": 1, "u": 2, "upsidedown": 2, "r": 3, "right": 3}


def _not_found(selector: Any) -> RpcError:
    described = (
        {k: v for k, v in selector.items() if k not in ("mask", "childOrSibling", "childOrSiblingSelector")}
        if isinstance(selector, Mapping)
        else selector
    )
    return RpcError(-32002, f"androidx.test.uiautomator.UiObjectNotFoundException: UiSelector{described}")


class U2Methods:
    """The methods of this module for one uiautomator2 server (thread-safe)."""

    def __init__(self, server: U2Server) -> None:
        self.server = server
        self.device = server.device
        self._lock = threading.Lock()
        self._named: dict[str, SimNode] = {}
        self._down: tuple[float, float, float] | None = None  # x, y, when
        self._moved = (0.0, 0.0)
        self._last_tap: tuple[float, float, float] | None = None
        self.frozen = False

    def table(self) -> dict[str, Callable[..., Any]]:
        return {
            "childByText": self.child_by_text,
            "childByDescription": self.child_by_description,
            "childByInstance": self.child_by_instance,
            "getParent": self.get_parent,
            "waitUntilGone": self.wait_until_gone,
            "longClick": self.long_click,
            "click": self.click,
            "dragTo": self.drag_to,
            "gesture": self.gesture,
            "pinchIn": self.pinch,
            "pinchOut": self.pinch,
            "scrollForward": lambda sel, vertical=True, steps=55: self.scroll(sel, vertical, True, steps),
            "scrollBackward": lambda sel, vertical=True, steps=55: self.scroll(sel, vertical, False, steps),
            "flingForward": lambda sel, vertical=True: self.scroll(sel, vertical, True, 5, fling=True),
            "flingBackward": lambda sel, vertical=True: self.scroll(sel, vertical, False, 5, fling=True),
            "scrollToEnd": lambda sel, vertical=True, swipes=20, steps=55: self.to_edge(
                sel, vertical, True, swipes
            ),
            "scrollToBeginning": lambda sel, vertical=True, swipes=20, steps=55: self.to_edge(
                sel, vertical, False, swipes
            ),
            "flingToEnd": lambda sel, vertical=True, swipes=20: self.to_edge(sel, vertical, True, swipes),
            "flingToBeginning": lambda sel, vertical=True, swipes=20: self.to_edge(
                sel, vertical, False, swipes
            ),
            "scrollTo": self.scroll_to,
            "injectInputEvent": self.inject,
            "makeToast": self.make_toast,
            "getLastToast": self.last_toast,
            "clearLastToast": self.clear_toast,
            "getLastTraversedText": lambda: None,
            "clearLastTraversedText": lambda: None,
            "setOrientation": self.set_orientation,
            "freezeRotation": self.freeze_rotation,
            "openNotification": lambda: self._shade("notifications"),
            "openQuickSettings": lambda: self._shade("controls"),
            "sleep": lambda: self.device.set_screen(False),
            "wakeUp": lambda: self.device.set_screen(True),
            "swipe": self.swipe,
            "waitForIdle": self.wait_for_idle,
            "drag": self.swipe,
        }

    # --- finding --------------------------------------------------------------------------------

    def find_all(self, selector: Any) -> list[SimNode]:
        """Nodes a selector (or a name from childBy…) stands for, with ``child``/``sibling`` parts."""
        if isinstance(selector, str):
            with self._lock:
                node = self._named.get(selector)
            return [] if node is None else [n for n in self._nodes() if _same(n, node)][:1]
        if not isinstance(selector, Mapping):
            raise RpcError(-32602, "Invalid params", "a UiSelector must be an object")
        found = [n for n, i in candidates(self.device.tree()) if selector_matches(selector, n, i)]
        if int(selector.get("mask", 0)) & 0x01000000:
            found = found[int(selector.get("instance", 0)) :]
        for relation, sub in zip(
            selector.get("childOrSibling") or [], selector.get("childOrSiblingSelector") or [], strict=False
        ):
            found = self._related(found, relation, sub)
        return found

    def _nodes(self) -> list[SimNode]:
        return [n for n, _ in candidates(self.device.tree())]

    def _related(self, found: list[SimNode], relation: str, sub: Mapping[str, Any]) -> list[SimNode]:
        out: list[SimNode] = []
        parents = {id(c): p for p in self._nodes() for c in p.children}
        for node in found:
            if relation == "child":
                pool = [(n, i) for i, n in enumerate(node.iter()) if n is not node]
            else:
                parent = parents.get(id(node))
                pool = [(c, i) for i, c in enumerate(parent.children) if c is not node] if parent else []
            out += [n for n, i in pool if selector_matches(sub, n, i) and n not in out]
        return out

    def must_find(self, selector: Any) -> SimNode:
        found = self.find_all(selector)
        if not found:
            raise _not_found(selector)
        return found[0]

    def _name(self, node: SimNode) -> str:
        with self._lock:
            name = f"uiobject-{len(self._named) + 1}"
            self._named[name] = node
            if len(self._named) > 1024:
                self._named.pop(next(iter(self._named)))
        return name

    def _child(self, collection: Any, child: Any, test: Callable[[SimNode], bool]) -> str:
        scope = self.must_find(collection)
        for node in scope.iter():
            if node is not scope and selector_matches(child, node, 0) and test(node):
                return self._name(node)
        raise _not_found(child)

    def child_by_text(self, collection: Any, child: Any, text: str, allow_scroll: bool = True) -> str:
        return self._child(collection, child, lambda n: any((m.text or "") == text for m in n.iter()))

    def child_by_description(self, collection: Any, child: Any, text: str, allow_scroll: bool = True) -> str:
        return self._child(collection, child, lambda n: any((m.label or "") == text for m in n.iter()))

    def child_by_instance(self, collection: Any, child: Any, instance: int) -> str:
        scope = self.must_find(collection)
        matches = [n for n in scope.iter() if n is not scope and selector_matches(child, n, 0)]
        if not 0 <= int(instance) < len(matches):
            raise _not_found(child)
        return self._name(matches[int(instance)])

    def get_parent(self, selector: Any) -> str:
        node = self.must_find(selector)
        parent = next((p for p in self._nodes() if any(c is node for c in p.children)), None)
        if parent is None:
            raise _not_found(selector)
        return self._name(parent)

    def wait_until_gone(self, selector: Any, timeout_ms: int = 0) -> bool:
        deadline = time.monotonic() + max(0, int(timeout_ms)) / 1000
        while self.find_all(selector):
            if time.monotonic() >= deadline or self.server.stopped.is_set():
                return False
            time.sleep(self.server.poll_interval)
        return True

    # --- touches --------------------------------------------------------------------------------

    def click(self, *args: Any) -> bool:
        """``click(x, y[, milliseconds])``, or ``click(selector[, corner])``."""
        if args and isinstance(args[0], Mapping | str):
            self.device.tap(*self.must_find(args[0]).bounds.center)
            return True
        x, y = float(args[0]), float(args[1])
        held = float(args[2]) / 1000 if len(args) > 2 and args[2] is not None else 0.0
        if held >= LONG_PRESS:
            self.device.hold(held)
            self.device.long_press(x, y, held)
        else:
            self.device.tap(x, y)
        return True

    def long_click(self, selector: Any, corner: str | None = None) -> bool:
        x, y = self.must_find(selector).bounds.center
        self.device.hold(LONG_PRESS)
        self.device.long_press(x, y, LONG_PRESS)
        return True

    def inject(self, action: int, x: float, y: float, meta: int = 0) -> bool:
        now = time.monotonic()
        with self._lock:
            if action == 0:
                self._down, self._moved = (float(x), float(y), now), (float(x), float(y))
                return True
            if action == 2:
                self._moved = (float(x), float(y))
                return True
            if action != 1 or self._down is None:
                return action in (3, 4)  # CANCEL, OUTSIDE
            (sx, sy, since), self._down = self._down, None
            last, double = self._last_tap, False
            if math.hypot(float(x) - sx, float(y) - sy) < TOUCH_SLOP:
                double = (
                    last is not None
                    and now - last[2] <= DOUBLE_TAP
                    and math.hypot(sx - last[0], sy - last[1]) < TOUCH_SLOP
                )
                self._last_tap = None if double else (sx, sy, now)
        if math.hypot(float(x) - sx, float(y) - sy) >= TOUCH_SLOP:
            self.device.swipe(sx, sy, float(x), float(y))
        elif double:
            self.device.second_tap(sx, sy)
        elif now - since >= LONG_PRESS:
            self.device.long_press(sx, sy, now - since)
        else:
            self.device.tap(sx, sy)
        return True

    def swipe(self, fx: float, fy: float, tx: float, ty: float, steps: int = 55) -> bool:
        self.device.hold(max(1, int(steps)) * STEP_SECONDS)
        self.device.swipe(fx, fy, tx, ty)
        return True

    def drag_to(self, selector: Any, *rest: Any) -> bool:
        start: tuple[float, float] = self.must_find(selector).bounds.center
        end: tuple[float, float]
        if rest and isinstance(rest[0], Mapping | str):
            end, steps = self.must_find(rest[0]).bounds.center, rest[1] if len(rest) > 1 else 100
        else:
            end, steps = (float(rest[0]), float(rest[1])), rest[2] if len(rest) > 2 else 100
        return self.swipe(start[0], start[1], end[0], end[1], int(steps))

    def pinch(self, selector: Any, percent: int = 100, steps: int = 50) -> bool:
        # A two-finger gesture on the object; no simulated screen zooms, so nothing else changes.
        self.must_find(selector)
        self.device.hold(max(1, int(steps)) * STEP_SECONDS)
        return True

    def gesture(self, selector: Any, s1: Any, s2: Any, e1: Any, e2: Any, steps: int = 50) -> bool:
        return self.pinch(selector, 100, steps)

    # --- scrolling ------------------------------------------------------------------------------

    def _scrollable(self, selector: Any) -> SimNode:
        node = self.must_find(selector)
        if not node.scrollable:
            inside = [n for n in node.iter() if n.scrollable]
            node = inside[0] if inside else node
        return node

    def _swipe_in(self, node: SimNode, vertical: bool, forward: bool, fraction: float) -> bool:
        before = render_hierarchy(self.device.tree())
        b = node.bounds
        cx, cy = b.center
        half = (b.height if vertical else b.width) * fraction / 2
        delta = half if forward else -half
        if vertical:
            self.device.swipe(cx, cy + delta, cx, cy - delta)
        else:
            self.device.swipe(cx + delta, cy, cx - delta, cy)
        return render_hierarchy(self.device.tree()) != before

    def scroll(
        self, selector: Any, vertical: bool, forward: bool, steps: int, *, fling: bool = False
    ) -> bool:
        node = self._scrollable(selector)
        self.device.hold(max(1, int(steps)) * STEP_SECONDS)
        return self._swipe_in(node, bool(vertical), forward, 0.9 if fling else 0.6)

    def to_edge(self, selector: Any, vertical: bool, forward: bool, swipes: int) -> bool:
        node = self._scrollable(selector)
        for _ in range(max(1, min(int(swipes), _MAX_SWIPES))):
            if not self._swipe_in(node, bool(vertical), forward, 0.9):
                return True
        return False

    def scroll_to(self, selector: Any, target: Any, vertical: bool = True) -> bool:
        node = self._scrollable(selector)
        for _ in range(_MAX_SWIPES):
            if self.find_all(target):
                return True
            if not self._swipe_in(node, bool(vertical), True, 0.6):
                break
        return bool(self.find_all(target))

    # --- system ---------------------------------------------------------------------------------

    def make_toast(self, text: str, duration_ms: int = 1000) -> bool:
        self.device.show_toast(str(text))
        return True

    def last_toast(self, cache_ms: int = 5000) -> str | None:
        return self.device.last_toast(max(0, int(cache_ms)) / 1000)

    def clear_toast(self) -> bool:
        self.device.clear_toast()
        return True

    def wait_for_idle(self, timeout: int = 10000) -> None:
        """``waitForIdle(long timeout)``: until no screen change came for Android's quiet time
        (500 ms on a phone's timing) or ``timeout`` ms passed; answers nothing either way
        (``void`` in AutomatorServiceImpl.java; :mod:`sim.idle`)."""
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise RpcError(-32602, "Invalid params", f"timeout must be a number of ms, got {timeout!r}")
        quiet = self.device.timing.android_idle_quiet
        wait_idle(self.device, quiet, float(timeout) / 1000, self.server.stopped)

    def _shade(self, panel: str) -> bool:
        """UiDevice.openNotification / openQuickSettings: true once the shade is down (a locked
        phone keeps its lock screen: :meth:`sim.covers.CoverControls.pull_shade`)."""
        self.device.pull_shade(panel)
        return self.device.system.shade == panel

    def set_orientation(self, direction: str) -> None:
        key = str(direction).lower()
        if key not in ROTATIONS:
            raise RpcError(-32001, "java.lang.NotImplementedException: Invalid orientation.")
        orientations = ("portrait", "landscape_left", "upside_down", "landscape_right")
        self.device.set_orientation(orientations[ROTATIONS[key]])  # the screen turns (sim.device_state)

    def freeze_rotation(self, freeze: bool = True) -> None:
        self.frozen = bool(freeze)


def _same(a: SimNode, b: SimNode) -> bool:
    return (a.type, a.bounds, a.text, a.label, a.ident) == (b.type, b.bounds, b.text, b.label, b.ident)
