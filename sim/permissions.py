"""What the simulated phone remembers of its apps' permissions, its keychain and the arguments an
app was launched with: the part of :class:`~sim.device.SimDevice` that ``pm grant`` / ``pm revoke``
(Android), ``xcrun simctl privacy`` / ``simctl keychain`` (an iOS Simulator) and a launch with
arguments change.

A permission is ``granted``, ``denied`` or unset (never answered). An app that asks for one on its
first launch (:attr:`sim.catalog.AppSpec.asks`) shows the system's prompt only while it is unset and
was not asked before: as on a phone, an answer (the user's, or one set from outside) is kept, so a
granted notification permission means no prompt (Apple: "If the person grants permission, the
system remembers the person's choice and doesn't prompt again", *Requesting access to protected
resources*). Android keeps a revoked permission requestable: ``pm revoke`` unsets it, and the app
asks again on its next launch (Maestro maps ``deny`` and ``unset`` both to ``pm revoke``,
maestro-client AndroidDriver.kt ``translatePermissionValue``). On iOS ``simctl privacy revoke``
records a denial, ``reset`` unsets it ("reset - Reset access, prompting on next use"), and a change
stops the app if it runs ("Some permission changes will terminate the application if running.",
simctl's help).

Android names: an app declares the runtime permission behind what it asks for (notifications:
``android.permission.POST_NOTIFICATIONS``, Android 13's) and ``android.permission.INTERNET``, a
normal (install-time) permission that ``pm grant`` refuses to change.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from ..core.errors import AppNotInstalled
from ..core.models import Platform
from .app_run import AppRun
from .catalog import AppSpec

__all__ = ["ANDROID_RUNTIME", "INSTALL_TIME", "DevicePermissions", "Env"]

Env = Mapping[str, str] | None  # the environment a launch adds to an app's process

# What a simulated app asks for -> the Android runtime permission it declares for it.
ANDROID_RUNTIME: dict[str, str] = {
    "notifications": "android.permission.POST_NOTIFICATIONS",
    "location": "android.permission.ACCESS_FINE_LOCATION",
    "camera": "android.permission.CAMERA",
}
# Normal permissions every simulated Android app declares (granted at install, not changeable).
INSTALL_TIME: tuple[str, ...] = ("android.permission.INTERNET",)
GRANTED, DENIED = "granted", "denied"


class DevicePermissions:
    """Permissions, keychain and launch arguments (a mixin of ``SimDevice``; its lock guards them)."""

    platform: Platform
    apps: dict[str, AppSpec]
    _lock: threading.RLock
    _asked: set[str]
    _running: dict[str, AppRun]
    changes: int

    _grants: dict[str, dict[str, str]]
    _keychain_resets: int

    def _permission_state(self) -> dict[str, dict[str, str]]:
        return self._grants

    def terminate(self, app_id: str) -> bool:
        raise NotImplementedError  # SimDevice's

    def _installed(self, app_id: str) -> AppSpec:
        spec = self.apps.get(app_id)
        if spec is None:
            raise AppNotInstalled(f"{app_id} is not installed", app_id=app_id)
        return spec

    def _name(self, spec: AppSpec) -> str | None:
        """The permission ``spec`` asks for, named as the platform names it."""
        if spec.asks is None:
            return None
        return ANDROID_RUNTIME.get(spec.asks, spec.asks) if self.platform == "android" else spec.asks

    def runtime_permissions(self, app_id: str) -> tuple[str, ...]:
        """The runtime permissions ``app_id`` declares (Android names; iOS: the services it uses)."""
        with self._lock:
            name = self._name(self._installed(app_id))
            return () if name is None else (name,)

    def declared_permissions(self, app_id: str) -> tuple[str, ...]:
        """Every permission ``app_id`` declares (on Android its normal ones too)."""
        with self._lock:
            extra = INSTALL_TIME if self.platform == "android" else ()
            return (*extra, *self.runtime_permissions(app_id))

    def permission(self, app_id: str, name: str) -> str | None:
        """``granted``, ``denied`` or None (unset) for ``app_id``'s permission ``name``."""
        with self._lock:
            if name in INSTALL_TIME and name in self.declared_permissions(app_id):
                return GRANTED
            return self._permission_state().get(app_id, {}).get(name)

    def grant(self, app_id: str, name: str) -> None:
        """Grant ``name`` to ``app_id`` (``pm grant``, ``simctl privacy grant``)."""
        self._set_permission(app_id, name, GRANTED)

    def revoke(self, app_id: str, name: str) -> None:
        """Android: unset (the app may ask again); iOS: a denial that stops the app if it runs."""
        self._set_permission(app_id, name, None if self.platform == "android" else DENIED)

    def reset_permission(self, app_id: str, name: str) -> None:
        """Unset ``name`` (``simctl privacy reset``): the app asks again on its next launch."""
        self._set_permission(app_id, name, None)

    def _set_permission(self, app_id: str, name: str, value: str | None) -> None:
        with self._lock:
            self._installed(app_id)
            kept = self._permission_state().setdefault(app_id, {})
            if value is None:
                kept.pop(name, None)
                self._asked.discard(app_id)
            else:
                kept[name] = value
            if self.platform == "ios" and value != GRANTED and app_id in self._running:
                self._stop_for_privacy(app_id)
            self.changes += 1

    def _stop_for_privacy(self, app_id: str) -> None:
        self.terminate(app_id)

    def forget_permissions(self, app_id: str) -> None:
        """What clearing an app's data does to its permissions: all unset, asked again."""
        with self._lock:
            self._permission_state().pop(app_id, None)
            self._asked.discard(app_id)

    def answer_prompt(self, app_id: str, allowed: bool) -> None:
        """The user answered ``app_id``'s prompt (Allow / Don't Allow, or back on Android)."""
        with self._lock:
            name = self._name(self._installed(app_id))
            if name is None:
                return
            kept = self._permission_state().setdefault(app_id, {})
            if allowed:
                kept[name] = GRANTED
            elif self.platform == "ios":
                kept[name] = DENIED
            else:
                kept.pop(name, None)  # Android: denied once, it may ask again on a later launch

    def prompts(self, spec: AppSpec) -> bool:
        """Whether ``spec``'s app shows its permission prompt as it starts now."""
        name = self._name(spec)
        if name is None or spec.app_id in self._asked:
            return False
        return self._permission_state().get(spec.app_id, {}).get(name) is None

    # --- the keychain and launch arguments ------------------------------------------------

    @property
    def keychain_resets(self) -> int:
        """How often the keychain was reset (``simctl keychain reset``, Maestro's clearKeychain)."""
        return self._keychain_resets

    def clear_keychain(self) -> None:
        """Reset the device's keychain (one keychain for every app: simctl has no per-app reset)."""
        with self._lock:
            self._keychain_resets += 1
            self.changes += 1

    def start_with(
        self,
        run: AppRun,
        arguments: tuple[str, ...],
        environment: Mapping[str, str] | None,
        extras: Mapping[str, object] | None = None,
    ) -> None:
        """A new process of ``run``'s app gets ``arguments`` and ``environment`` (iOS) or its launch
        intent's ``extras`` (Android); the app reads its ``-name value`` pairs as UserDefaults does,
        or the extra of that name as ``getIntent().getExtras()`` gives it
        (:attr:`sim.catalog.AppSpec.reads_arguments`)."""
        run.arguments, run.environment = tuple(arguments), dict(environment or {})
        run.extras = dict(extras or {})
        for name, key in run.spec.reads_arguments:
            if f"-{name}" in arguments[:-1]:
                run.values[key] = arguments[arguments.index(f"-{name}") + 1]
            elif name in run.extras:
                value = run.extras[name]
                run.values[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)

    def launch_extras(self, app_id: str) -> dict[str, object]:
        """The extras (key -> typed value) of the intent ``app_id``'s running process started with."""
        with self._lock:
            run = self._running.get(app_id)
            return {} if run is None else dict(run.extras)

    def launch_arguments(self, app_id: str) -> tuple[tuple[str, ...], Mapping[str, str]]:
        """The arguments and environment ``app_id``'s running process was started with."""
        with self._lock:
            run = self._running.get(app_id)
            if run is None:
                return (), {}
            return run.arguments, dict(run.environment)
