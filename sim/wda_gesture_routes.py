"""WebDriverAgent's element and gesture routes for the WDA face, as ``FBElementCommands.m`` and
``FBFindElementCommands.m`` of appium/WebDriverAgent v10.5.4 answer them.

Each handler follows the Objective-C handler of the same name: a gesture targets the element in
the path (``/wda/element/:uuid/…``) or the active application (``/wda/…``); ``x``/``y`` are offsets
from the target's top-left corner (``gestureCoordinateWithOffset``), one of them alone is ``invalid
argument`` "Both x and y coordinates must be provided" (``targetWithXyCoordinatesFromRequest``).
A press lasts the time the request asks (XCTest's ``pressForDuration:`` blocks as long), bounded
here by :data:`MAX_HOLD`; a double tap or a long press shows what the widget under it does on a
phone (:meth:`SimDevice.double_tap`, :meth:`SimDevice.long_press`). Pinch, rotate and force touch
reach no simulated app that reacts to them (no zoomable or 3D-Touch content), so they change
nothing and answer as WDA does after XCTest performed them (``null``).
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from ..core.models import Bounds
from .render_wda import WdaNode
from .wda_errors import WdaError, invalid_argument
from .wda_query import QueryError, find

if TYPE_CHECKING:
    from .wda_face import WdaFace
    from .wda_routes import Handler, Request

__all__ = [
    "GESTURES",
    "GESTURE_NAMES",
    "MAX_HOLD",
    "accessibility_container",
    "accessible",
    "active_element",
    "clear",
    "double_tap",
    "drag",
    "element_screenshot",
    "find_under",
    "force_touch",
    "keyboard_input",
    "noop_gesture",
    "picker_select",
    "press_and_drag",
    "scroll",
    "scroll_to",
    "set_value",
    "swipe",
    "tap",
    "tap_with_taps",
    "touch_and_hold",
    "visible_cells",
    "window_rect",
]

MAX_HOLD = 60.0  # seconds a press or a drag may last here
_DIRECTIONS = ("up", "down", "left", "right")
# fb_prepareForTextInputWithError (XCUIElement+FBTyping.m): the element did not take keyboard focus.
_NO_FOCUS = (
    "Error Domain=com.facebook.WebDriverAgent Code=1 \"'{kind}' is not ready for text input. Neither the "
    'accessibility element itself nor its accessible descendants have the input focus" '
    "UserInfo={{NSLocalizedDescription='{kind}' is not ready for text input. Neither the accessibility "
    "element itself nor its accessible descendants have the input focus}}"
)


def _seconds(req: Request, name: str) -> float:
    value = req.body.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid_argument(f"'{name}' must be a number of seconds, got {value!r}")
    return max(0.0, min(float(value), MAX_HOLD))


def _target(face: WdaFace, req: Request) -> Bounds:
    """The rectangle a gesture acts on: the element in the path, or the whole application."""
    uid = req.params.get("uuid")
    if uid:
        return face.element(uid).rect
    width, height = face.device.window_size
    return Bounds(0, 0, width, height)


def _point(face: WdaFace, req: Request) -> tuple[float, float]:
    """``targetWithXyCoordinatesFromRequest``: an offset from the target, or its centre."""
    target = _target(face, req)
    x, y = req.body.get("x"), req.body.get("y")
    if x is None and y is None:
        return target.center
    if x is None or y is None:
        raise invalid_argument("Both x and y coordinates must be provided")
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in (x, y)):
        raise invalid_argument(f"x and y must be numbers, got {x!r} and {y!r}")
    return target.left + float(x), target.top + float(y)


def window_rect(face: WdaFace, req: Request) -> Any:
    width, height = face.device.window_size
    return {"x": 0, "y": 0, "width": width, "height": height}


def accessible(face: WdaFace, req: Request) -> Any:
    return face.element(req.params["uuid"]).accessible


def accessibility_container(face: WdaFace, req: Request) -> Any:
    # isWDAccessibilityContainer: true only for elements UIKit marks as accessibility containers;
    # the simulated apps group nothing that way (as the e2e app's SwiftUI stacks, reports/WDA_V611.md).
    return False


def _focus(face: WdaFace, node: WdaNode) -> None:
    """Give the element keyboard focus as ``fb_prepareForTextInputWithError`` does (it taps it)."""
    if not node.focused:
        face.device.tap(*node.rect.center)
    if not face.device.keyboard_shown():
        raise WdaError("invalid element state", _NO_FOCUS.format(kind=node.short_type), 400)


def set_value(face: WdaFace, req: Request) -> Any:
    """``handleSetValue``: ``value`` (or ``text``), a string or a list joined, typed into the element."""
    value = req.body.get("value", req.body.get("text"))
    if value is None:
        raise invalid_argument("Neither 'value' nor 'text' parameter is provided")
    text = "".join(str(v) for v in value) if isinstance(value, list) else str(value)
    _focus(face, face.element(req.params["uuid"]))
    face.device.type_text(text)
    return None


def clear(face: WdaFace, req: Request) -> Any:
    """``handleClear``: the element takes focus and its text is deleted."""
    _focus(face, face.element(req.params["uuid"]))
    face.device.clear_text()
    return None


def element_screenshot(face: WdaFace, req: Request) -> Any:
    """``handleElementScreenshot``: the element's part of the screen as a base64 PNG."""
    from PIL import Image

    rect = face.element(req.params["uuid"]).rect
    scale = face.device.screen_scale
    with Image.open(io.BytesIO(face.device.screenshot_png())) as image:
        box = tuple(round(v * scale) for v in (rect.left, rect.top, rect.right, rect.bottom))
        part = image.crop(box)  # type: ignore[arg-type]
        out = io.BytesIO()
        part.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode("ascii")


