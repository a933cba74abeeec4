"""iOS UI trees as JSON: WebDriverAgent's ``/source?format=json``.

Each node is an object with ``type`` (the short name: ``"Button"``), ``name``, ``label``,
``value`` (strings or null), ``rect`` ``{x, y, width, height}``, ``frame`` (``"{{x, y}, {w, h}}"``),
``isEnabled`` / ``isVisible`` (``"1"``/``"0"``; newer WDA adds ``isAccessible``, ``isFocused``,
``rawIdentifier``) and ``children``. The reply may arrive whole, ``{"value": tree, "sessionId":
…}``, or from the old ``/tree`` route as ``{"tree": tree}``.

Types are normalised to the XML spelling (``XCUIElementTypeButton``) so a selector or an enricher
sees the same Scene whichever format WDA answered in; ``attributes`` keeps the raw scalars plus
``x``/``y``/``width``/``height``. Checking the tree is iterative: nesting cannot exhaust the Python
stack, and ``json.loads``' own recursion limit surfaces as ``SceneParseError``.

``json.loads`` has already built a dict per node, so the Scene keeps those dicts behind a
:class:`~.json_source.JsonSource`: the Application element is built while parsing, every other one
when it is first read (:mod:`core.lazy`), and the whole-tree questions walk the dicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from ...core.errors import SceneParseError
from .common import Limits, ParsedTree
from .ios import ios_tree
from .json_source import JsonSource

__all__ = ["from_json_tree", "load_json", "unwrap"]

_FORMAT: Final = "wda-json"


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


def _path(parents: list[int], slots: list[int], index: int) -> str:
    steps: list[str] = []
    while index > 0:
        steps.append(f".children[{slots[index]}]")
        index = parents[index]
    return "$" + "".join(reversed(steps))


def _refuse(tree: Mapping[str, Any], limits: Limits) -> None:
    """Raise the error the first bad node in document order deserves, with its JSON path."""
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
    raise AssertionError("_refuse found nothing wrong")  # pragma: no cover


def _checked(tree: Mapping[str, Any], limits: Limits) -> list[Mapping[str, Any]] | None:
    """Every node in document order, or None when one breaks a rule (:func:`_refuse` says which)."""
    nodes: list[Mapping[str, Any]] = []
    append = nodes.append
    most, deepest = limits.max_elements, limits.max_depth
    stack: list[Iterator[Any]] = [iter((tree,))]
    while stack:
        for node in stack[-1]:
            if type(node) is not dict or type(node.get("type")) is not str:
                return None
            append(node)
            kids = node.get("children")
            if kids is not None:
                if type(kids) is not list:
                    return None
                if kids:
                    if len(stack) >= deepest:
                        return None
                    stack.append(iter(kids))
                    break
        else:
            stack.pop()
    return nodes if len(nodes) <= most else None


def from_json_tree(tree: Mapping[str, Any], limits: Limits) -> ParsedTree:
    """The :class:`ParsedTree` of a WDA JSON element tree (the Application node)."""
    nodes = _checked(tree, limits)
    if nodes is None:
        _refuse(tree, limits)
        raise AssertionError("unreachable")  # pragma: no cover
    return ios_tree(JsonSource(nodes).view(tree), _FORMAT, len(nodes))
