"""Maestro's selectors as the harness's :class:`~amc.core.selectors.Selector` (``pick: maestro``).

A selector is a plain value (its ``text``) or a mapping of Maestro's selector fields
(``orchestra/yaml/YamlElementSelector.kt:25-55``); the command options Maestro keeps in the same
mapping (``optional``, ``label``, ``point``, ``retryTapIfNoChange`` …) are handed back to the
command. ``text`` and ``id`` become ``text_matches`` / ``id_matches`` (full-match regular
expressions, ignoring case); the relative fields become nested selectors.
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import ConfigError
from ...core.selectors import TRAITS, Selector
from ..nodes import kind, suggest
from .values import MaestroReader

__all__ = ["OPTION_FIELDS", "SELECTOR_FIELDS", "selector"]

_RELATIVE = {
    "below": "below",
    "above": "above",
    "leftOf": "left_of",
    "rightOf": "right_of",
    "childOf": "child_of",
    "containsChild": "contains_child",
}
_FLAGS = ("enabled", "checked", "focused", "selected")
_SIZES = ("width", "height", "tolerance")
SELECTOR_FIELDS: tuple[str, ...] = (
    "text",
    "id",
    "index",
    *_FLAGS,
    *_SIZES,
    *_RELATIVE,
    "containsDescendants",
    "traits",
    "css",
)
# Options of the command that Maestro's selector mapping also holds.
OPTION_FIELDS: tuple[str, ...] = (
    "optional",
    "label",
    "point",
    "start",
    "end",
    "retryTapIfNoChange",
    "waitUntilVisible",
    "repeat",
    "delay",
    "waitToSettleTimeoutMs",
)


def _index(r: MaestroReader, node: Node) -> int:
    """Maestro's index (0 when JavaScript computes it: the step then needs JavaScript)."""
    found = r.whole(node, "index")
    return 0 if found is None else found


def _traits(r: MaestroReader, node: Node, what: str) -> list[str]:
    """Maestro's traits: names split at spaces, ``-`` read as ``_``, each one of ElementTrait's
    (``ElementTrait.valueOf(it.replace('-', '_').uppercase())``, YamlFluentCommand.kt:883-885 at
    dcd2f206); a name it does not know fails the flow there, and here before the run."""
    names = [n.replace("-", "_").lower() for n in r.text(node, what).split()]
    unknown = [n for n in names if n not in TRAITS]
    if not names or unknown:
        raise r.fail(
            node,
            f"{what}: {', '.join(map(repr, unknown)) or 'none given'} is not a trait",
            hint="Maestro's traits: text, square, long-text (several: separated by spaces)",
        )
    return names


def selector(r: MaestroReader, node: Node, what: str) -> tuple[dict[str, Any], dict[str, Node], str | None]:
    """The selector ``node`` writes (as a Selector's mapping), the command options beside it,
    and why no backend here can use it (web-only ``css``), if so."""
    if isinstance(node, ScalarNode):
        text = r.text(node, f"{what}'s text")
        return Selector.from_mapping({"text_matches": text, "pick": "maestro"}).to_dict(), {}, None
    if not isinstance(node, MappingNode):
        raise r.fail(node, f"{what} must be a text or a selector, got {kind(node)}")
    entries = r.mapping(node, what)
    values: dict[str, Any] = {"pick": "maestro"}
    options: dict[str, Node] = {}
    unsupported: str | None = None
    for key, value in entries.items():
        if key in OPTION_FIELDS:
            options[key] = value
        elif key == "text":
            values["text_matches"] = r.text(value, f"{what}'s text")
        elif key == "id":
            values["id_matches"] = r.text(value, f"{what}'s id")
        elif key == "index":
            values["index"] = _index(r, value)
        elif key in _FLAGS:
            values[key] = r.boolean(value, f"{what}'s {key}")
        elif key in _SIZES:
            values[key] = int(r.number(value, f"{what}'s {key}", 0, 100_000))
        elif key in _RELATIVE:
            values[_RELATIVE[key]] = selector(r, value, f"{what}'s {key}")[0]
        elif key == "containsDescendants":
            if not isinstance(value, SequenceNode) or not value.value:
                raise r.fail(value, f"{what}'s containsDescendants must be a list of selectors")
            values["contains_descendants"] = [
                selector(r, item, f"{what}'s containsDescendants")[0] for item in value.value
            ]
        elif key == "traits":
            values["traits"] = _traits(r, value, f"{what}'s traits")
        elif key == "css":
            unsupported = "`css` selects in web pages, which no backend here drives"
            r.text(value, f"{what}'s css")
        else:
            raise r.fail(
                value,
                f"Unknown Property: {key} is not recognized in {what}",
                hint=suggest(key, [*SELECTOR_FIELDS, *OPTION_FIELDS]),
            )
    if len(values) == 1 and "point" in options:
        return {}, options, unsupported  # a point on the screen, no element
    try:
        checked = Selector.from_mapping(values).to_dict()
    except ConfigError as exc:
        raise r.fail(node, f"{what}: {exc.message}") from None
    return checked, options, unsupported
