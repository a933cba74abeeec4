"""The users of the simulated Android phone: its owner (user 0) and the profiles beside it (a work
profile, an MDM-managed profile, a second user), and what ``pm`` prints about them.

Each output modelled on a real one:

- ``pm list users``: ``Users:`` then one ``UserInfo{ID:NAME:FLAGS} running`` line a user
  (kaeawc/auto-mobile#35: ``UserInfo{0:Owner:13} running`` / ``UserInfo{10:Work profile:30}
  running``; ibilux/MobyDroid#18: a work profile ``UserInfo{11:Arbeitsprofil:1030} running``); the
  flags here are MobyDroid's (``c13`` the owner, ``1030`` a managed profile).
- A profile the shell may not touch (an MDM phone's): ``pm list packages`` without ``--user``, which
  lists every user's, fails with exit 255 and PackageManagerShellCommand's "Exception occurred while
  executing 'list':" and ``java.lang.SecurityException: Shell does not have permission to access user
  10`` with its stack (appium/appium#20366, appium/appium-adb#738, dtmilano/CulebraTester2-public#30).
- An app installed only in a profile is no package of user 0: ``pm path`` prints nothing (exit 1),
  ``am start`` without ``--user`` does not resolve it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SimUser", "list_packages_refusal", "list_users"]


@dataclass(frozen=True)
class SimUser:
    """A user of the phone beside its owner: its id, name, ``pm``'s flags, the apps installed for it
    alone, and whether the adb shell may act for it (False on a phone whose MDM forbids it)."""

    user_id: int
    name: str
    flags: str = "1030"
    apps: tuple[str, ...] = ()
    shell_access: bool = True


def list_users(users: tuple[SimUser, ...]) -> str:
    """``pm list users`` on a phone with these users beside its owner."""
    lines = ["Users:", "\tUserInfo{0:Owner:c13} running"]
    lines += [f"\tUserInfo{{{u.user_id}:{u.name}:{u.flags}}} running" for u in users]
    return "\n".join(lines) + "\n"


def list_packages_refusal(users: tuple[SimUser, ...]) -> str | None:
    """What ``pm list packages`` (every user's) prints when a user is closed to the shell, or None."""
    closed = next((u for u in users if not u.shell_access), None)
    if closed is None:
        return None
    return (
        "Exception occurred while executing 'list':\n"
        f"java.lang.SecurityException: Shell does not have permission to access user {closed.user_id}\n"
        " com.android.server.am.ActivityManagerService.handleIncomingUser:15872 "
        "android.app.ActivityManager.handleIncomingUser:5132 "
        "com.android.server.pm.PackageManagerShellCommand.translateUserId:3733\n"
        "\tat com.android.server.am.UserController.handleIncomingUser(UserController.java:2892)\n"
        "\tat com.android.server.am.ActivityManagerService.handleIncomingUser("
        "ActivityManagerService.java:15872)\n"
    )
