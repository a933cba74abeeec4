"""The Appium ``mobile:`` commands of permissions, the keychain and a launch with arguments, as the
UiAutomator2 and XCUITest drivers take them (their docs' argument names); registered into
:data:`sim.appium_input.MOBILE_COMMANDS`.

- ``mobile: changePermissions`` (UiAutomator2): ``permissions`` (a name, a list, or ``all``: "the
  chosen action is going to be applied to all permissions requested/granted by 'appPackage'",
  appium-android-driver ``lib/commands/permissions.ts``), ``appPackage``, ``action`` grant|revoke
  (``target`` pm, the default; appops is not played); appium-adb's grant of a permission the app
  does not declare fails with pm's SecurityException (relayed as an unknown error).
- ``mobile: setPermission`` (XCUITest, Simulator only): ``bundleId``, ``access`` {service:
  yes|no|unset|limited}; on a real device the driver refuses it ('unknown method', as mobileClearApp).
- ``mobile: clearKeychains`` (XCUITest, Simulator only): the Simulator's keychain.
- ``mobile: launchApp`` (XCUITest): ``bundleId``, ``arguments`` (list), ``environment`` (object).
The replies' shapes are ours where no capture was found (each answers null).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .appium_errors import W3CError, invalid_argument
from .permissions import INSTALL_TIME

__all__ = ["PERMISSION_COMMANDS"]

_ONLY_SIMULATORS = "This extension is only supported on simulators"


def _simulator_only(phone: Any) -> None:
    if not getattr(phone.device.profile, "simulator", False):
        raise W3CError(405, "unknown method", _ONLY_SIMULATORS)


def _installed(phone: Any, app: object) -> str:
    if not isinstance(app, str) or not phone.device.is_installed(app):
        raise W3CError(500, "unknown error", f"The application '{app}' is not installed on the device")
    return app


def _change_permissions(phone: Any, options: Mapping[str, Any]) -> Any:
    app = _installed(phone, options.get("appPackage"))
    action = str(options.get("action", "grant")).lower()
    if action not in ("grant", "revoke"):
        raise invalid_argument(f"'action' must be grant or revoke, got {action!r}")
    wanted = options.get("permissions")
    device = phone.device
    names = list(device.runtime_permissions(app)) if wanted == "all" else wanted
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise invalid_argument("'permissions' must be a permission name, a list of them, or all")
    for name in names:
        if name not in device.declared_permissions(app) or name in INSTALL_TIME:
            raise W3CError(
                500,
                "unknown error",
                f"java.lang.SecurityException: Package {app} has not requested permission {name}",
            )
        (device.grant if action == "grant" else device.revoke)(app, name)
    return None


def _set_permission(phone: Any, options: Mapping[str, Any]) -> Any:
    _simulator_only(phone)
    app = _installed(phone, options.get("bundleId"))
    access = options.get("access")
    if not isinstance(access, dict) or not access:
        raise invalid_argument("'access' must map services to yes, no or unset")
    device = phone.device
    for service, value in access.items():
        names = device.runtime_permissions(app) if service == "all" else (service,)
        for name in names:
            if name not in device.runtime_permissions(app):
                continue  # the Simulator records it; the simulated apps do not ask for it
            {"yes": device.grant, "no": device.revoke}.get(str(value), device.reset_permission)(app, name)
    return None


def _clear_keychains(phone: Any, options: Mapping[str, Any]) -> Any:
    _simulator_only(phone)
    phone.device.clear_keychain()
    return None


def _launch_app(phone: Any, options: Mapping[str, Any]) -> Any:
    app = _installed(phone, options.get("bundleId"))
    arguments, environment = options.get("arguments") or [], options.get("environment") or {}
    if not isinstance(arguments, list) or not isinstance(environment, dict):
        raise invalid_argument("'arguments' must be an array and 'environment' an object")
    phone.device.launch(
        app, tuple(str(a) for a in arguments), {str(k): str(v) for k, v in environment.items()}
    )
    return None


PERMISSION_COMMANDS: dict[str, tuple[frozenset[str], Any]] = {
    "mobile: changePermissions": (frozenset({"android"}), _change_permissions),
    "mobile: setPermission": (frozenset({"ios"}), _set_permission),
    "mobile: clearKeychains": (frozenset({"ios"}), _clear_keychains),
    "mobile: launchApp": (frozenset({"ios"}), _launch_app),
}
