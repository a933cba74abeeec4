"""Android UI trees: ``uiautomator dump``, uiautomator2's ``dump_hierarchy()`` and Appium UiAutomator2.

All three share one schema: a ``<hierarchy>`` root whose children are the top-level windows
(the app, the SystemUI status bar, an input-method window …) and nested nodes carrying
``class text resource-id content-desc package bounds="[l,t][r,b]"`` and boolean flags. uiautomator
names every node ``<node>``; Appium names it after its class (``<android.widget.Button>``), adds
``displayed`` instead of ``visible-to-user`` and, in its newer form, gives the root a
``width``/``height`` (the attribute names: :data:`~.schema.ANDROID`).

The Scene root is the ``hierarchy`` element (type ``"hierarchy"``, bounds = the window) with the
top-level windows as children, as :mod:`sim.scene` builds it. Only the root and the windows are
built while parsing; every other element when it is first read (:mod:`core.lazy`). Every
``bounds`` is checked while parsing all the same, natively: the shape ``[digits,digits][digits,digits]``
in XPath, anything else by :func:`android_bounds`.
"""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from ...core.apps import ANDROID_SYSTEMUI, is_ime_package
from ...core.errors import SceneParseError
from ...core.lazy import LazyElement, set_children
from ...core.models import Bounds, UIElement
from .common import EMPTY, Limits, ParsedTree, SourceFormat, new_bounds, new_view
from .schema import ANDROID
from .xml_source import XmlSource, element_position, parse_xml

__all__ = ["android_bounds", "foreground_package", "parse_android"]

# Packages that draw system windows: used for the foreground app only when nothing else is there.
_SYSTEM_PACKAGES: Final = frozenset({ANDROID_SYSTEMUI, "android"})
_PACKAGE: Final = etree.XPath("(descendant-or-self::*[@package != ''])[1]/@package")
# Bounds other than "[digits,digits][digits,digits]" (negative numbers, spaces, garbage): checked
# one by one in Python; every bounds of the exact shape parses.
_ODD_BOUNDS: Final = etree.XPath(
    "/*/descendant::*[@bounds][translate(@bounds, '0123456789', '') != '[,][,]'"
    " or not(starts-with(@bounds, '[')) or substring(@bounds, string-length(@bounds)) != ']'"
    " or not(contains(@bounds, '][')) or contains(@bounds, '[,') or contains(@bounds, ',]')]"
)
_BOUNDS_CACHE_SIZE: Final = 4096
_bounds_cache: dict[str, Bounds] = {}


def android_bounds(raw: str | None) -> Bounds:
    """``"[l,t][r,b]"`` as Bounds (``EMPTY`` when absent); ``ValueError`` when malformed."""
    if raw is None:
        return EMPTY
    bounds = _bounds_cache.get(raw)
    if bounds is not None:
        return bounds
    # Splitting is about a third cheaper than a regex.
    if raw[:1] == "[" and raw[-1:] == "]":
        parts = raw[1:-1].split("][")
        if len(parts) == 2:
            left, top = parts[0].split(",")
            right, bottom = parts[1].split(",")
            bounds = new_bounds(int(left), int(top), int(right), int(bottom))
            if len(_bounds_cache) >= _BOUNDS_CACHE_SIZE:
                _bounds_cache.clear()
            _bounds_cache[raw] = bounds
            return bounds
    raise ValueError(raw)


def _check_bounds(root: Any, fmt: SourceFormat) -> None:
    for node in _ODD_BOUNDS(root):  # type: ignore[union-attr]
        raw = node.get("bounds")
        try:
            android_bounds(raw)
        except ValueError:
            raise SceneParseError(
                f"<{node.tag}> has malformed bounds {raw[:60]!r} (expected [left,top][right,bottom])",
                format=fmt,
                position=element_position(node),
            ) from None


def foreground_package(windows: tuple[UIElement, ...]) -> str | None:
    """The package of the app's main window among the top-level ``windows``.

    Input-method windows never count. The largest visible window of a non-system package wins
    (the first one on a tie); SystemUI or the ``android`` package are answered only when no app
    window is there at all (lock screen, notification shade on its own).
    """
    best: tuple[int, int, str] | None = None  # (rank, area, package); higher rank wins
    for window in windows:
        package = _package_of(window)
        if not package or is_ime_package(package):
            continue
        rank = (0 if package in _SYSTEM_PACKAGES else 2) + (1 if window.visible else 0)
        area = window.bounds.area
        if best is None or (rank, area) > (best[0], best[1]):
            best = (rank, area, package)
    return best[2] if best else None


def _package_of(window: UIElement) -> str | None:
    """The first package in the window's subtree (natively when the parser built it)."""
    if type(window) is LazyElement:
        found = _PACKAGE(window._node)  # type: ignore[attr-defined]
        return str(found[0]) if found else None  # type: ignore[index]
    for el in window.iter():
        package = el.attributes.get("package")
        if package:
            return package
    return None


def _int_attr(attrib: Any, name: str) -> int:
    raw = attrib.get(name)
    if raw is None:
        return 0
    try:
        return max(0, int(raw))
    except ValueError:
        return 0


def parse_android(data: bytes, fmt: SourceFormat, limits: Limits) -> ParsedTree:
    """Parse UTF-8 ``data`` holding a uiautomator or Appium UiAutomator2 dump."""
    node, count = parse_xml(data, fmt, limits)
    _check_bounds(node, fmt)
    source = XmlSource(ANDROID)
    windows = tuple(source.view(child) for child in node)
    attrib = dict(node.attrib)
    # The device's window: the union of the top-level windows, and at least the size Appium
    # reports on its root (which can be smaller than the nodes when it leaves out the
    # navigation bar).
    width, height = _int_attr(attrib, "width"), _int_attr(attrib, "height")
    for window in windows:
        b = window.bounds
        if not b.is_empty():
            width, height = max(width, b.right), max(height, b.bottom)
    tag: str = node.tag
    root = new_view(
        source,
        node,
        "hierarchy" if tag == "hierarchy" else attrib.get("class") or tag,
        None,
        None,
        None,
        None,
        new_bounds(0, 0, width, height),
        True,
        True,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        attrib,
    )
    set_children(root, windows)
    source.adopt(node, root)
    return ParsedTree(
        root=root,
        platform="android",
        format=fmt,
        window_size=(width, height),
        foreground_app=foreground_package(windows),
        element_count=count,
    )
