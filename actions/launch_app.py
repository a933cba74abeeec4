"""``launch_app``: bring an app to the foreground (the driver checks that it got there)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, Screen


def _launch(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.launch_app(args["app_id"])
    return None


ACTION = Action(
    "launch_app",
    "bring an app to the foreground",
    _launch,
    params=(APP,),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("launch_app", short="app_id"),
    note="An app that the world and the screen both show in front is not launched again.",
)
