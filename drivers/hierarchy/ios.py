"""iOS UI trees as XML: WebDriverAgent's ``/source`` and Appium XCUITest's page source.

WDA names every element after its type (``<XCUIElementTypeButton>``) with ``type name label
value enabled visible accessible x y width height`` attributes; newer WDA adds ``index``,
``traits`` and, on the ``XCUIElementTypeApplication`` root, ``processId`` and ``bundleId``.
Appium wraps the same tree in ``<AppiumAUT>``; the Scene root is the Application element inside.

Mapping (:data:`~.schema.IOS`, kept in line with :mod:`sim.scene`): ``identifier`` = ``name``;
``text`` = the label, else the value; ``checked`` = ``value == "1"`` for switches and toggles;
``selected`` and ``focused`` when WDA reports them; the Android-only flags are None. Only the
Application element is built while parsing; every other element when it is first read.
"""

from __future__ import annotations

from typing import Final

from ...core.errors import SceneParseError
from ...core.models import UIElement
from .common import Limits, ParsedTree, SourceFormat
from .schema import IOS
from .xml_source import XmlSource, parse_xml

__all__ = ["SWITCH_TYPES", "ios_tree", "ios_window_size", "parse_ios"]

SWITCH_TYPES: Final = IOS.switch_types
_WRAPPER: Final = "AppiumAUT"


def ios_window_size(app: UIElement) -> tuple[int, int]:
    """The Application element's size; the union of its windows when it reports none."""
    if not app.bounds.is_empty():
        return app.bounds.width, app.bounds.height
    width = height = 0
    for window in app.children:
        if not window.bounds.is_empty():
            width, height = max(width, window.bounds.right), max(height, window.bounds.bottom)
    return width, height


def ios_tree(app: UIElement, fmt: SourceFormat, count: int) -> ParsedTree:
    """The parse result of an iOS tree whose Scene root is ``app`` (the Application element): the
    window its size, the app in front its ``bundleId`` (None when the source carries none)."""
    return ParsedTree(
        root=app,
        platform="ios",
        format=fmt,
        window_size=ios_window_size(app),
        foreground_app=app.attributes.get("bundleId") or None,
        element_count=count,
    )


def parse_ios(data: bytes, fmt: SourceFormat, limits: Limits) -> ParsedTree:
    """Parse UTF-8 ``data`` holding a WDA XML source or an Appium XCUITest page source."""
    node, count, _ = parse_xml(data, fmt, limits)
    if node.tag == _WRAPPER:
        node = next(iter(node), None)
        if node is None:
            raise SceneParseError("<AppiumAUT> holds no application element", format=fmt)
    return ios_tree(XmlSource(IOS).view(node), fmt, count)
