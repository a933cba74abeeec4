"""iOS UI trees as JSON: WebDriverAgent's ``/source?format=json``.

Each node is an object with ``type`` (the short name: ``"Button"``), ``name``, ``label``,
``value`` (strings or null), ``rect`` ``{x, y, width, height}``, ``frame`` (``"{{x, y}, {w, h}}"``),
``isEnabled`` / ``isVisible`` (``"1"``/``"0"``; newer WDA adds ``isAccessible``, ``isFocused``,
``rawIdentifier``) and ``children``. The reply may arrive whole, ``{"value": tree, "sessionId":
…}``, or from the old ``/tree`` route as ``{"tree": tree}``.

Types are normalised to the XML spelling (``XCUIElementTypeButton``) so a selector or an enricher
sees the same Scene whichever format WDA answered in; ``attributes`` keeps the raw scalars plus
``x``/``y``/``width``/``height``. Conversion is iterative: nesting cannot exhaust the Python
stack, and ``json.loads``' own recursion limit surfaces as ``SceneParseError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from ...core.errors import SceneParseError
from ...core.models import Bounds, UIElement
from .common import EMPTY, Limits, ParsedTree, new_element, rect_bounds
from .ios import SWITCH_TYPES, ios_window_size

__all__ = ["from_json_tree", "load_json", "unwrap"]

_FORMAT: Final = "wda-json"
_PREFIX: Final = "XCUIElementType"
_FRAME: Final = re.compile(r"\{\{\s*([-\d.eE+]+),\s*([-\d.eE+]+)\},\s*\{\s*([-\d.eE+]+),\s*([-\d.eE+]+)\}\}")
_TRUE: Final = frozenset({"1", "true", "True", "YES", True})  # True == 1


def load_json(text: str) -> Any:
    """``json.loads`` with every failure (syntax, nesting) turned into ``SceneParseError``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SceneParseError(
            f"malformed JSON: {exc.msg}", format=_FORMAT, position=f"line {exc.lineno}:{exc.colno}"
        ) from exc
    except RecursionError as exc:
        raise SceneParseError("the JSON is nested too deeply to be a UI tree", format=_FORMAT) from exc


def unwrap(doc: Any) -> Mapping[str, Any] | str:
    """The tree inside a WDA reply: a node object, or the XML string a ``/source`` reply carries."""
    for _ in range(3):
        if isinstance(doc, Mapping) and "type" not in doc:
            if "value" in doc:
                doc = doc["value"]
                continue
            if "tree" in doc:
                doc = doc["tree"]
                continue
        break
    if isinstance(doc, str):
        return doc
    if not isinstance(doc, Mapping) or not isinstance(doc.get("type"), str):
        kind = type(doc).__name__ if not isinstance(doc, Mapping) else "an object without a 'type'"
        raise SceneParseError(f"the JSON holds {kind}, not a WDA element tree", format=_FORMAT, position="$")
    return doc


