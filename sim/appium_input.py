"""W3C actions and ``mobile:`` executes, acted out on the simulated device for the Appium face.

:func:`perform_actions` turns a W3C actions body into taps, long presses, swipes and typing;
:func:`run_mobile` answers the ``mobile:`` executes of the UiAutomator2 (Android) and XCUITest
(iOS) drivers. Both work on a :class:`Phone` (the face's state) and raise :class:`W3CError`,
which the face answers in W3C JSON with the HTTP status Appium uses.
"""

from __future__ import annotations

import math
import shlex
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from lxml import etree

from ..core.apps import SPRINGBOARD
from ..core.errors import AppError, AppLaunchFailed, AppNotInstalled
from ..core.models import Platform
from .adb_shell import SYSTEM_PACKAGES, AndroidShell
from .appium_errors import W3CError, invalid_argument
from .appium_permissions import PERMISSION_COMMANDS
from .appium_state import STATE_MOBILE
from .device import SimDevice
from .nodes import SimNode
from .profiles import IosProfile

__all__ = [
    "ELEMENT_KEY",
    "LONG_PRESS_MS",
    "MOBILE_COMMANDS",
    "TAP_SLOP",
    "Gesture",
    "HangRequest",
    "Phone",
    "W3CError",
    "execute_route",
    "invalid_argument",
    "perform_actions",
    "run_mobile",
]

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
ANDROID_KEYCODES: dict[int, str] = {
    3: "home",
    4: "back",
    24: "volume_up",
    25: "volume_down",
    26: "power",
    66: "enter",
    82: "menu",
    187: "recent",
}
IOS_BUTTONS: dict[str, str] = {"home": "home", "volumeup": "volume_up", "volumedown": "volume_down"}
TAP_SLOP = 10.0  # a pointer that moved less than this between down and up tapped
LONG_PRESS_MS = 500.0  # held at least this long without moving: a long press


@dataclass(frozen=True)
class Gesture:
    """One gesture the face performed from W3C actions: what a test can check crossed the wire."""

    kind: str  # "tap", "long_press" or "swipe"
    start: tuple[float, float]
    end: tuple[float, float]
    duration_ms: float


class Phone(Protocol):
    """What actions and executes need from the face's state."""

    device: SimDevice
    platform: Platform

    def snapshot(self) -> tuple[SimNode, etree._Element]: ...

    def record(self, gesture: Gesture) -> None: ...

    def type_keys(self, text: str) -> None: ...


# --- W3C actions ------------------------------------------------------------------------------


def _number(action: Mapping[str, Any], key: str, default: float | None = None) -> float:
    value = action.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid_argument(f"action {action.get('type')!r} needs a finite number '{key}', got {value!r}")
    return float(value)


def _pointer(phone: Phone, actions: list[Any], element_center: Callable[[str], tuple[float, float]]) -> None:
    x = y = 0.0
    down: tuple[float, float] | None = None
    held = 0.0
    for action in actions:
        if not isinstance(action, dict):
            raise invalid_argument("each action must be an object")
        kind = action.get("type")
        if kind == "pointerMove":
            dx, dy = _number(action, "x", 0), _number(action, "y", 0)
            origin = action.get("origin", "viewport")
            if origin == "pointer":
                x, y = x + dx, y + dy
            elif isinstance(origin, dict) and isinstance(origin.get(ELEMENT_KEY), str):
                cx, cy = element_center(origin[ELEMENT_KEY])
                x, y = cx + dx, cy + dy
            elif origin == "viewport":
                x, y = dx, dy
            else:
                raise invalid_argument(f"unknown pointerMove origin {origin!r}")
            if down is not None:
                held += _number(action, "duration", 0)
        elif kind == "pointerDown":
            down, held = (x, y), 0.0
        elif kind == "pause":
            if down is not None:
                held += _number(action, "duration", 0)
        elif kind == "pointerUp":
            if down is None:
                continue
            moved = math.hypot(x - down[0], y - down[1])
            if moved < TAP_SLOP:
                phone.record(Gesture("long_press" if held >= LONG_PRESS_MS else "tap", down, down, held))
                phone.device.tap(*down)
            else:
                phone.record(Gesture("swipe", down, (x, y), held))
                phone.device.swipe(down[0], down[1], x, y)
            down = None
        elif kind != "pointerCancel":
            raise invalid_argument(f"unknown pointer action {kind!r}")


