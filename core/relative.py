"""Maestro's way of choosing an element: regular expressions matched against the whole value,
relative selectors, and the order among several matches.

A :class:`~amc.core.selectors.Selector` whose ``pick`` is ``"maestro"``, or that uses a relative
field (``below``, ``above``, ``left_of``, ``right_of``, ``child_of``, ``contains_child``,
``contains_descendants``), is resolved here, by the rules of Maestro 2.8.0's source
(``mobile-dev-inc/maestro`` at 487407f6e355; ``client/`` is ``maestro-client/src/main/java/maestro/``,
``orchestra/`` is ``maestro-orchestra/src/main/java/maestro/orchestra/``):

- elements less than 10 % inside the screen are dropped first, unless an element inside them is
  kept (``client/ViewHierarchy.kt:102-128``); a line on screen (zero width or height) is kept
  (:func:`line_on_screen`);
- the per-element fields hold (:meth:`Selector.matches`: ``text_matches`` and ``id_matches`` are
  case-insensitive full matches, ``client/Filters.kt:58-119``); among matches, one that contains
  another match gives way to it: the deepest wins (``client/Filters.kt:271-284``);
- ``below`` / ``above`` / ``left_of`` / ``right_of`` keep elements whose top-left corner is below
  (above, left of, right of) the top-left corner of some element the anchor selector finds, nearest
  first by the distance between the two centres (``client/Filters.kt:152-183``); ``contains_child``
  needs a direct child that matches, ``contains_descendants`` every listed selector somewhere below
  (``client/Filters.kt:185-205``); ``child_of`` looks only inside the first element its selector
  finds (``orchestra/Orchestra.kt:1435-1480``);
- with ``index``, matches are sorted top to bottom, then left to right, and the ``index``-th is
  taken (a negative one counts from the end, ``client/Filters.kt:33-36, 228-239``); without it,
  clickable matches come first (``client/Filters.kt:241-245``) and the caller takes the first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Bounds, Scene, UIElement
    from .selectors import Selector

__all__ = ["MIN_VISIBLE", "full_match", "line_on_screen", "maestro_find", "text_values"]

MIN_VISIBLE = 0.10  # an element less than this fraction inside the screen is not there (Maestro)
_FLAGS = re.IGNORECASE | re.DOTALL | re.MULTILINE  # orchestra/Orchestra.kt:1836
_HINTS = ("hint", "placeholderValue")  # Android's hint attribute, WebDriverAgent's placeholder


@lru_cache(maxsize=512)
def _pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled as Maestro does; one that does not compile is taken literally
    (``client/utils/StringUtils.kt:7-13``)."""
    try:
        return re.compile(pattern, _FLAGS)
    except re.error:
        return re.compile(re.escape(pattern), _FLAGS)


def full_match(pattern: str, value: str, *, literal: bool = True) -> bool:
    """Whether ``value`` as a whole matches ``pattern`` (ignoring case); with ``literal``, a value
    equal to the pattern itself also matches, and a value with line breaks is also tried with them
    read as spaces (Maestro's text rule)."""
    compiled = _pattern(pattern)
    if compiled.fullmatch(value) is not None:
        return True
    if not literal:
        return False
    flat = value.replace("\n", " ")
    return pattern in (value, flat) or compiled.fullmatch(flat) is not None


def text_values(el: UIElement) -> tuple[str, ...]:
    """What Maestro's ``text`` is matched against: the text, the hint (placeholder) and the
    accessibility text (content-desc, iOS label), and the value iOS shows as text."""
    hints = tuple(v for name in _HINTS if (v := el.attributes.get(name)))
    return tuple(v for v in (el.text, el.label, el.value, *hints) if v)


def line_on_screen(bounds: Bounds, window: Bounds) -> bool:
    """Whether ``bounds`` is a line (zero width or zero height, not both, not inverted) lying on
    the screen: its zero side within the window, its other side overlapping it.

    Maestro keeps such an element: its visible share is 0 / 0, NaN, which is never below 10 %
    (``getVisiblePercentage`` in ``client/UiElement.kt:31-46`` and ``filterOutOfBounds`` in
    ``client/ViewHierarchy.kt:102-128`` at dcd2f206), so it is found, asserted and tapped at its
    centre; a point (zero by zero) is 0 % and dropped. Maestro keeps a line off screen as well, by
    the same NaN; here a line off screen is not there, as any other element off screen."""
    if bounds.width < 0 or bounds.height < 0 or (bounds.width == 0) == (bounds.height == 0):
        return False
    if window.is_empty():
        return True
    if bounds.height == 0:
        return window.top <= bounds.top < window.bottom and max(bounds.left, window.left) < min(
            bounds.right, window.right
        )
    return window.left <= bounds.left < window.right and max(bounds.top, window.top) < min(
        bounds.bottom, window.bottom
    )


