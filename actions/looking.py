"""What the actions that look and report share: wait until a check holds, else fail saying what the
screen showed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.errors import HarnessError
from ..core.models import Scene
from ..core.selectors import Selector
from .base import Param, Screen
from .targets import TARGET
from .waiting import poll

__all__ = ["REQUIRED_TARGET", "found", "until", "until_found"]

REQUIRED_TARGET = Param(TARGET.name, TARGET.kind, TARGET.doc, required=True, inline=True)


def found(selector: Selector) -> Callable[[Scene], Any]:
    """A poll check: what the first element ``selector`` finds reads, or None."""

    def check(scene: Scene) -> Any:
        elements = selector.find_all(scene)
        if not elements:
            return None
        return {"found": elements[0].display_text or elements[0].identifier or elements[0].type}

    return check


def until(
    screen: Screen,
    args: Mapping[str, Any],
    check: Callable[[Scene], Any],
    failure: Callable[[int, Scene], HarnessError],
) -> Any:
    """What ``check`` found, with the number of observations it took; ``failure(polls, last
    scene)`` raised when the step's timeout passed first."""
    value, polls, scene = poll(screen, args, check)
    if value is None:
        raise failure(polls, scene)
    return {**value, "polls": polls}


def until_found(
    screen: Screen, args: Mapping[str, Any], failure: Callable[[Selector, int, Scene], HarnessError]
) -> Any:
    """The step's target waited for up to its timeout; ``failure(selector, polls, last scene)``
    raised when it never showed."""
    selector = Selector.from_mapping(args["target"])
    return until(screen, args, found(selector), lambda polls, scene: failure(selector, polls, scene))
