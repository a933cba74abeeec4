"""iOS UI trees as XML: WebDriverAgent's ``/source`` and Appium XCUITest's page source.

WDA names every element after its type (``<XCUIElementTypeButton>``) with ``type name label
value enabled visible accessible x y width height`` attributes; newer WDA adds ``index``,
``traits`` and, on the ``XCUIElementTypeApplication`` root, ``processId`` and ``bundleId``.
Appium wraps the same tree in ``<AppiumAUT>``; the Scene root is the Application element inside.

Mapping (kept in line with :mod:`sim.scene`): ``identifier`` = ``name``; ``text`` = the
label, else the value; ``checked`` = ``value == "1"`` for switches and toggles; ``selected`` and
``focused`` when WDA reports them; the Android-only flags are None.
"""

from __future__ import annotations

from typing import Final

from ...core.errors import SceneParseError
from ...core.models import UIElement
from .common import (
    BOOL,
    Limits,
    ParsedTree,
    SourceFormat,
    StreamingTarget,
    new_bounds,
    new_element,
    parse_xml,
    rect_bounds,
)

__all__ = ["SWITCH_TYPES", "IosTarget", "ios_window_size", "parse_ios"]

SWITCH_TYPES: Final = frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeToggle"})
_FLAG: Final = BOOL.get
_WRAPPER: Final = "AppiumAUT"


def _number(raw: str | None) -> float:
    if not raw:
        return 0
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return 0


def ios_window_size(app: UIElement) -> tuple[int, int]:
    """The Application element's size; the union of its windows when it reports none."""
    if not app.bounds.is_empty():
        return app.bounds.width, app.bounds.height
    width = height = 0
    for window in app.children:
        if not window.bounds.is_empty():
            width, height = max(width, window.bounds.right), max(height, window.bounds.bottom)
    return width, height


class IosTarget(StreamingTarget):
    """Builds the Scene tree while lxml streams a WDA / XCUITest XML source."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("wda-xml")

    def end(self, tag: str) -> None:
        stack = self._stack
        frame = stack.pop()
        attrib: dict[str, str] = frame[1]
        children: tuple[UIElement, ...] = tuple(frame[3:]) if len(frame) > 3 else ()
        if not stack and tag == _WRAPPER:
            self._finish(children[0] if children else None)
            return
        get = attrib.get
        x, y, w, h = get("x"), get("y"), get("width"), get("height")
        try:  # whole numbers, as WDA writes them
            left, top = int(x), int(y)  # type: ignore[arg-type]
            bounds = new_bounds(left, top, left + int(w), top + int(h))  # type: ignore[arg-type]
        except (TypeError, ValueError):  # missing, or fractions as some Appium versions write
            bounds = rect_bounds(_number(x), _number(y), _number(w), _number(h))
        label = get("label") or None
        value = get("value") or None
        el = new_element(
            tag,
            label or value,
            label,
            get("name") or None,
            value,
            bounds,
            get("enabled") != "false",
            get("visible") != "false",
            None,
            None,
            _FLAG(get("focused")),
            _FLAG(get("selected")),
            (value == "1") if tag in SWITCH_TYPES else None,
            None,
            None,
            children,
            attrib,
        )
        if stack:
            stack[-1].append(el)
        else:
            self._finish(el)

    def _finish(self, app: UIElement | None) -> None:
        if app is None:
            raise SceneParseError("<AppiumAUT> holds no application element", format=self._fmt)
        self._result = ParsedTree(
            root=app,
            platform="ios",
            format=self._fmt,
            window_size=ios_window_size(app),
            foreground_app=app.attributes.get("bundleId") or None,
            element_count=self._count,
        )

    def close(self) -> ParsedTree | None:
        # lxml calls close() while unwinding an error too: raising here would mask that error.
        return self._result


def parse_ios(data: bytes, fmt: SourceFormat, limits: Limits) -> ParsedTree:
    """Parse UTF-8 ``data`` holding a WDA XML source or an Appium XCUITest page source."""
    return parse_xml(data, IosTarget, fmt, limits)
