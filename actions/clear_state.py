"""``clear_state``: clear an app's data (which stops it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, MaestroForm, Screen
from .permits import PHONE_CLEAR


def _clear(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.clear_state(args["app_id"])
    return None


ACTION = Action(
    "clear_state",
    "clear an app's data",
    _clear,
    params=(APP,),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("clear_state", short="app_id"),
    maestro=(MaestroForm("clearState", short="app_id", bare=True, options={"appId": "app_id"}),),
    unsupported=(PHONE_CLEAR,),
)
