"""``launch_app``: bring an app to the foreground (the driver checks that it got there); with
``stop_first`` stop it before (Maestro's ``launchApp`` does unless told ``stopApp: false``), with
``clear_state`` clear its data first, with ``clear_keychain`` reset the iOS keychain first, with
``permissions`` set them first (Maestro's ``launchApp`` allows all when it names none:
``default_permissions``), with ``arguments`` pass launch arguments. The order is Maestro's
(Orchestra.kt ``launchAppCommand``): keychain, data, permissions, launch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.errors import AppNotInstalled
from ..drivers.base import Driver
from ..drivers.permissions import MAESTRO_DEFAULT
from .apps import APP
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Flag, Values
from .permits import (
    IOS_VALUES,
    PHONE_CLEAR,
    PHONE_KEYCHAIN,
    PHONE_PERMISSIONS,
    Permissions,
    can_set_permissions,
)


def _launch(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    app = args["app_id"]
    done: list[str] = []
    if args.get("clear_keychain") and driver.platform == "android":
        done.append("clear_keychain: Android has no keychain (nothing to do, as in Maestro)")
    elif args.get("clear_keychain"):
        driver.clear_keychain()
        done.append("cleared the keychain")
    if args.get("clear_state"):
        driver.clear_state(app)  # which stops the app too
        done.append("cleared its data")
    elif args.get("stop_first"):
        driver.terminate_app(app)
        done.append("stopped it")
    if args.get("permissions"):
        driver.set_permissions(app, args["permissions"])
        done.append("set its permissions")
    elif args.get("default_permissions") and can_set_permissions(driver):
        try:
            driver.set_permissions(app, MAESTRO_DEFAULT)
            done.append("allowed every permission it asks for (Maestro's default)")
        except AppNotInstalled:
            pass  # the launch below says so, in its own words
    elif args.get("default_permissions"):
        done.append("left its permissions: a physical iPhone's cannot be set (Maestro's default allows all)")
    if args.get("arguments"):
        driver.launch_with(app, args["arguments"])
        done.append("passed its launch arguments")
    else:
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
        Param("permissions", Permissions(), "permission name (or all) -> allow, deny or unset", agents=False),
        Param(
            "default_permissions",
            Flag(),
            "allow every permission the app asks for when `permissions` names none (Maestro's default; "
            "left out on a physical iPhone)",
            agents=False,
        ),
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
            fixed={"stop_first": True, "default_permissions": True},
            note="as Maestro, every permission the app asks for is allowed unless `permissions` says "
            "otherwise (not on a physical iPhone, where none can be set); launch arguments reach "
            "iOS apps as -name value and Android apps as typed intent extras",
        ),
    ),
    unsupported=(
        replace(PHONE_KEYCHAIN, when="clear_keychain"),
        replace(PHONE_CLEAR, when="clear_state"),
        replace(PHONE_PERMISSIONS, when="permissions"),
        IOS_VALUES,
    ),
)
