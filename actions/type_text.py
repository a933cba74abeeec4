"""``type_text``: type into the focused field, or into a field tapped first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Flag, SelectorKind, Text
from .targets import acted_on, wait_target
from .waiting import WAIT_PARAMS


def _only_with_target(args: dict[str, Any]) -> None:
    if "target" not in args:  # typing into the focused field looks for nothing
        args.pop("timeout", None)
        args.pop("interval", None)


def _type(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    text: str = args["text"]
    element: dict[str, Any] = {}
    if "target" in args:
        found = wait_target(args, screen)
        driver.tap(*found.point)
        element = acted_on(found)
    driver.type_text(text)
    return {"length": len(text), **element}


ACTION = Action(
    "type_text",
    "type into the focused field",
    _type,
    params=(
        Param("text", Text(allow_empty=True), "the text to type (into target when given)", required=True),
        Param("target", SelectorKind(), "the field to tap first (a selector)"),
        Param("secret", Flag(), "true hides the typed text everywhere"),
        *WAIT_PARAMS,
    ),
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("type_text", short="text"),
    check=_only_with_target,
)
