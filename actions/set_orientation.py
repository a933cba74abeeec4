"""``set_orientation``: turn the device's screen (Maestro's ``setOrientation``).

Maestro takes PORTRAIT, LANDSCAPE_LEFT, LANDSCAPE_RIGHT and UPSIDE_DOWN, "case insensitive,
underscores optional, e.g 'landscape_left', 'landscapeLeft', and 'LANDSCAPE_LEFT' are all valid"
(maestro-orchestra ``YamlSetOrientation.kt``); so does this action."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import StepArgumentError
from ..drivers.base import ORIENTATIONS, Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen

_FOLDED = {name.replace("_", ""): name for name in ORIENTATIONS}


@dataclass(frozen=True)
class Orientation:
    """One of :data:`~amc.drivers.base.ORIENTATIONS`, in any case, underscores optional."""

    def check(self, value: Any, name: str) -> Any:
        folded = value.replace("_", "").lower() if isinstance(value, str) else None
        if folded not in _FOLDED:
            raise StepArgumentError(
                f"argument {name!r} must be one of {', '.join(ORIENTATIONS)} (any case, underscores "
                f"optional), got {value!r:.80}",
                argument=name,
            )
        return _FOLDED[folded]

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(ORIENTATIONS)}


def _turn(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.set_orientation(args["orientation"])
    return {"orientation": args["orientation"]}


ACTION = Action(
    "set_orientation",
    "turn the screen (portrait, landscape_left, landscape_right, upside_down)",
    _turn,
    params=(Param("orientation", Orientation(), "which way the screen turns", required=True),),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("set_orientation", short="orientation"),
    maestro=(MaestroForm("setOrientation", short="orientation", options={"orientation": "orientation"}),),
    offered=False,  # flows only: the agents' tool list keeps its token budget (tests/agent/test_budgets.py)
)
