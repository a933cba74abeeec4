"""``SimDriver``: the simulated device driven in process, implementing the ``Driver`` protocol."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Mapping

from ..core import stop
from ..core.durations import check_seconds
from ..core.errors import AppLaunchFailed, DeviceError, StepArgumentError, Unsupported
from ..core.models import Platform, Scene
from ..drivers.base import (
    MAX_LATENCY,
    coordinate,
    erase_count,
    gesture_seconds,
    ios_cannot_clear,
    location,
    on_a_phone,
)
from ..drivers.covers import dialog_is_about, dialog_launch_failed, locked, system_dialog
from ..drivers.frontboard import launch_refusal
from ..drivers.hierarchy import parse_source
from ..drivers.launching import ios_arguments
from ..drivers.permissions import android_names, android_verb, check_permissions, ios_plan
from ..sim.device import SimDevice
from ..sim.render_android import render_hierarchy
from ..sim.render_wda import render_xml, wda_tree

__all__ = ["SimDriver"]

LAUNCH_TIMEOUT = 5.0
LAUNCH_POLL = 0.02


class SimDriver:
    """Drive a :class:`SimDevice` directly. ``latency`` (seconds) is added to every device call,
    to measure what the harness costs next to a real device's round trip."""

    backend = "sim"

    @property
    def animates(self) -> bool:
        """Whether the screen moves on after an action (the device's transitions take time), so the
        loop waits for it to settle; an instant simulated device changes at once."""
        return not self.device.timing.instant

    def __init__(
        self,
        platform: Platform = "android",
        *,
        device: SimDevice | None = None,
        device_id: str | None = None,
        latency: float = 0.0,
    ) -> None:
        if device is not None and device.platform != platform:
            platform = device.platform
        if platform not in ("android", "ios"):
            raise StepArgumentError(f"SimDriver platform must be 'android' or 'ios', got {platform!r}")
        self.latency = check_seconds(latency, "SimDriver latency", maximum=MAX_LATENCY)
        self.device = device or SimDevice(platform, device_id)
        self.requests = 0
        self._closed = False
        self._count_lock = threading.Lock()

    @property
    def device_id(self) -> str:
        return self.device.device_id

    @property
    def platform(self) -> Platform:
        return self.device.platform

    @property
    def kind(self) -> str:
        """``simulator`` for an iPhone playing an iOS Simulator (its profile's ``kind``), else ``device``."""
        return str(getattr(self.device.profile, "kind", "device"))

    @property
    def _phone(self) -> bool:
        return self.platform == "ios" and self.kind == "device"

    def _call(self) -> None:
        if self._closed:
            raise DeviceError(f"SimDriver for {self.device_id} is closed")
        with self._count_lock:
            self.requests += 1
        if self.latency:  # Ctrl-C ends the wait for the simulated device's answer (core.stop)
            stop.sleep(self.latency, "while waiting for the simulated device's answer")

    def observe(self) -> Scene:
        """Render the screen in the platform's own dump format and parse it with the real parsers.

        Android gets uiautomator2's window dump, iOS WebDriverAgent's XML source, so the Scene is
        built exactly as it is from a phone; only the activity is added, which the sim knows.
        """
        started = time.perf_counter()
        return self._scene(*self._snapshot(), started)

    def _snapshot(self) -> tuple[str, str, str | None, str | None]:
        """One device call: the screen as its platform's source text, the app in front and (Android)
        its activity, and (iOS) the lock screen or panel over it, as WebDriverAgent reports them
        (:func:`drivers.covers.springboard_cover`), from one consistent snapshot."""
        self._call()
        dev = self.device
        with dev._lock:
            tree = dev.tree()
            foreground = dev.foreground()
            cover = dev.screen_cover()
            activity = dev.foreground_activity() if dev.platform == "android" and cover is None else None
        if dev.platform == "android":
            return render_hierarchy(tree), foreground, activity, None
        ios_cover = cover if cover in ("keyguard", "shade") else None
        return render_xml(wda_tree(tree, bundle_id=tree.package)), foreground, activity, ios_cover

    def _scene(
        self, source: str, foreground: str, activity: str | None, cover: str | None, started: float
    ) -> Scene:
        """What the harness makes of a snapshot: the source parsed, the sim's activity added."""
        dev = self.device
        scene = parse_source(source, platform=dev.platform, device_id=dev.device_id, backend=self.backend)
        return dataclasses.replace(
            scene,
            foreground_app=scene.foreground_app or foreground,
            activity=activity,
            cover=cover,
            capture_duration=time.perf_counter() - started,
        )

    def launch_app(self, app_id: str) -> None:
        """Launch, then wait (at most ``LAUNCH_TIMEOUT``) until the app shows in front, as the real
        adapters do: with the device's timing on, the old screen shows for a moment first. A launch
        on a locked phone fails as the adapters' do (:mod:`drivers.covers`)."""
        self._call()
        try:
            self.device.launch(app_id)
        except AppLaunchFailed as exc:
            refusal = launch_refusal(exc.message)  # iOS: FrontBoard refuses it while locked
            if refusal is not None and refusal.kind == "locked":
                raise locked(self.device_id, what="the phone is locked", app_id=app_id) from exc
            raise
        if self.device.locked:  # the app started behind the lock screen (Android)
            raise locked(self.device_id, what="the phone is locked (the lock screen is up)", app_id=app_id)
        dialog = self.device.system.dialog  # the app crashed or hangs: its dialog is the answer
        if dialog is not None and dialog_is_about(dialog.app_id, app_id):
            found = system_dialog(self.observe())
            kind = "anr" if dialog.kind == "not_responding" else "crash"
            raise dialog_launch_failed(self.device_id, app_id, kind, found[1] if found else None)
        deadline = time.monotonic() + LAUNCH_TIMEOUT
        while self.device.foreground() != app_id and app_id != self.device.launcher:
            if time.monotonic() >= deadline:
                raise AppLaunchFailed(
                    f"{app_id} did not reach the foreground of {self.device_id} within {LAUNCH_TIMEOUT:g} s",
                    app_id=app_id,
                )
            time.sleep(LAUNCH_POLL)

    def terminate_app(self, app_id: str) -> None:
        self._call()
        self.device.terminate(app_id)

    def current_app(self) -> str | None:
        """The app in front; None on the home screen and on a locked phone."""
        self._call()
        app = self.device.foreground()
        return None if app == self.device.launcher or self.device.locked else app

    def tap(self, x: int, y: int) -> None:
        px, py = coordinate(x, "x"), coordinate(y, "y")
        self._call()
        self.device.tap(px, py)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        px, py = coordinate(x, "x"), coordinate(y, "y")
        gesture_seconds(duration, "long_press duration", held=True)
        self._call()
        self.device.tap(px, py)

    def type_text(self, text: str) -> None:
        self._call()
        self.device.type_text(text)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        points = [coordinate(v, n) for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2))]
        gesture_seconds(duration, "swipe duration", held=False)
        self._call()
        self.device.swipe(*points)

    def press(self, key: str) -> None:
        self._call()
        self.device.press(key)

    def erase_text(self, count: int) -> None:
        n = erase_count(count)
        self._call()
        self.device.erase_text(n)

    def set_location(self, latitude: float, longitude: float) -> None:
        lat, lon = location(latitude, longitude)
        self._call()
        self.device.set_location(lat, lon)

    def screenshot(self) -> bytes:
        self._call()
        return self.device.screenshot_png()

    def hide_keyboard(self) -> None:
        self._call()
        self.device.hide_keyboard()

    def open_link(self, url: str, app_id: str | None = None) -> None:
        self._call()
        self.device.open_link(url, app_id)

    def clear_state(self, app_id: str) -> None:
        """``pm clear`` on Android; on an iPhone playing a Simulator what ``simctl`` does (the app
        reinstalled: its data and permissions gone); refused on a physical iPhone, as WebDriverAgent
        refuses it there (nothing can reset an app), so a flow that passes here passes there too."""
        if self._phone:
            raise ios_cannot_clear(app_id)
        self._call()
        self.device.clear_state(app_id)

    def launch_with(self, app_id: str, arguments: Mapping[str, object]) -> None:
        """iOS: the launch with Maestro's argument list (:func:`drivers.launching.ios_arguments`),
        which a new process of the app receives. Android: ``Unsupported`` (see
        :data:`amc.actions.permits.ANDROID_ARGUMENTS`)."""
        if self.platform == "android":
            raise Unsupported(
                "launch arguments on Android: this harness starts apps through the launcher, which "
                "carries no intent extras"
            )
        argv = ios_arguments(arguments)
        self._call()
        self.device.launch(app_id, argv)
        self.launch_app(app_id)

    def set_permissions(self, app_id: str, permissions: Mapping[str, str]) -> None:
        """Android: ``pm grant`` / ``pm revoke`` of what Maestro's names stand for, ``all`` being what
        the app declares (what pm refuses is passed over, as Maestro does); an iPhone playing a
        Simulator: simctl privacy's services and the notification prompt's answer
        (:func:`drivers.permissions.ios_plan`); a physical iPhone: ``Unsupported``."""
        wanted = check_permissions(permissions)
        if self._phone:
            raise on_a_phone("set permissions", "the simulated iPhone")
        self._call()
        dev = self.device
        if dev.platform == "android":
            for name, value in wanted.items():
                names = dev.runtime_permissions(app_id) if name == "all" else android_names(name)
                for permission in names:
                    if permission in dev.runtime_permissions(app_id):
                        (dev.grant if android_verb(value) == "grant" else dev.revoke)(app_id, permission)
            return
        actions, notifications, _skipped = ios_plan(wanted)
        dev.runtime_permissions(app_id)  # AppNotInstalled for an app that is not there
        for action, service in actions:
            if service == "all":
                continue  # simctl's `all` covers its own services; the simulated apps ask for none
            {"grant": dev.grant, "revoke": dev.revoke, "reset": dev.reset_permission}[action](app_id, service)
        if notifications is not None and "notifications" in dev.runtime_permissions(app_id):
            # what Maestro's XCTest runner does: it answers the notification alert when it shows
            (dev.grant if notifications == "allow" else dev.revoke)(app_id, "notifications")

    def clear_keychain(self) -> None:
        """Reset the keychain (an iPhone playing a Simulator); refused on a physical iPhone; nothing on
        Android, which has none."""
        if self._phone:
            raise on_a_phone("clear the keychain", "the simulated iPhone")
        if self.platform == "ios":
            self._call()
            self.device.clear_keychain()

    def close(self) -> None:
        self._closed = True

    # --- the device's own state (sim.device_state) ------------------------------------------

    def set_orientation(self, orientation: str) -> None:
        self._call()
        self.device.set_orientation(orientation)

    def set_airplane_mode(self, enabled: bool) -> None:
        """Android's; refused on the simulated iPhone as on an iPhone or a Simulator, where neither
        XCTest nor ``simctl`` switches airplane mode."""
        self._call()
        if self.device.platform == "ios":
            raise Unsupported(
                "the simulated iPhone cannot switch airplane mode: neither XCTest nor simctl can on iOS",
                hint="run the flow on Android",
            )
        self.device.set_airplane_mode(enabled)

    def airplane_mode(self) -> bool:
        self._call()
        if self.device.platform == "ios":
            self.set_airplane_mode(True)
        return self.device.airplane

    def set_dark_mode(self, enabled: bool) -> None:
        self._call()
        self.device.set_dark_mode(enabled)

    def dark_mode(self) -> bool:
        self._call()
        return self.device.dark

    def start_recording(self) -> None:
        self._call()
        self.device.start_recording()

    def stop_recording(self) -> bytes:
        self._call()
        return self.device.stop_recording()

    def add_media(self, name: str, data: bytes) -> None:
        self._call()
        self.device.add_media(name, data)

    def __repr__(self) -> str:
        return f"SimDriver(platform={self.platform!r}, device_id={self.device_id!r})"
