"""``launch_app``: bring an app to the foreground (the driver checks that it got there); with
``stop_first`` stop it before (Maestro's ``launchApp`` does unless told ``stopApp: false``), with
``clear_state`` clear its data first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, MaestroForm, Param, Screen, Unsupported
from .kinds import Flag, Values


def _launch(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    app = args["app_id"]
    done: list[str] = []
    if args.get("clear_keychain") and driver.platform == "android":
        done.append("clear_keychain: Android has no keychain (nothing to do, as in Maestro)")
    if args.get("clear_state"):
        driver.clear_state(app)  # which stops the app too
        done.append("cleared its data")
    elif args.get("stop_first"):
        driver.terminate_app(app)
        done.append("stopped it")
    driver.launch_app(app)
    return {"before": done} if done else None


ACTION = Action(
    "launch_app",
    "bring an app to the foreground",
    _launch,
    params=(
        APP,
        Param("stop_first", Flag(), "stop the app first, so it starts anew", agents=False),
        Param("clear_state", Flag(), "clear the app's data first (which stops it)", agents=False),
        Param("clear_keychain", Flag(), "clear the iOS keychain first", agents=False),
        Param("permissions", Values(), "permission name (or all) -> allow, deny or unset", agents=False),
        Param("arguments", Values(), "launch arguments, name -> value", agents=False),
    ),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("launch_app", short="app_id"),
    note="An app that the world and the screen both show in front is not launched again "
    "(unless stop_first or clear_state asks for a fresh start).",
    maestro=(
        MaestroForm(
            "launchApp",
            short="app_id",
            bare=True,
            options={
                "appId": "app_id",
                "url": "app_id",
                "clearState": "clear_state",
                "clearKeychain": "clear_keychain",
                "stopApp": "stop_first",
                "permissions": "permissions",
                "arguments": "arguments",
            },
            fixed={"stop_first": True},
            note="Maestro grants every permission when `permissions` is not given; here the device's "
            "own answers stay (no backend here sets permissions yet)",
        ),
    ),
    unsupported=(
        Unsupported(
            "no backend of this harness clears the iOS keychain (Maestro does it on simulators only, "
            "with simctl)",
            platforms=frozenset({"ios"}),
            when="clear_keychain",
        ),
        Unsupported("no backend of this harness sets an app's permissions yet", when="permissions"),
        Unsupported("no backend of this harness passes launch arguments yet", when="arguments"),
    ),
)
