"""``assert_app``: check which app is in the foreground."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed
from ..core.models import Scene
from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, Screen
from .looking import until
from .waiting import WAIT_PARAMS


def _assert_app(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    expected = args["app_id"]
    seen: list[str | None] = []

    def in_front(scene: Scene) -> Any:
        app = scene.foreground_app
        if app is None:  # the backend's page source did not say: ask the device
            app = screen.current_app()
        seen.append(app)
        return {"app": app} if app == expected else None

    return until(
        screen,
        args,
        in_front,
        lambda _polls, _scene: AssertionFailed(
            f"expected {expected} in front, but the device shows {seen[-1] or 'the home screen'}",
            hint="a launch may have failed or another app (or a system dialog) took the foreground",
        ),
    )


ACTION = Action(
    "assert_app",
    "check which app is in the foreground",
    _assert_app,
    params=(APP, *WAIT_PARAMS),
    idempotent=True,
    waits=3.0,
    flow=FlowForm("assert_app", short="app_id"),
)
