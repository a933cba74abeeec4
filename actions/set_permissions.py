"""``set_permissions``: set an app's permissions (Maestro's ``setPermissions``), named as Maestro
names them, to allow, deny or unset (:mod:`amc.drivers.permissions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import APP
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .permits import IOS_VALUES, PHONE_PERMISSIONS, Permissions


def _set(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.set_permissions(args["app_id"], args["permissions"])
    return {"permissions": dict(args["permissions"])}


ACTION = Action(
    "set_permissions",
    "set an app's permissions",
    _set,
    params=(
        APP,
        Param(
            "permissions",
            Permissions(),
            "permission name (or all) -> allow, deny or unset",
            required=True,
        ),
    ),
    idempotent=True,
    flow=FlowForm("set_permissions", written="`{app_id, permissions*}`"),
    maestro=(MaestroForm("setPermissions", options={"appId": "app_id", "permissions": "permissions"}),),
    unsupported=(PHONE_PERMISSIONS, IOS_VALUES),
    offered=False,  # flows only
)
