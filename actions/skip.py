"""``skip``: record a step a planner decided not to send (no device call, no look after it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, Param, Screen
from .kinds import Text


def _skip(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return {"skipped": args.get("skipped"), "reason": args["reason"]}


ACTION = Action(
    "skip",
    "record a step a planner decided to skip",
    _skip,
    params=(
        Param("reason", Text(max_length=2000), "why the step was not needed", required=True),
        Param("skipped", Text(max_length=200), "the action that was not needed"),
    ),
    idempotent=True,
    looks_after=False,
    offered=False,
)
