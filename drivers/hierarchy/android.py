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
``bounds`` is checked while parsing all the same: the parse's walk (or a scan of the raw bytes)
tells whether each is plainly ``[digits,digits][digits,digits]``; only when one is not are they
read one by one with :func:`android_bounds`.
"""

from __future__ import annotations

from typing import Any, Final

from ...core.apps import ANDROID_SYSTEMUI, is_ime_package
from ...core.errors import SceneParseError
from .bounds import android_bounds
from .common import Limits, ParsedTree, SourceFormat, new_bounds, new_view
from .schema import ANDROID, NodeAttributes, shown
from .xml_source import XmlSource, element_position, first_below, parse_xml

__all__ = ["foreground_package", "parse_android"]

# Packages that draw system windows: used for the foreground app only when nothing else is there.
_SYSTEM_PACKAGES: Final = frozenset({ANDROID_SYSTEMUI, "android"})


def _check_bounds(root: Any, fmt: SourceFormat) -> None:
    """Read every ``bounds`` under ``root``; the first that is not ``[l,t][r,b]`` fails the parse."""
    for node in root.iterdescendants():  # the root's bounds are never read
        raw = node.get("bounds")
        if raw is None:
            continue
        try:
            android_bounds(raw)
        except ValueError:
            raise SceneParseError(
                f"<{node.tag}> has malformed bounds {raw[:60]!r} (expected [left,top][right,bottom])",
                format=fmt,
                position=element_position(node),
            ) from None


def foreground_package(windows: list[tuple[str | None, bool, int]]) -> str | None:
    """The package of the app's main window among the top-level windows, each given as
    ``(package, visible, area)``.

    Input-method windows never count. The largest visible window of a non-system package wins
    (the first one on a tie); SystemUI or the ``android`` package are answered only when no app
    window is there at all (lock screen, notification shade on its own).
    """
    best: tuple[int, int, str] | None = None  # (rank, area, package); higher rank wins
    for package, visible, area in windows:
        if not package or is_ime_package(package):
            continue
        rank = (0 if package in _SYSTEM_PACKAGES else 2) + (1 if visible else 0)
        if best is None or (rank, area) > (best[0], best[1]):
            best = (rank, area, package)
    return best[2] if best else None


def _package_of(window: Any) -> str | None:
    """The first package in a window node's subtree, itself first."""
    package: str | None = window.get("package")
    return package or first_below(window, "package")


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
    node, count, odd_bounds = parse_xml(data, fmt, limits, plain_bounds=True)
    if odd_bounds:
        _check_bounds(node, fmt)
    attrib = NodeAttributes(node)
    # The device's window: the union of the top-level windows, and at least the size Appium
    # reports on its root (which can be smaller than the nodes when it leaves out the
    # navigation bar). The windows are read from their nodes, and built only when asked for.
    width, height = _int_attr(attrib, "width"), _int_attr(attrib, "height")
    windows: list[tuple[str | None, bool, int]] = []
    for child in node:
        get = child.get
        b = android_bounds(get("bounds"))
        if not b.is_empty():
            width, height = max(width, b.right), max(height, b.bottom)
        windows.append((_package_of(child), shown(ANDROID, get), b.area))
    tag: str = node.tag
    source = XmlSource(ANDROID)
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
    source.adopt(node, root)
    return ParsedTree(
        root=root,
        platform="android",
        format=fmt,
        window_size=(width, height),
        foreground_app=foreground_package(windows),
        element_count=count,
    )