def _fraction(bounds: Bounds, window: Bounds) -> float:
    if window.is_empty():
        return 1.0
    if bounds.is_empty():
        return 1.0 if line_on_screen(bounds, window) else 0.0
    inside = bounds.intersection(window)
    return 0.0 if inside is None else inside.area / bounds.area


def _walk(scene: Scene) -> tuple[list[UIElement], dict[int, UIElement | None]]:
    """The elements Maestro keeps (at least 10 % on screen, or holding one that is), in document
    order, and each one's parent (by id)."""
    window = scene.window
    kept: set[int] = set()
    order: list[UIElement] = []
    parents: dict[int, UIElement | None] = {id(scene.root): None}

    def visit(el: UIElement) -> bool:
        order.append(el)
        keep_children = False
        for child in el.children:
            parents[id(child)] = el
            keep_children = visit(child) or keep_children
        keep = keep_children or _fraction(el.bounds, window) >= MIN_VISIBLE
        if keep:
            kept.add(id(el))
        return keep

    visit(scene.root)
    return [el for el in order if id(el) in kept], parents


def _descendants(el: UIElement) -> Iterator[UIElement]:
    it = el.iter()
    next(it)
    return it


def _centre_distance(a: UIElement, b: UIElement) -> float:
    (ax, ay), (bx, by) = a.bounds.center, b.bounds.center
    return math.hypot(ax - bx, ay - by)


def _below(el: UIElement, anchor: UIElement) -> bool:
    return el.bounds.top > anchor.bounds.top


def _above(el: UIElement, anchor: UIElement) -> bool:
    return el.bounds.top < anchor.bounds.top


def _left_of(el: UIElement, anchor: UIElement) -> bool:
    return el.bounds.left < anchor.bounds.left


def _right_of(el: UIElement, anchor: UIElement) -> bool:
    return el.bounds.left > anchor.bounds.left


_RELATIONS: dict[str, Callable[[UIElement, UIElement], bool]] = {
    "below": _below,
    "above": _above,
    "left_of": _left_of,
    "right_of": _right_of,
}


def _inside(el: UIElement, selector: Selector, scene: Scene) -> bool:
    """Whether ``el`` matches ``selector`` as a descendant filter does: its own fields and, for a
    selector with relations of its own, Maestro's whole choice over the screen."""
    if not selector.matches(el):
        return False
    if selector.relational:
        return any(found is el for found in maestro_find(selector, scene, ordered=False))
    return True


def maestro_find(selector: Selector, scene: Scene, *, ordered: bool = True) -> list[UIElement]:
    """Every element ``selector`` finds by Maestro's rules, the one to act on first (just the
    ``index``-th with an index). ``ordered`` False: the matches, unsorted (for anchors)."""
    elements, parents = _walk(scene)
    if selector.child_of is not None:
        parent = next(iter(maestro_find(selector.child_of, scene)), None)
        if parent is None:
            return []
        inside = {id(el) for el in parent.iter()} - {id(parent)}
        elements = [el for el in elements if id(el) in inside]
    matched = [el for el in elements if selector.matches(el)]
    if selector.own_fields:  # Maestro's basic filters, then the deepest of their matches
        ids = {id(el) for el in matched}
        covered: set[int] = set()
        for el in matched:
            node = parents.get(id(el))
            while node is not None:
                if id(node) in ids:
                    covered.add(id(node))
                node = parents.get(id(node))
        matched = [el for el in matched if id(el) not in covered]
    if selector.contains_child is not None:
        child = selector.contains_child
        matched = [el for el in matched if any(_inside(c, child, scene) for c in el.children)]
    for wanted in selector.contains_descendants or ():
        matched = [el for el in matched if any(_inside(d, wanted, scene) for d in _descendants(el))]
    for name, relation in _RELATIONS.items():
        anchor_selector: Selector | None = getattr(selector, name)
        if anchor_selector is None:
            continue
        anchors = maestro_find(anchor_selector, scene)
        pairs = [
            (_centre_distance(el, anchor), n, el)
            for n, el in enumerate(matched)
            for anchor in anchors
            if relation(el, anchor)
        ]
        pairs.sort(key=lambda pair: (pair[0], pair[1]))
        nearest: dict[int, UIElement] = {}
        for _, _, el in pairs:
            nearest.setdefault(id(el), el)
        matched = list(nearest.values())
    if not ordered:
        return matched
    if selector.index is not None:
        by_place = sorted(matched, key=lambda el: (el.bounds.top, el.bounds.left))
        try:
            return [by_place[selector.index]]
        except IndexError:
            return []
    return sorted(matched, key=lambda el: el.clickable is not True)
