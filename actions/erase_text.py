"""``erase_text``: delete characters before the caret of the focused field (Maestro's ``eraseText``:
50 by default)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import MAX_ERASE, Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Number

__all__ = ["ACTION", "DEFAULT_ERASE"]

DEFAULT_ERASE = 50  # Maestro's default (orchestra/Orchestra.kt:1838)


def _erase(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.erase_text(args["count"])
    return {"count": args["count"]}


ACTION = Action(
    "erase_text",
    "delete characters before the caret of the focused field",
    _erase,
    params=(
        Param("count", Number(1, MAX_ERASE, integer=True), "how many characters", default=DEFAULT_ERASE),
    ),
    changes_screen=True,
    flow=FlowForm("erase_text", short="count", bare=True),
    maestro=(MaestroForm("eraseText", short="count", bare=True, options={"charactersToErase": "count"}),),
)
