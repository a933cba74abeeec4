"""``terminate_app``: stop an app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, Screen


def _terminate(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.terminate_app(args["app_id"])
    return None


ACTION = Action(
    "terminate_app",
    "stop an app",
    _terminate,
    params=(APP,),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("terminate_app", short="app_id"),
)
