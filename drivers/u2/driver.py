"""``U2Driver``: an Android phone or emulator through adb and the uiautomator2 server.

Built from a serial and an adb server address (``ANDROID_ADB_SERVER_HOST`` /
``ANDROID_ADB_SERVER_PORT`` as adb reads them, default 127.0.0.1:5037; explicit ``adb_host`` /
``adb_port`` win). The constructor does no I/O; :meth:`U2Driver.connect` (or the first call)
checks the phone through adb and makes sure the uiautomator2 server answers, starting it if it
does not. No device listing and no hidden waits on the way: the client is
``uiautomator2.Device(HarnessAdbClient(host, port).device(serial=…))``.

What each method sends (requests to the uiautomator2 server are JSON-RPC over an adb stream):

=================  ==============================================================================
``observe``        one RPC ``dumpWindowHierarchy``, parsed by :func:`drivers.hierarchy.parse_source`
``connect``        the uiautomator2 server check, then the SDK level and the HOME packages
                   (two shell commands, :meth:`drivers.u2.apps.AndroidApps.learn`)
``launch_app``     ``am start -W`` for PKG's launcher activity (it answers once the activity is
                   displayed), then the foreground until PKG (or a permission prompt it asked
                   for) is in front (``AppLaunchFailed`` after ``launch_timeout``); when no
                   activity answers, ``pm path PKG`` (``AppNotInstalled``) and
                   ``LEANBACK_LAUNCHER``
``terminate_app``  ``am force-stop PKG`` (``app_stop``)
``current_app``    one ``dumpsys window displays`` (API 29+) or ``dumpsys window windows``
                   (older), see :mod:`drivers.u2.focus`; None when nothing has focus or a
                   launcher does (the HOME package, learnt at connect, or a known one)
``tap`` …          RPC ``click`` / ``click(x, y, ms)`` / ``swipe`` / ``pressKey``
``type_text``      one ``am broadcast -a ADB_KEYBOARD_INPUT_TEXT`` to uiautomator2's AdbKeyboard
                   input method, whose answer says a field took the text (the first time
                   AdbKeyboard is not current: ``ime enable``, ``settings get``, ``ime set``
                   first), see :mod:`drivers.u2.ime`; without AdbKeyboard RPC ``setClipboard``,
                   ``getClipboard`` (checked), ``pasteClipboard``
``screenshot``     RPC ``takeScreenshot(1, 80)``: JPEG bytes (``screencap -p`` PNG if it returns none)
=================  ==============================================================================

Failures are mapped by :mod:`drivers.u2.errors`. When the uiautomator2 server is gone (refused
stream, ``UiAutomation not connected``, a dropped answer) the driver restarts it once, explicitly,
and repeats the call only when repeating cannot do a thing twice (the request never reached the
server, or the call only reads); otherwise, or if that fails too, ``SessionLost``. Timeouts are
never repeated here.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

import uiautomator2.exceptions as u2e

from ...core.errors import (
    AppLaunchFailed,
    AppNotInstalled,
    ConfigError,
    DeviceError,
    DriverUnavailable,
    HarnessError,
    SessionLost,
    StepArgumentError,
    Unsupported,
)
from ...core.models import Platform, Scene
from ..base import coordinate, erase_count, gesture_seconds, location
from ..covers import system_dialog
from ..error_table import quote
from ..hierarchy import parse_source
from ..launching import am_extra_words, android_extras
from ..permissions import android_names, android_verb, check_permissions, requested_permissions
from .adb import HarnessAdbClient, HarnessAdbDevice
from .adb_errors import state_error
from .apps import AndroidApps
from .client import PRESS_KEYS, HarnessU2Device, U2Config
from .errors import CLIENT_ERRORS, U2Call, is_server_gone, map_error, unwrap
from .ime import INSTALL_HINT, AdbKeyboard
from .listing import discover_android, read_listing
from .state import AndroidState

__all__ = ["PRESS_KEYS", "U2Config", "U2Driver", "connect_spec", "discover_android"]

log = logging.getLogger(__name__)
T = TypeVar("T")

_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*")


class U2Driver(AndroidState):
    """The ``Driver`` protocol over uiautomator2 for one Android serial (see the module docstring)."""

    backend = "u2"
    animates = True  # a phone's screen moves on after an action: the loop waits for it to settle

    def __init__(
        self,
        serial: str,
        config: U2Config | None = None,
        *,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        if not isinstance(serial, str) or not serial.strip() or any(ord(c) < 32 for c in serial):
            raise ConfigError(f"an Android serial must be a non-empty string, got {serial!r}")
        self.serial = serial
        self.config = config or U2Config.from_options({})
        self._on_close = on_close
        self._lock = threading.RLock()
        self._adb: HarnessAdbDevice | None = None
        self._u2: HarnessU2Device | None = None
        self._apps = AndroidApps(
            serial,
            self._shell,
            launch_timeout=self.config.launch_timeout,
            launch_poll=self.config.launch_poll,
            dialog_title=self._dialog_title,
        )
        self._keyboard = AdbKeyboard(serial, self._shell)
        self._closed = False

    # --- the Driver protocol: identity ------------------------------------------------------

    @property
    def device_id(self) -> str:
        return self.serial

    @property
    def platform(self) -> Platform:
        return "android"

    @property
    def os_version(self) -> str | None:
        """The Android release the phone reported when the driver connected."""
        facts = self._apps.facts
        return facts.release if facts is not None else None

    @property
    def sdk(self) -> int | None:
        """The SDK level the phone reported when the driver connected (None: it did not say)."""
        facts = self._apps.facts
        return facts.sdk if facts is not None else None

    def __repr__(self) -> str:
        return f"U2Driver(serial={self.serial!r}, adb={self.config.address})"

    # --- connection -------------------------------------------------------------------------

    def connect(self) -> U2Driver:
        """Reach the phone through adb (it must be in the ``device`` state), make sure its
        uiautomator2 server answers, and learn its SDK level and HOME packages (which decide the
        foreground command)."""
        self._check_state()
        self._device()
        self._learn()
        return self

    def _check_state(self) -> None:
        """``host-serial:SERIAL:get-state``: adb refuses a phone it cannot reach (offline,
        unauthorized, no permissions … in its own words, mapped by the table) and names the state of
        one that is not running Android (recovery, sideload, bootloader …), which is
        ``DeviceOffline`` with the way out."""
        adb = self._adb_device()
        state = str(self._guard("connect", adb.get_state)).strip()
        if state != "device":
            raise state_error(self.serial, state)

    def _learn(self) -> None:
        with self._lock:
            if self._apps.facts is None:
                self._apps.learn()

    def _failed_call(self, operation: str, channel: str = "adb") -> U2Call:
        return U2Call(
            serial=self.serial,
            address=self.config.address,
            operation=operation,
            timeout=self.config.timeout,
            listing=self._listing,
            channel=channel,
            rpc=self._u2.last_rpc if channel == "rpc" and self._u2 is not None else None,
        )

    def _listing(self) -> str:
        client = HarnessAdbClient(self.config.adb_host, self.config.adb_port, timeout=self.config.timeout)
        return ", ".join(f"{i.serial} ({i.state})" for i in read_listing(client))

    def _mapped(self, operation: str, exc: BaseException, channel: str = "adb") -> BaseException:
        """The harness error for a client failure; anything else (a bug) is returned as it is."""
        if not isinstance(exc, CLIENT_ERRORS):
            return exc
        return map_error(exc, self._failed_call(operation, channel))

    def _guard(self, operation: str, call: Callable[[], T]) -> T:
        """Run ``call``, turning client failures into harness errors (chained)."""
        try:
            return call()
        except HarnessError:
            raise
        except Exception as exc:
            mapped = self._mapped(operation, exc)
            if mapped is exc:
                raise
            raise mapped from exc

    def _adb_device(self) -> HarnessAdbDevice:
        with self._lock:
            if self._closed:
                raise DeviceError(f"the U2Driver for {self.serial} is closed")
            if self._adb is None:
                client = HarnessAdbClient(
                    self.config.adb_host, self.config.adb_port, timeout=self.config.timeout
                )
                self._adb = client.device(serial=self.serial)
            return self._adb

    def _device(self) -> HarnessU2Device:
        with self._lock:
            adb = self._adb_device()
            if self._u2 is None:
                self._u2 = self._guard(
                    "connect",
                    lambda: HarnessU2Device(
                        adb, port=self.config.server_port, start_timeout=self.config.server_start_timeout
                    ),
                )
            return self._u2

    def _shell(self, operation: str, args: list[str] | str) -> str:
        adb = self._adb_device()
        return str(self._guard(operation, lambda: adb.shell(args, timeout=self.config.timeout)))

    # --- the uiautomator2 server: one explicit recovery -------------------------------------

    def _restart_server(self, operation: str, reason: BaseException) -> None:
        u2 = self._device()
        log.warning(
            "%s on %s: uiautomator2 server gone (%s); restarting it once", operation, self.serial, reason
        )
        try:
            u2.stop_uiautomator(wait=False)
            u2.start_uiautomator()
        except Exception as exc:
            mapped = self._mapped(f"{operation} (restarting the uiautomator2 server)", exc, "rpc")
            if mapped is exc or isinstance(mapped, SessionLost | DriverUnavailable):
                why = mapped.message if isinstance(mapped, HarnessError) else f"{type(exc).__name__}: {exc}"
                raise SessionLost(
                    f"{operation} on {self.serial}: the uiautomator2 server is gone and could not be "
                    f"restarted ({quote(why, 400)})",
                    hint=getattr(mapped, "hint", None)
                    or "check the phone (locked? out of memory?) or run `python -m uiautomator2 init`",
                ) from exc
            raise mapped from exc

    def _rpc(self, operation: str, call: Callable[[HarnessU2Device], T], *, repeatable: bool) -> T:
        """Run an RPC call; restart a gone server once and repeat when that cannot act twice.

        ``repeatable`` says the call only reads (a repeat after a dropped answer is harmless).
        A call whose request never reached the server (refused stream, ``UiAutomation not
        connected``) is repeated either way.
        """
        u2 = self._device()
        try:
            return call(u2)
        except HarnessError:
            raise
        except Exception as exc:
            inner = unwrap(exc)
            if not is_server_gone(inner):
                mapped = self._mapped(operation, exc, "rpc")
                if mapped is exc:
                    raise
                raise mapped from exc
            first = exc
        unanswered = isinstance(unwrap(first), u2e.UiAutomationNotConnectedError) or str(first).startswith(
            "Unable to connect to uiautomator2 server"
        )
        self._restart_server(operation, first)
        if not (unanswered or repeatable):
            raise SessionLost(
                f"{operation} on {self.serial}: the uiautomator2 server went away while handling the "
                "request; it was restarted, but the call is not repeated (it may have taken effect)",
                hint="observe the screen before acting again",
            ) from first
        log.info("%s on %s: repeating once after the server restart", operation, self.serial)
        try:
            return call(u2)
        except HarnessError:
            raise
        except Exception as exc:
            mapped = self._mapped(operation, exc, "rpc")
            if mapped is exc:
                raise
            if isinstance(mapped, SessionLost):
                raise SessionLost(
                    f"{operation} on {self.serial}: still failing after restarting the uiautomator2 server "
                    f"({quote(mapped.message, 400)})",
                    hint=mapped.hint,
                ) from exc
            raise mapped from exc

    # --- observe ----------------------------------------------------------------------------

    def observe(self) -> Scene:
        """The screen as one ``dumpWindowHierarchy`` RPC, parsed into a Scene."""
        started = time.perf_counter()
        xml = self._rpc("observe", lambda d: str(d.dump_hierarchy()), repeatable=True)
        if "<node" not in xml:
            raise DeviceError(
                f"observe on {self.serial}: uiautomator2 returned an empty hierarchy after its own retries",
                hint="the screen may be off, locked or secure (FLAG_SECURE), or changing; try again",
            )
        scene = parse_source(xml, platform="android", device_id=self.serial, backend=self.backend)
        return replace(scene, capture_duration=time.perf_counter() - started)

    # --- apps -------------------------------------------------------------------------------

    def _dialog_title(self) -> str | None:
        """The title of the system dialog on the screen (None: none, or the screen unreadable)."""
        try:
            found = system_dialog(self.observe())
        except HarnessError as exc:
            log.info("%s: could not read the system dialog's title: %s", self.serial, exc)
            return None
        return found[1] if found is not None else None

    @staticmethod
    def _valid_package(app_id: str) -> bool:
        return isinstance(app_id, str) and len(app_id) <= 255 and _PACKAGE.fullmatch(app_id) is not None

    def _installable(self, app_id: str) -> None:
        """``AppNotInstalled`` for an id that is no Android package name (nothing is sent)."""
        if not self._valid_package(app_id):
            raise AppNotInstalled(
                f"{app_id!r} is not an Android package name, so it is not installed on {self.serial}",
                app_id=str(app_id),
                hint="package names look like com.example.app",
            )

    def launch_app(self, app_id: str) -> None:
        """Start ``app_id`` (see :meth:`drivers.u2.apps.AndroidApps.launch`): two shell commands when
        it comes to the front at once."""
        self._installable(app_id)
        self._learn()
        self._apps.launch(app_id)

    def current_app(self) -> str | None:
        """One shell command: the package in front, None on the home screen."""
        self._learn()
        return self._apps.current_app()

    def terminate_app(self, app_id: str) -> None:
        if not self._valid_package(app_id):
            raise StepArgumentError(f"{app_id!r} is not an Android package name")
        adb = self._adb_device()
        self._guard("terminate_app", lambda: adb.app_stop(app_id))

    def clear_state(self, app_id: str) -> None:
        """``pm clear PACKAGE``, as uiautomator2's ``app_clear`` (adbutils ``app_clear``) sends it: the
        app is stopped and its data and caches deleted. pm answers ``Success``, else it failed."""
        if not self._valid_package(app_id):
            raise StepArgumentError(f"{app_id!r} is not an Android package name")
        output = self._shell("clear_state", ["pm", "clear", app_id])
        if "Success" not in output:
            raise AppNotInstalled(
                f"pm clear {app_id} failed on {self.serial}: {output.strip()[:200] or 'no answer'}",
                app_id=app_id,
                hint="list the installed packages with `adb shell pm list packages`",
            )

    kind = "device"  # adb reaches an emulator and a phone alike (amc.drivers.kinds)

    def set_permissions(self, app_id: str, permissions: Mapping[str, str]) -> None:
        """Maestro's ``setPermissions`` over adb (AndroidDriver.kt): ``all`` is every permission the
        app declares (``dumpsys package``'s requested permissions), a name what Maestro's table makes
        of it (:func:`drivers.permissions.android_names`); ``pm grant`` for allow, ``pm revoke``
        otherwise, one shell command each. What pm refuses (a normal permission, one the app does not
        declare) is passed over, as Maestro passes it over."""
        if not self._valid_package(app_id):
            raise StepArgumentError(f"{app_id!r} is not an Android package name")
        wanted = check_permissions(permissions)
        declared: list[str] | None = None
        for name, value in wanted.items():
            if name == "all":
                if declared is None:
                    declared = requested_permissions(
                        self._shell("set_permissions", ["dumpsys", "package", app_id])
                    )
                names: tuple[str, ...] = tuple(declared)
            else:
                names = android_names(name)
            for permission in names:
                answer = self._shell("set_permissions", ["pm", android_verb(value), app_id, permission])
                if "Exception" in answer:
                    log.info(
                        "pm %s %s %s: %s", android_verb(value), app_id, permission, answer.splitlines()[1:2]
                    )

    def launch_with(self, app_id: str, arguments: Mapping[str, object]) -> None:
        """``am start -W`` of the app's launcher activity with Maestro's typed intent extras
        (:func:`drivers.launching.android_extras`: ``--ez``/``--ei``/``--el``/``--ed``/``--es``),
        the command one string with each word quoted for the phone's shell; then the launch's
        own check that the app is in front. A running app is brought forward as it is (its task
        comes back; the extras reach a new process only: Maestro stops the app first)."""
        self._installable(app_id)
        words = tuple(am_extra_words(android_extras(arguments)))
        self._learn()
        self._apps.launch(app_id, words)

    def clear_keychain(self) -> None:
        """Android has no keychain: nothing to do (as in Maestro)."""

    def open_link(self, url: str, app_id: str | None = None) -> None:
        """``am start -a android.intent.action.VIEW -d URL`` (uiautomator2's ``open_url``), with
        ``-p PACKAGE`` when an app is named; am prints ``Error: …`` when no activity takes the link."""
        args = ["am", "start", "-a", "android.intent.action.VIEW", "-d", url]
        if app_id is not None:
            if not self._valid_package(app_id):
                raise StepArgumentError(f"{app_id!r} is not an Android package name")
            args += ["-p", app_id]
        output = self._shell("open_link", args)
        if "Error" in output:
            raise AppLaunchFailed(
                f"no activity on {self.serial} opens {url}: {output.strip()[:300]}",
                app_id=app_id,
                hint="check the link, and that the app that handles it is installed",
            )

    def hide_keyboard(self) -> None:
        """Hide the soft keyboard as appium-android-driver does (commands/keyboard.js hideKeyboard):
        only when ``dumpsys input_method`` says ``mInputShown=true``, with KEYCODE_ESCAPE (111), then
        KEYCODE_BACK (4) if it still shows. uiautomator2's own hide_keyboard needs its AdbKeyboard
        IME installed, so it is not used."""
        for keycode in ("111", "4"):
            if not self._keyboard_shown():
                return
            self._shell("hide_keyboard", ["input", "keyevent", keycode])

    def _keyboard_shown(self) -> bool:
        return "mInputShown=true" in self._shell("hide_keyboard", ["dumpsys", "input_method"])

    # --- input ------------------------------------------------------------------------------

    def _timeout(self) -> dict[str, float]:
        return {"http_timeout": self.config.timeout}

    def tap(self, x: int, y: int) -> None:
        px, py = coordinate(x, "x"), coordinate(y, "y")
        self._rpc("tap", lambda d: d.jsonrpc.click(px, py, **self._timeout()), repeatable=False)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        px, py = coordinate(x, "x"), coordinate(y, "y")
        millis = int(gesture_seconds(duration, "long_press duration", held=True) * 1000)
        self._rpc(
            "long_press",
            lambda d: d.jsonrpc.click(px, py, millis, **self._timeout()),
            repeatable=False,
        )

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        points = [coordinate(v, n) for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2))]
        travel = gesture_seconds(duration, "swipe duration", held=False)
        steps = max(2, int(travel * 200))  # uiautomator moves one step every 5 ms
        self._rpc(
            "swipe",
            lambda d: d.jsonrpc.swipe(*points, steps, **self._timeout()),
            repeatable=False,
        )

    def press(self, key: str) -> None:
        if key not in PRESS_KEYS:
            raise StepArgumentError(
                f"key {key!r} is not supported on Android; supported: {', '.join(sorted(PRESS_KEYS))}"
            )
        self._rpc("press", lambda d: d.jsonrpc.pressKey(key, **self._timeout()), repeatable=False)

    def erase_text(self, count: int) -> None:
        """``input keyevent 67 67 …``: KEYCODE_DEL ``count`` times in one shell command (``input``
        takes several key codes since Android 4.0), 500 at most per command."""
        left = erase_count(count)
        while left > 0:
            batch = min(left, 500)
            self._shell("erase_text", ["input", "keyevent", *(["67"] * batch)])
            left -= batch

    def set_location(self, latitude: float, longitude: float) -> None:
        location(latitude, longitude)
        raise Unsupported(
            f"set_location on {self.serial}: uiautomator2 cannot set the phone's position",
            hint="Android needs a mock-location app for that; "
            "run the flow over Appium or on the simulated device",
        )

    def type_text(self, text: str) -> None:
        """Type into the focused field through uiautomator2's input method, AdbKeyboard: one
        ``am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text BASE64`` (UTF-8, so any script and
        emoji), whose answer says whether a field took it (see :mod:`drivers.u2.ime`). The first
        time AdbKeyboard is not the phone's current input method the driver makes it current
        (``ime enable``, ``settings get``, ``ime set``) and puts the previous one back on close.
        A phone without AdbKeyboard (found out once per driver) is typed on through the clipboard,
        as uiautomator2 does without it: ``setClipboard``, ``getClipboard`` to check it,
        ``pasteClipboard``."""
        if not isinstance(text, str):
            raise StepArgumentError(f"type_text needs a string, got {type(text).__name__}")
        if not text:
            return
        if not self._keyboard.type_text(text):
            self._paste(text)

    def _paste(self, text: str) -> None:
        self._rpc(
            "type_text", lambda d: d.jsonrpc.setClipboard(None, text, **self._timeout()), repeatable=True
        )
        held = self._rpc("type_text", lambda d: d.jsonrpc.getClipboard(**self._timeout()), repeatable=True)
        if held != text:
            raise DeviceError(
                f"type_text on {self.serial}: the phone did not take the text onto its clipboard",
                hint="some ROMs block clipboard writes from the shell; "
                + INSTALL_HINT.format(serial=self.serial),
            )
        self._rpc("type_text", lambda d: d.jsonrpc.pasteClipboard(**self._timeout()), repeatable=False)

    def screenshot(self) -> bytes:
        data = self._rpc(
            "screenshot", lambda d: d.jsonrpc.takeScreenshot(1, 80, **self._timeout()), repeatable=True
        )
        if data:
            try:
                return base64.b64decode(str(data), validate=True)
            except (binascii.Error, ValueError) as exc:
                raise DeviceError(
                    f"screenshot on {self.serial}: the uiautomator2 server sent an image that is not base64"
                ) from exc
        adb = self._adb_device()
        png = self._guard("screenshot", lambda: adb.shell(["screencap", "-p"], encoding=None))
        return bytes(png)

    # --- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Put back the input method ``type_text`` replaced, forget the connection, and stop a
        uiautomator2 server this driver started (without waiting)."""
        with self._lock:
            if self._closed:
                return
            self._keyboard.restore()
            self._closed = True
            u2, self._u2 = self._u2, None
            recording, self._recording = self._recording, None
        if recording is not None:  # a recording no stop_recording ended: its stream goes too
            recording.close()
        try:
            if u2 is not None:
                atexit.unregister(u2.stop_uiautomator)
                u2.stop_uiautomator(wait=False)
        finally:
            if self._on_close is not None:
                self._on_close()


def connect_spec(target: str, options: Mapping[str, Any]) -> U2Driver:
    """``android:SERIAL``: a connected :class:`U2Driver`; options are :class:`U2Config` fields."""
    environ = options.get("environ")
    env = environ if isinstance(environ, Mapping) else None
    config = U2Config.from_options(options, env, also=frozenset({"environ"}))
    return U2Driver(target, config).connect()
