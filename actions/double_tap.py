"""``double_tap``: two taps in quick succession on a point or an element (Maestro's
``doubleTapOn``: a tap repeated twice, 100 ms apart)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen
from .tap import MAESTRO_TAP_OPTIONS, TAP_PARAMS, tap_at
from .targets import point_or_target


def _double_tap(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return tap_at(driver, args, screen, 2 * args.get("repeat", 1))


ACTION = Action(
    "double_tap",
    "tap a point or an element twice in quick succession",
    _double_tap,
    params=TAP_PARAMS,
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("double_tap", short="target"),
    check=point_or_target,
    note="Give target (a selector), x and y, or at; two taps `delay` apart (default 0.1 s).",
    maestro=(
        MaestroForm(
            "doubleTapOn",
            short="text",
            selector=True,
            options=MAESTRO_TAP_OPTIONS,
            lookup=True,
            millis=frozenset({"delay", "waitToSettleTimeoutMs"}),
        ),
    ),
    offered=False,  # flows only: kept out of the agents' tools, which must stay small
)