def tap(face: WdaFace, req: Request) -> Any:
    face.device.tap(*_point(face, req))
    return None


def double_tap(face: WdaFace, req: Request) -> Any:
    face.device.double_tap(*_point(face, req))
    return None


def tap_with_taps(face: WdaFace, req: Request) -> Any:
    """``handleTapWithNumberOfTaps``: both counts required; two taps of one finger are a double tap."""
    taps, touches = req.body.get("numberOfTaps"), req.body.get("numberOfTouches")
    if taps is None or touches is None:
        raise invalid_argument("Both 'numberOfTaps' and 'numberOfTouches' arguments must be provided")
    x, y = _target(face, req).center
    if taps == 2 and touches == 1:
        face.device.double_tap(x, y)
    elif touches == 1:
        for _ in range(max(0, min(int(taps), 10))):
            face.device.tap(x, y)
    return None


def touch_and_hold(face: WdaFace, req: Request) -> Any:
    """``handleTouchAndHold``: ``pressForDuration:`` holds for ``duration`` seconds, then lifts."""
    x, y = _point(face, req)
    seconds = _seconds(req, "duration")
    face.device.hold(seconds)
    face.device.long_press(x, y, seconds)
    return None


def _drag_between(face: WdaFace, start: tuple[float, float], end: tuple[float, float], hold: float) -> None:
    face.device.hold(hold)
    face.device.swipe(start[0], start[1], end[0], end[1])


def drag(face: WdaFace, req: Request) -> Any:
    """``handleDrag``: press ``duration`` seconds at from, then drag to to (offsets from the target)."""
    target = _target(face, req)
    start = (target.left + req.number("fromX"), target.top + req.number("fromY"))
    end = (target.left + req.number("toX"), target.top + req.number("toY"))
    _drag_between(face, start, end, _seconds(req, "duration"))
    return None


