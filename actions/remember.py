"""``remember``: keep values in the world model's variables (``secret: true`` hides them as ***)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Flag, Values

log = logging.getLogger(__name__)


def _remember(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    # The world model stores args["remember"] (hiding it when args["secret"] is true).
    values = args["remember"]
    if screen.world is None:
        log.warning("remember: the world model is off, so %s will not be kept", ", ".join(sorted(values)))
    return {"remembered": sorted(values)}


ACTION = Action(
    "remember",
    "store values in the world model's variables",
    _remember,
    params=(
        Param("remember", Values(), "variables to keep in the world model, name -> value", required=True),
        Param("secret", Flag(), "true shows the values as *** everywhere but to the planner"),
    ),
    idempotent=True,
    flow=FlowForm("remember", written="`{name: value, …}`, with optional `secret: true` among them"),
)
