"""``screenshot``: capture the screen (a run keeps the picture in its folder), or only an element
of it (``crop_on``, Maestro's ``cropOn``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import SelectorKind, Text
from .pictures import crop


def _screenshot(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    picture = driver.screenshot()
    if args.get("crop_on") is not None:
        return crop(picture, args["crop_on"], screen)
    return picture


ACTION = Action(
    "screenshot",
    "capture the screen",
    _screenshot,
    params=(
        Param("name", Text(max_length=200), "a name for the picture in the run folder"),
        Param("crop_on", SelectorKind(), "keep only this element of the screen", agents=False),
    ),
    idempotent=True,
    flow=FlowForm("screenshot", short="name", bare=True),
    maestro=(
        MaestroForm(
            "takeScreenshot",
            short="name",
            options={"path": "name", "cropOn": "crop_on"},
            note="the picture is kept in the run folder; `cropOn` keeps the element's part of it",
        ),
    ),
)