def press_and_drag(face: WdaFace, req: Request) -> Any:
    """``handlePressAndDrag[Coordinate]WithVelocity``: to another element, or between coordinates."""
    hold = _seconds(req, "pressDuration")
    start: tuple[float, float]
    end: tuple[float, float]
    if req.params.get("uuid"):
        to = req.body.get("toElement")
        if not isinstance(to, str):
            raise invalid_argument("'toElement' must be an element id")
        start, end = _target(face, req).center, face.element(to).rect.center
    else:
        start = (req.number("fromX"), req.number("fromY"))
        end = (req.number("toX"), req.number("toY"))
    _drag_between(face, start, end, hold)
    face.device.hold(_seconds(req, "holdDuration"))
    return None


def _swipe_over(face: WdaFace, target: Bounds, direction: str, fraction: float = 0.5) -> None:
    """A swipe across ``target`` towards ``direction`` (content moves that way)."""
    cx, cy = target.center
    dx, dy = target.width * fraction / 2, target.height * fraction / 2
    moves = {
        "up": (0, dy, 0, -dy),
        "down": (0, -dy, 0, dy),
        "left": (dx, 0, -dx, 0),
        "right": (-dx, 0, dx, 0),
    }
    ax, ay, bx, by = moves[direction]
    face.device.swipe(cx + ax, cy + ay, cx + bx, cy + by)


def swipe(face: WdaFace, req: Request) -> Any:
    """``handleSwipe``: ``direction`` up/down/left/right (messages as WDA's)."""
    direction = req.body.get("direction")
    if not direction:
        raise invalid_argument("Missing 'direction' parameter")
    if not isinstance(direction, str) or direction.lower() not in _DIRECTIONS:
        raise invalid_argument(
            f"Unsupported swipe direction '{direction}'. Only the following directions are supported: "
            "(\n    up,\n    down,\n    left,\n    right\n)"
        )
    _point(face, req)  # x/y are checked as WDA checks them
    _swipe_over(face, _target(face, req), direction.lower())
    return None


def _scroll_to_visible(face: WdaFace, node: WdaNode) -> None:
    """``fb_scrollToVisibleWithError``: scroll the list until the element is on screen (bounded)."""
    for _ in range(50):
        if node.visible:
            return
        height = face.device.window_size[1]
        direction = "up" if node.rect.top > height / 2 else "down"
        _swipe_over(face, Bounds(0, 100, face.device.window_size[0], height - 100), direction)
        again = [n for n in face.tree().iter() if n.name == node.name and n.type == node.type]
        if not again:
            break
        node = again[0]
    if not node.visible:
        raise WdaError(
            "invalid element state", f"Failed to perform scroll with visible cell {node.name}", 400
        )


def scroll(face: WdaFace, req: Request) -> Any:
    """``handleScroll``: by ``name`` (a descendant's identifier), ``direction`` (+ ``distance``),
    ``predicateString`` or ``toVisible``; anything else is ``Unsupported scroll type``."""
    scope = face.element(req.params["uuid"]) if req.params.get("uuid") else face.tree()
    name, direction = req.body.get("name"), req.body.get("direction")
    predicate = req.body.get("predicateString")
    if isinstance(name, str):
        found = [n for n in scope.iter() if n.identifier == name]
        if not found:
            raise WdaError("no such element", f"'{name}' identifier didn't match any elements", 404)
        _scroll_to_visible(face, found[-1])
    elif isinstance(direction, str):
        distance = float(req.body.get("distance", 1.0) or 1.0)
        if direction in _DIRECTIONS:
            _swipe_over(face, scope.rect, direction, max(0.0, min(distance, 1.0)))
    elif isinstance(predicate, str):
        try:
            found = find(scope, "predicate string", predicate)
        except QueryError as exc:
            raise WdaError("invalid selector", str(exc), 400) from exc
        if not found:
            raise WdaError("no such element", f"'{predicate}' predicate didn't match any elements", 404)
        _scroll_to_visible(face, found[-1])
    elif req.body.get("toVisible"):
        _scroll_to_visible(face, scope)
    else:
        raise invalid_argument("Unsupported scroll type")
    return None