def perform_actions(phone: Phone, body: Any, element_center: Callable[[str], tuple[float, float]]) -> None:
    """Act out a W3C ``POST /actions`` body on the phone.

    A pointer that goes down and up within :data:`TAP_SLOP` is a tap (a long press when held
    :data:`LONG_PRESS_MS` or more); one that moved further is a swipe from down to up. Key
    sources type their ``keyDown`` values. ``element_center`` resolves an element origin.
    """
    sources = body.get("actions") if isinstance(body, dict) else None
    if not isinstance(sources, list):
        raise invalid_argument("'actions' must be a list of input sources")
    for source in sources:
        if not isinstance(source, dict) or not isinstance(source.get("actions"), list):
            raise invalid_argument("each input source needs an 'actions' list")
        kind = source.get("type")
        if kind == "pointer":
            _pointer(phone, source["actions"], element_center)
        elif kind == "key":
            typed = "".join(
                a["value"]
                for a in source["actions"]
                if isinstance(a, dict) and a.get("type") == "keyDown" and isinstance(a.get("value"), str)
            )
            phone.type_keys(typed)
        elif kind not in ("none", "wheel"):
            raise invalid_argument(f"unknown input source type {kind!r}")


# --- mobile: executes -------------------------------------------------------------------------


def _app_id(phone: Phone, args: Mapping[str, Any]) -> str:
    key = "appId" if phone.platform == "android" else "bundleId"
    value = args.get(key)
    if not isinstance(value, str) or not value:
        raise invalid_argument(f"'{key}' is required and must be a non-empty string")
    return value


_UNKNOWN = "An unknown server-side error occurred while processing the command. Original error: "


class HangRequest(Exception):
    """The command never answers (the face holds the connection until the client gives up)."""


def _activate_app(phone: Phone, args: Mapping[str, Any]) -> Any:
    """``mobile: activateApp``. UiAutomator2 resolves the launchable activity first: a missing app
    (or one with no launcher activity) fails as ``tests/fixtures/real/appium/uia2-activateApp-…``
    shows. XCUITest passes the call to WDA, which answers by its generation: no answer before
    5.1.1, from 5.1.4 an ``invalid argument`` with FrontBoard's NSError, which Appium relays
    (``xcuitest-create-session-FBSOpenApplicationErrorDomain-not-found.txt``)."""
    app_id = _app_id(phone, args)
    try:
        phone.device.launch(app_id)
    except AppLaunchFailed as exc:  # iOS on a locked phone: FrontBoard's refusal, relayed as WDA's
        raise W3CError(400, "invalid argument", exc.message) from exc
    except AppNotInstalled as exc:
        if phone.platform == "android":
            message = (
                f"Unable to resolve the launchable activity of '{app_id}'. Original error: No activity found"
            )
            raise W3CError(500, "unknown error", _UNKNOWN + message) from exc
        profile = phone.device.profile
        if isinstance(profile, IosProfile) and profile.hangs_on_missing_app:
            raise HangRequest(app_id) from exc
        raise W3CError(
            400,
            "invalid argument",
            f'Error Domain=FBSOpenApplicationServiceErrorDomain Code=4 "The request to open "{app_id}" '
            f'failed." UserInfo={{BSErrorCodeDescription=InvalidRequest, NSUnderlyingError=0x280c2d1a0 '
            f'{{Error Domain=FBSOpenApplicationErrorDomain Code=4 "Application info provider '
            f'(FBSApplicationLibrary) returned nil for "{app_id}"" '
            f"UserInfo={{BSErrorCodeDescription=NotFound}}}}}}",
        ) from exc
    if phone.platform == "ios":  # WDA's launch returns once the app is in front (XCTest waits)
        time.sleep(min(phone.device.transition_left(), 5.0))
    return None


def _start_activity(phone: Phone, args: Mapping[str, Any]) -> Any:
    """``mobile: startActivity`` (appium-android-driver's mobileStartActivity): ``am start-activity``
    with ``-W`` for ``wait`` and the intent from ``action``, ``categories``, ``package`` and
    ``component``, run on the phone; the answer is am's output. The simulated shell prints it
    (:meth:`sim.adb_shell.AndroidShell._start_main`)."""
    command = ["am", "start-activity"]
    if args.get("wait"):
        command.append("-W")
    if isinstance(args.get("action"), str):
        command += ["-a", args["action"]]
    categories = args.get("categories")
    for category in [categories] if isinstance(categories, str) else (categories or []):
        command += ["-c", str(category)]
    if isinstance(args.get("component"), str):
        command += ["-n", args["component"]]
    if isinstance(args.get("package"), str):
        command += ["-p", args["package"]]
    return AndroidShell(phone.device).run(shlex.join(command)).output.decode()