def _scalar(value: Any) -> str | None:
    """A JSON scalar as the string XML would carry; None for null, objects and arrays."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None or kind is dict or kind is list:
        return None
    if kind is bool:
        return "1" if value else "0"
    if kind is float and value.is_integer():
        return str(int(value))
    return str(value)


def _number(value: Any) -> float:
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[no-any-return]
    if kind is str:
        try:
            return float(value)
        except ValueError:
            return 0
    return 0


def _bounds(node: Mapping[str, Any], attributes: dict[str, str]) -> Bounds:
    rect = node.get("rect")
    if type(rect) is dict:
        x, y = _number(rect.get("x")), _number(rect.get("y"))
        w, h = _number(rect.get("width")), _number(rect.get("height"))
    else:
        frame = node.get("frame")
        match = _FRAME.fullmatch(frame.strip()) if type(frame) is str else None
        if match is None:
            return EMPTY
        x, y, w, h = (_number(g) for g in match.groups())
    bounds = rect_bounds(x, y, w, h)
    attributes["x"], attributes["y"] = str(bounds.left), str(bounds.top)
    attributes["width"], attributes["height"] = str(bounds.width), str(bounds.height)
    return bounds


def _flag(value: Any, default: bool) -> bool:
    kind = type(value)
    if kind is str or kind is bool or kind is int:
        return value in _TRUE
    return default  # null or a stray object keeps the default


def _element(node: Mapping[str, Any], children: tuple[UIElement, ...]) -> UIElement:
    # Raw scalars as XML would carry them; "children" (a list) and "rect" (an object) drop out.
    attributes: dict[str, str] = {}
    for key, raw in node.items():
        if type(raw) is str:
            attributes[key] = raw
        else:
            text = _scalar(raw)
            if text is not None:
                attributes[key] = text
    short: str = node["type"]
    native = short if short.startswith(_PREFIX) else _PREFIX + short
    get = attributes.get
    label = get("label") or None
    value = get("value") or None
    focused = node.get("isFocused")
    return new_element(
        native,
        label or value,
        label,
        get("name") or None,
        value,
        _bounds(node, attributes),
        _flag(node.get("isEnabled"), True),
        _flag(node.get("isVisible"), True),
        None,
        None,
        None if focused is None else _flag(focused, False),
        None,
        (value == "1") if native in SWITCH_TYPES else None,
        None,
        None,
        children,
        attributes,
    )


def _path(parents: list[int], slots: list[int], index: int) -> str:
    steps: list[str] = []
    while index > 0:
        steps.append(f".children[{slots[index]}]")
        index = parents[index]
    return "$" + "".join(reversed(steps))


def from_json_tree(tree: Mapping[str, Any], limits: Limits) -> ParsedTree:
    """Convert a WDA JSON element tree (the Application node) into a :class:`ParsedTree`."""
    nodes: list[Mapping[str, Any]] = []
    parents: list[int] = []
    slots: list[int] = []
    pending: list[tuple[Any, int, int, int]] = [(tree, -1, 0, 1)]  # node, parent, slot, depth
    while pending:
        node, parent, slot, depth = pending.pop()
        index = len(nodes)
        nodes.append(node)
        parents.append(parent)
        slots.append(slot)
        if not (type(node) is dict or isinstance(node, Mapping)) or type(node.get("type")) is not str:
            raise SceneParseError(
                "an element is not an object with a string 'type'",
                format=_FORMAT,
                position=_path(parents, slots, index),
            )
        if index + 1 > limits.max_elements:
            raise SceneParseError(
                f"the tree has more than {limits.max_elements} elements",
                format=_FORMAT,
                position=_path(parents, slots, index),
            )
        if depth > limits.max_depth:
            raise SceneParseError(
                f"the tree is nested deeper than {limits.max_depth} levels",
                format=_FORMAT,
                position=_path(parents, slots, index),
            )
        kids = node.get("children")
        if kids is None:
            continue
        if type(kids) is not list:
            raise SceneParseError(
                "'children' is not a list", format=_FORMAT, position=_path(parents, slots, index)
            )
        for pos in range(len(kids) - 1, -1, -1):
            pending.append((kids[pos], index, pos, depth + 1))
    # Build bottom-up: every node's children come after it in document order.
    built: list[list[UIElement]] = [[] for _ in nodes]
    root: UIElement | None = None
    for index in range(len(nodes) - 1, -1, -1):
        kids_built = built[index]
        kids_built.reverse()
        el = _element(nodes[index], tuple(kids_built))
        if parents[index] < 0:
            root = el
        else:
            built[parents[index]].append(el)
    assert root is not None
    return ParsedTree(
        root=root,
        platform="ios",
        format=_FORMAT,
        window_size=ios_window_size(root),
        foreground_app=root.attributes.get("bundleId") or None,
        element_count=len(nodes),
    )
