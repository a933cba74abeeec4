"""``pm grant`` / ``pm revoke`` and the permission blocks of ``dumpsys package`` on a simulated
Android phone, in the lines a real phone prints.

- ``pm grant PKG PERM`` / ``pm revoke PKG PERM`` print nothing and exit 0 when they changed a
  runtime permission the app declares. A permission the app does not declare: ``Exception occurred
  while executing 'grant':`` then ``java.lang.SecurityException: Package PKG has not requested
  permission PERM`` and the stack, exit 255 (the stack's first frame,
  ``PermissionManagerServiceImpl.grantRuntimePermissionInternal``, as quoted from an emulator in a
  public test of an adb client; the same message in appium/appium-adb's e2e specs). A normal
  (install-time) one: ``java.lang.SecurityException: Permission PERM requested by package PKG is not
  a changeable permission type`` (thejaustin/ShizukuPlus#358). An unknown package:
  ``java.lang.IllegalArgumentException: Unknown package: PKG``. Maestro runs these and ignores their
  failures (AndroidDriver.kt ``setPermissionInternal``).
- ``dumpsys package PKG`` lists ``requested permissions:``, ``install permissions:`` (``PERM:
  granted=true``) and, under ``User 0:``, ``runtime permissions:`` (``PERM: granted=BOOL, flags=[ … ]``),
  the blocks an Android 14 emulator prints; no full capture was collected here, so only these lines
  are played.
"""

from __future__ import annotations

from .device import SimDevice
from .permissions import INSTALL_TIME

__all__ = ["permission_blocks", "pm_grant"]

_STACK = (
    "\tat com.android.server.pm.permission.PermissionManagerServiceImpl.{method}Internal"
    "(PermissionManagerServiceImpl.java:1423)\n"
    "\tat com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission"
    "(PackageManagerShellCommand.java:2717)\n"
)


def _failure(verb: str, exception: str) -> tuple[str, int]:
    method = "grantRuntimePermission" if verb == "grant" else "revokeRuntimePermission"
    return f"Exception occurred while executing '{verb}':\n{exception}\n{_STACK.format(method=method)}", 255


def pm_grant(device: SimDevice, argv: list[str]) -> tuple[str, int]:
    """``pm grant|revoke [--user N] PKG PERM``: (what pm prints, its exit status)."""
    verb = argv[1]
    words = argv[2:]
    if words[:1] == ["--user"]:
        words = words[2:]
    if len(words) < 2:
        return f"Error: no {'package' if not words else 'permission'} specified\n", 255
    package, permission = words[0], words[1]
    if package not in device.apps:
        return _failure(verb, f"java.lang.IllegalArgumentException: Unknown package: {package}")
    if permission not in device.declared_permissions(package):
        return _failure(
            verb,
            f"java.lang.SecurityException: Package {package} has not requested permission {permission}",
        )
    if permission in INSTALL_TIME:
        return _failure(
            verb,
            f"java.lang.SecurityException: Permission {permission} requested by package {package} "
            "is not a changeable permission type",
        )
    (device.grant if verb == "grant" else device.revoke)(package, permission)
    return "", 0


def permission_blocks(device: SimDevice, package: str) -> str:
    """The permission lines of ``dumpsys package PACKAGE``."""
    declared = device.declared_permissions(package)
    runtime = device.runtime_permissions(package)
    lines = ["    requested permissions:\n", *(f"      {p}\n" for p in declared)]
    lines += [
        "    install permissions:\n",
        *(f"      {p}: granted=true\n" for p in declared if p not in runtime),
    ]
    lines.append("    User 0: ceDataInode=12345 installed=true hidden=false suspended=false stopped=false\n")
    lines.append("      runtime permissions:\n")
    for p in runtime:
        granted = str(device.permission(package, p) == "granted").lower()
        flags = "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
        lines.append(f"        {p}: granted={granted}, flags=[ {flags}]\n")
    return "".join(lines)