def _terminate_app(phone: Phone, args: Mapping[str, Any]) -> Any:
    return phone.device.terminate(_app_id(phone, args))


def _query_app_state(phone: Phone, args: Mapping[str, Any]) -> Any:
    """``mobile: queryAppState``. UiAutomator2 (appium-android-driver): 0 not installed, 1 no process,
    4 when the window manager's focus lines name the package, else 3 (so 3 under a permission
    prompt, and never 2). XCUITest: WDA's ``/wda/apps/state``, 1 for an app that is not installed."""
    app_id = _app_id(phone, args)
    device = phone.device
    if phone.platform == "ios":
        return device.app_state(app_id)
    if not device.is_installed(app_id) and app_id not in SYSTEM_PACKAGES:
        return 0
    if app_id not in device.running_apps() and app_id != device.launcher:
        return 1
    return 4 if device.foreground() == app_id and device.system_prompt() is None else 3


def _front(phone: Phone) -> str:
    """The app the server reports in front: the permission controller (Android) or SpringBoard
    (iOS) while a permission prompt covers the app; SpringBoard while the lock screen or a panel
    covers an iPhone (WDA's active app). UiAutomator2 keeps naming the app under Android's lock
    screen, shade or system dialog: appium-adb's getFocusedPackageAndActivity prefers
    ``mFocusedApp``, which names it there (``tests/fixtures/real/android/pixel7-…``)."""
    prompt = phone.device.system_prompt()
    if phone.platform == "ios" and (prompt is not None or phone.device.screen_cover() is not None):
        return SPRINGBOARD
    drawn = phone.device.prompt_drawn()
    if phone.platform == "android" and phone.device.system.home_asking and phone.device.current_run() is None:
        return "android"  # the home chooser (ResolverActivity) is focused
    if prompt is None or drawn is None:
        return phone.device.foreground()
    return drawn.package


def _active_app_info(phone: Phone, args: Mapping[str, Any]) -> Any:
    tree, _ = phone.snapshot()
    bundle = _front(phone)
    return {
        "pid": 1000 + zlib.crc32(bundle.encode()) % 50000,
        "bundleId": bundle,
        "name": tree.ident or "",
        "processArguments": {"args": [], "env": {}},
    }


def _current_package(phone: Phone, args: Mapping[str, Any]) -> Any:
    return _front(phone)


def _press_key(phone: Phone, args: Mapping[str, Any]) -> Any:
    keycode = args.get("keycode")
    if isinstance(keycode, bool) or not isinstance(keycode, int):
        raise invalid_argument("'keycode' is required and must be an integer")
    name = ANDROID_KEYCODES.get(keycode)
    if name is not None:
        phone.device.press(name)
    return None


def _press_button(phone: Phone, args: Mapping[str, Any]) -> Any:
    name = args.get("name")
    key = IOS_BUTTONS.get(name.lower()) if isinstance(name, str) else None
    if key is None:
        raise invalid_argument(f"button name {name!r} is unknown; supported: {', '.join(IOS_BUTTONS)}")
    phone.device.press(key)
    return None


# The extensions below are documented by appium-uiautomator2-driver (docs/android-mobile-gestures
# and its README's "mobile: deepLink", "mobile: clearApp", "mobile: hideKeyboard") and by
# appium-xcuitest-driver (docs/reference/execute-methods: deepLink with url and bundleId, clearApp
# "Simulator only", hideKeyboard); the replies' shapes here are ours where no capture was found.
def _hide_keyboard(phone: Phone, options: Mapping[str, Any]) -> Any:
    # UiAutomator2 answers whether it hid one (false: no keyboard was shown); XCUITest answers null.
    hidden = phone.device.hide_keyboard()
    return hidden if phone.platform == "android" else None


def _deep_link(phone: Phone, options: Mapping[str, Any]) -> Any:
    url = options.get("url")
    if not isinstance(url, str) or not url:
        raise invalid_argument("'url' is required")
    app = options.get("package" if phone.platform == "android" else "bundleId")
    try:
        phone.device.open_link(url, app if isinstance(app, str) else None)
    except AppError as exc:
        # UiAutomator2 relays am's "unable to resolve Intent"; XCUITest the reason iOS gave.
        raise W3CError(500, "unknown error", f"Cannot open the url '{url}': {exc.message}") from exc
    return None