def scroll_to(face: WdaFace, req: Request) -> Any:
    _scroll_to_visible(face, face.element(req.params["uuid"]))
    return None


def noop_gesture(face: WdaFace, req: Request) -> Any:
    """Pinch, rotate, two-finger tap: no simulated app reacts (the target must still exist)."""
    _target(face, req)
    return None


def force_touch(face: WdaFace, req: Request) -> Any:
    """``handleForceTouch``: a press of ``duration`` (default 0.5 s, fb_forceTouchCoordinate)."""
    _target(face, req)
    face.device.hold(_seconds(req, "duration") if "duration" in req.body else 0.5)
    return None


def picker_select(face: WdaFace, req: Request) -> Any:
    """``handleWheelSelect``: only a picker wheel can; the simulated apps have none."""
    node = face.element(req.params["uuid"])
    if node.type != "XCUIElementTypePickerWheel":
        raise invalid_argument(
            f"The element is expected to be a valid Picker Wheel control. '{node.type}' was given instead"
        )
    return None


def find_under(single: bool) -> Any:
    """``handleFindSubElement(s)``: a lookup under the element in the path."""

    def handler(face: WdaFace, req: Request) -> Any:
        scope = face.element(req.params["uuid"])
        using, value = req.string("using"), req.body.get("value")
        try:
            nodes = [n for n in find(scope, using, value) if n is not scope]  # type: ignore[arg-type]
        except QueryError as exc:
            raise WdaError("invalid selector", str(exc), 400) from exc
        if not single:
            return face.cache(nodes)
        if not nodes:
            raise WdaError(
                "no such element", f"unable to find an element using '{using}', value '{value}'", 404
            )
        return face.cache(nodes[:1])[0]

    return handler


def visible_cells(face: WdaFace, req: Request) -> Any:
    """``handleFindVisibleCells``: the element's visible ``XCUIElementTypeCell`` descendants."""
    scope = face.element(req.params["uuid"])
    return face.cache([n for n in scope.iter() if n.type == "XCUIElementTypeCell" and n.visible])


def active_element(face: WdaFace, req: Request) -> Any:
    """``handleGetActiveElement``: the element with keyboard focus, else ``no such element``."""
    focused = [n for n in face.tree().iter() if n.focused]
    if not focused:
        raise WdaError("no such element", "unable to find an element", 404)
    return face.cache(focused[:1])[0]


def keyboard_input(face: WdaFace, req: Request) -> Any:
    """``handleKeyboardInput``: ``keys`` (strings, or ``{"key", "modifierFlags"}`` objects) typed
    into the element after it takes focus."""
    keys = req.body.get("keys")
    if not isinstance(keys, list):
        raise invalid_argument("'keys' must be an array")
    text = "".join(
        k if isinstance(k, str) else str(k.get("key", "")) for k in keys if isinstance(k, str | dict)
    )
    return set_value(face, Request(req.method, req.path, req.sid, req.query, {"value": text}, req.params))


# The gestures WDA routes both on an element (/wda/element/:uuid/NAME) and on the app (/wda/NAME);
# scrollTo and (from 6.0.0) the element tap only on an element.
GESTURES: dict[str, Handler] = {
    "swipe": swipe,
    "pinch": noop_gesture,
    "rotate": noop_gesture,
    "doubleTap": double_tap,
    "twoFingerTap": noop_gesture,
    "tapWithNumberOfTaps": tap_with_taps,
    "touchAndHold": touch_and_hold,
    "scroll": scroll,
    "scrollTo": scroll_to,
    "dragfromtoforduration": drag,
    "pressAndDragWithVelocity": press_and_drag,
    "forceTouch": force_touch,
    "tap": tap,
}


GESTURE_NAMES = {"dragfromtoforduration": "drag"}  # the route names requests are counted by
