"""What the actions that reach an app's data, permissions and keychain share: the permissions
argument's kind and the rules for where they cannot run, spelled once for ``launch_app``,
``clear_state``, ``set_permissions`` and ``clear_keychain``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..drivers.base import Driver
from ..drivers.kinds import device_kind
from ..drivers.permissions import check_permissions, ios_refuses
from .base import Unsupported

__all__ = [
    "IOS_VALUES",
    "PHONE_CLEAR",
    "PHONE_KEYCHAIN",
    "PHONE_PERMISSIONS",
    "Permissions",
    "can_set_permissions",
]

_PHONE = frozenset({"device"})
_IOS = frozenset({"ios"})

# A physical iPhone: nothing outside an app resets it, sets its permissions or empties the keychain
# (XCTest gives WebDriverAgent no API for it; simctl and XCUITest's mobile: clearApp / setPermission /
# clearKeychains reach Simulators only).
PHONE_CLEAR = Unsupported(
    "a physical iPhone's apps cannot be cleared from outside (XCTest has no API to reset an app; "
    "simctl reaches only Simulators): run on a Simulator, or reinstall the app",
    platforms=_IOS,
    kinds=_PHONE,
)
PHONE_PERMISSIONS = Unsupported(
    "a physical iPhone's permissions cannot be set from outside (simctl privacy and XCUITest's "
    "mobile: setPermission reach only Simulators)",
    platforms=_IOS,
    kinds=_PHONE,
)
PHONE_KEYCHAIN = Unsupported(
    "a physical iPhone's keychain cannot be cleared from outside (simctl keychain reset and "
    "XCUITest's mobile: clearKeychains reach only Simulators)",
    platforms=_IOS,
    kinds=_PHONE,
)
# A value Maestro's iOS driver refuses (Android takes any value as a revoke): a rule on the option's value.
IOS_VALUES = Unsupported(
    "iOS takes a permission's value as allow, deny or unset (location also always, inuse, never): "
    "Maestro's iOS driver refuses any other, where Android takes it as a revoke",
    platforms=_IOS,
    when="permissions",
    only=lambda args: ios_refuses(_literal(args["permissions"])) is not None,
)


def _literal(permissions: Mapping[str, str]) -> dict[str, str]:
    """The values known before the run: one still holding ``${…}`` is judged when the step runs,
    once filled (Maestro's own ``permission_interpolation.yaml`` fills ``location`` per platform)."""
    return {name: value for name, value in permissions.items() if "${" not in str(value)}


@dataclass(frozen=True)
class Permissions:
    """Permission names (Maestro's, or ``all``) mapped to allow, deny or unset
    (:func:`amc.drivers.permissions.check_permissions`)."""

    def check(self, value: Any, name: str) -> Any:
        return check_permissions(value, name)

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"type": "string", "enum": ["allow", "deny", "unset"]},
        }


def can_set_permissions(driver: Driver) -> bool:
    """Whether ``driver``'s device lets permissions be set (the rule :data:`PHONE_PERMISSIONS`)."""
    return not PHONE_PERMISSIONS.applies({}, driver.backend, driver.platform, device_kind(driver))