def _clear_app(phone: Phone, options: Mapping[str, Any]) -> Any:
    app = options.get("appId" if phone.platform == "android" else "bundleId")
    if not isinstance(app, str) or not phone.device.is_installed(app):
        raise W3CError(500, "unknown error", f"The application '{app}' is not installed on the device")
    if phone.platform == "ios" and not getattr(phone.device.profile, "simulator", False):
        # appium-xcuitest-driver's mobileClearApp on a real device (the simulated iPhone playing
        # one, kind=device): NotImplementedError, W3C 'unknown method' (HTTP 405), this message.
        raise W3CError(
            405,
            "unknown method",
            "This extension is only supported on simulators. The only known way to clear app data "
            "on real devices would be to uninstall the app then perform a fresh install of it.",
        )
    phone.device.clear_state(app)
    return True


def _is_locked(phone: Phone, args: Mapping[str, Any]) -> Any:
    """``mobile: isLocked``: UiAutomator2 asks appium-adb's isScreenLocked (dumpsys window and
    power), XCUITest WebDriverAgent's ``/wda/locked`` (appium-xcuitest-driver lib/commands/lock.ts)."""
    return phone.device.locked


def _lock(phone: Phone, args: Mapping[str, Any]) -> Any:
    """``mobile: lock``: a positive ``seconds`` locks for that long, then unlocks (the call blocks,
    as Appium-Python-Client's ``lock`` says); bounded here to a minute."""
    seconds = args.get("seconds") or 0
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds <= 60:
        raise invalid_argument(f"'seconds' must be a number from 0 to 60, got {seconds!r}")
    phone.device.lock()
    if seconds > 0:
        time.sleep(seconds)
        phone.device.unlock()
    return None


def _unlock(phone: Phone, args: Mapping[str, Any]) -> Any:
    phone.device.unlock()
    return None


MOBILE_COMMANDS: dict[str, tuple[frozenset[str], Callable[[Phone, Mapping[str, Any]], Any]]] = {
    "mobile: hideKeyboard": (frozenset({"android", "ios"}), _hide_keyboard),
    "mobile: deepLink": (frozenset({"android", "ios"}), _deep_link),
    "mobile: clearApp": (frozenset({"android", "ios"}), _clear_app),
    "mobile: activateApp": (frozenset({"android", "ios"}), _activate_app),
    "mobile: startActivity": (frozenset({"android"}), _start_activity),
    "mobile: terminateApp": (frozenset({"android", "ios"}), _terminate_app),
    "mobile: queryAppState": (frozenset({"android", "ios"}), _query_app_state),
    "mobile: activeAppInfo": (frozenset({"ios"}), _active_app_info),
    "mobile: getCurrentPackage": (frozenset({"android"}), _current_package),
    "mobile: pressKey": (frozenset({"android"}), _press_key),
    "mobile: pressButton": (frozenset({"ios"}), _press_button),
    "mobile: isLocked": (frozenset({"android", "ios"}), _is_locked),
    "mobile: lock": (frozenset({"android", "ios"}), _lock),
    "mobile: unlock": (frozenset({"android", "ios"}), _unlock),
    **STATE_MOBILE,  # airplane mode and the appearance (sim.appium_state)
}
MOBILE_COMMANDS.update(PERMISSION_COMMANDS)  # permissions, the keychain (sim.appium_permissions)


def run_mobile(phone: Phone, body: Any) -> Any:
    """Answer a ``POST /execute/sync`` body: the ``mobile:`` commands the platform's driver has.

    Any other script is ``unsupported operation``, as an Appium driver answers it.
    """
    script = body.get("script") if isinstance(body, dict) else None
    args = body.get("args", []) if isinstance(body, dict) else None
    if not isinstance(script, str) or not isinstance(args, list):
        raise invalid_argument("'script' must be a string and 'args' a list")
    entry = MOBILE_COMMANDS.get(script.strip())
    if entry is None or phone.platform not in entry[0]:
        available = ", ".join(
            name for name, (platforms, _) in MOBILE_COMMANDS.items() if phone.platform in platforms
        )
        raise W3CError(
            500,
            "unsupported operation",
            f"Unsupported execute method '{script}'. Execute methods available in the current driver "
            f"version are: {available}",
        )
    options = args[0] if args else {}
    if not isinstance(options, dict):
        raise invalid_argument(f"the argument of '{script}' must be an object")
    return entry[1](phone, options)


def execute_route(body: Any) -> str:
    """The route name an execute request is counted under: the script (``"mobile: activateApp"``)."""
    script = body.get("script") if isinstance(body, dict) else None
    return script.strip() if isinstance(script, str) and script.strip() else "execute"
