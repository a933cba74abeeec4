"""Well-known app IDs the harness treats specially: home screens, system UI, on-screen keyboards.

These are facts about the platforms, used by the parsers (which window is the app in front) and by
the semantic layer (is a keyboard up, is the home screen showing); the heuristics that use them
live with their users.
"""

from __future__ import annotations

__all__ = [
    "ANDROID_ANR_IDS",
    "ANDROID_ANR_WORDS",
    "ANDROID_ERROR_DIALOG_IDS",
    "ANDROID_KEYGUARD_ID_PREFIX",
    "ANDROID_SHADE_IDS",
    "ANDROID_SYSTEMUI",
    "ANDROID_SYSTEM_SERVER",
    "COVER_KINDS",
    "COVER_NAMES",
    "HOME_SCREEN_APPS",
    "IME_PACKAGES",
    "PERMISSION_DIALOG_PACKAGES",
    "SPRINGBOARD",
    "SYSTEMUI_COVER_WINDOWS",
    "SYSTEM_DIALOG_KINDS",
    "SYSTEM_DIALOG_WINDOWS",
    "cover_name",
    "is_home_screen",
    "is_ime_package",
    "is_permission_dialog",
    "says_not_responding",
    "system_dialog_window",
]

# The iOS home screen's bundle id (what WebDriverAgent and Appium report in front on the home screen).
SPRINGBOARD = "com.apple.springboard"

# Launchers and SpringBoard: when one of these is in front, the device shows its home screen.
HOME_SCREEN_APPS: frozenset[str] = frozenset(
    {
        SPRINGBOARD,
        "com.android.launcher",
        "com.android.launcher2",
        "com.android.launcher3",
        "com.google.android.apps.nexuslauncher",
        "com.sec.android.app.launcher",
        "com.miui.home",
        "com.huawei.android.launcher",
        "com.oppo.launcher",
        "com.bbk.launcher2",
        "net.oneplus.launcher",
        "com.motorola.launcher3",
        "com.teslacoilsw.launcher",
        "com.microsoft.launcher",
    }
)

# Android's status bar and notification shade: a window of it is never the app in front.
ANDROID_SYSTEMUI = "com.android.systemui"
# The system server's package: its windows (the home app chooser, ResolverActivity; the system
# dialogs) are the system's, never an app the user launched.
ANDROID_SYSTEM_SERVER = "android"

# On-screen keyboard (input method) packages met in the field; any package whose name mentions
# "inputmethod" or "keyboard" counts too.
IME_PACKAGES: frozenset[str] = frozenset(
    {
        "com.google.android.inputmethod.latin",
        "com.android.inputmethod.latin",
        "com.samsung.android.honeyboard",
        "com.touchtype.swiftkey",
        "com.baidu.input",
        "com.baidu.input_mi",
        "com.sohu.inputmethod.sogou",
        "com.iflytek.inputmethod",
        # uiautomator2's app-uiautomator.apk, whose AdbKeyboard input method the harness types
        # through: its input view is dumped as a window of this package at the bottom of the
        # screen (sim/layout_android.py cites the real dumps). The same package holds the ATX
        # app's own activity, which a user of the harness does not drive.
        "com.github.uiautomator",
    }
)


# Android's runtime-permission prompt runs in one of these packages, in the task of the app that
# asked: GMS phones and emulators (Android 10+) use Google's permission controller, AOSP builds the
# platform one, Android 6-9 the package installer (tests/fixtures/real: the A14 emulator window
# dump, uiautomator dumps of the prompt's buttons; Barista PR #312 for the move in Android 10).
PERMISSION_DIALOG_PACKAGES: frozenset[str] = frozenset(
    {
        "com.google.android.permissioncontroller",
        "com.android.permissioncontroller",
        "com.android.packageinstaller",
        "com.google.android.packageinstaller",
        # MIUI / HyperOS's own prompt (its GrantPermissionsActivity in com.lbe.security.miui:
        # semantic/cover_kinds.py cites the rules and scripts written against Xiaomi phones)
        "com.lbe.security.miui",
    }
)


def is_permission_dialog(package: str | None) -> bool:
    """True for the package that shows Android's runtime-permission prompt over an app."""
    return package is not None and package in PERMISSION_DIALOG_PACKAGES


def is_home_screen(app_id: str | None) -> bool:
    return app_id is not None and app_id in HOME_SCREEN_APPS


def is_ime_package(package: str | None) -> bool:
    """True for an Android input-method (on-screen keyboard) package."""
    if not package:
        return False
    low = package.lower()
    return package in IME_PACKAGES or "inputmethod" in low or "keyboard" in low


# --- covers: what can be over the app --------------------------------------------------------
#
# The kinds of cover the harness tells apart (``semantic.screen.Cover.kind``, the world model's
# overlay): the lock screen, the pulled-down notification shade (iOS: Notification Center or
# Control Center), Android's system dialogs ("X isn't responding": ``anr``; "X keeps stopping" or
# "has stopped": ``crash``), the runtime-permission prompt (the platform's or an OEM's), the
# prompts to let an app run in the background (``battery``) or start by itself (``autostart``), the
# system's app chooser (``chooser``: "Open with", "Select a Home app"), iOS's SpringBoard alerts
# (``notifications``, ``paste``, ``tracking``; location, camera … are ``permission``), and an app's
# own alert or dialog. Which window is which: semantic.cover_kinds. A cover with no title of its
# own is named by COVER_NAMES in the overlay.
COVER_KINDS: tuple[str, ...] = (
    "keyguard",
    "shade",
    "anr",
    "crash",
    "permission",
    "battery",
    "autostart",
    "chooser",
    "notifications",
    "paste",
    "tracking",
    "alert",
)
# The kinds that are a system dialog about a process (Android's ANR and crash dialogs).
SYSTEM_DIALOG_KINDS: frozenset[str] = frozenset({"anr", "crash"})
COVER_NAMES: dict[str, str] = {"keyguard": "Lock screen", "shade": "Notification shade"}
# iOS's own names: its shade is Notification Center or Control Center (the driver cannot tell which).
_IOS_COVER_NAMES: dict[str, str] = {"shade": "Notification Center or Control Center"}


def cover_name(kind: str | None, platform: str) -> str | None:
    """What the world model calls a cover that has no title of its own (None: it has one)."""
    if kind is None:
        return None
    return (_IOS_COVER_NAMES.get(kind) if platform == "ios" else None) or COVER_NAMES.get(kind)


# SystemUI's windows that take the focus from the app under them, as ``dumpsys window`` titles
# them (``mCurrentFocus=Window{h u0 TITLE}``): the lock screen and the shade live in
# ``NotificationShade`` from Android 11 (AOSP's TYPE_NOTIFICATION_SHADE; a real Android 14 dump's
# ``mExpandedPanel=Window{… NotificationShade}``, an API 34 emulator with the shade expanded, kaeawc/
# auto-mobile#6078), in ``StatusBar`` before (calabash/calabash-android#815: a Galaxy S6 "returns
# StatusBar as the currently focused" when locked; appium/appium-adb#564), and Android 4's
# separate ``Keyguard`` window (appium-adb's ``isCurrentFocusOnKeyguard``, /mCurrentFocus.+Keyguard/).
# Which of the lock screen or the shade it is, the window's title does not say.
SYSTEMUI_COVER_WINDOWS: frozenset[str] = frozenset({"NotificationShade", "StatusBar", "Keyguard"})

# The system's dialogs over an app, as ``dumpsys window`` titles their windows: AOSP's
# AppNotRespondingDialog and AppErrorDialog set "Application Not Responding: " / "Application Error: "
# and the process name (real focus lines: tests/fixtures/real/android/emulator-dumpsys-window-*-anr-*).
SYSTEM_DIALOG_WINDOWS: tuple[tuple[str, str], ...] = (
    ("Application Not Responding: ", "not_responding"),
    ("Application Error: ", "error"),
)

# Resource ids (the part after ``:id/``) of the covers in a UI dump. The lock screen's views are
# SystemUI's ``keyguard_*`` (real dumps: MIUI's keyguard_message_area_container, Samsung's
# keyguard_indication_text "Swipe to open" and clockpack keyguard_status_view, keyguard_status_bar and
# keyguard_bottom_area; tests/fixtures/real/android/*keyguard*); the expanded shade's SystemUI's
# notification panel and its notification list (notification_panel, notification_stack_scroller)
# and the quick settings panel (quick_settings_panel, as a uiautomator2 script looks for it, find_string
# id 16670063586). The system dialogs' buttons are AOSP's ``aerr_*`` (core/res/res/layout/
# app_anr_dialog.xml: aerr_close, aerr_wait, aerr_report; app_error_dialog.xml: aerr_restart,
# aerr_reset, aerr_report, aerr_close, aerr_mute), in package ``android``.
ANDROID_KEYGUARD_ID_PREFIX = "keyguard_"
ANDROID_SHADE_IDS: frozenset[str] = frozenset(
    {"notification_panel", "notification_stack_scroller", "quick_settings_panel"}
)
ANDROID_ERROR_DIALOG_IDS: frozenset[str] = frozenset(
    {"aerr_close", "aerr_wait", "aerr_report", "aerr_restart", "aerr_reset", "aerr_mute", "aerr_app_info"}
)


# The ANR dialog's own button (app_anr_dialog.xml's aerr_wait, which the crash dialog has not) and
# the words of its title ("%1$s isn't responding"; Chinese builds: "没有响应" / "无响应"), which tell
# it from the crash dialog ("%1$s keeps stopping", before Android 9 "%1$s has stopped") in a dump
# that kept only the title and aerr_close (tests/fixtures/real/android/*isnt-responding*).
ANDROID_ANR_IDS: frozenset[str] = frozenset({"aerr_wait"})
ANDROID_ANR_WORDS: tuple[str, ...] = (
    "isn't responding",
    "isn\u2019t responding",
    "is not responding",
    "没有响应",
    "无响应",
)


def says_not_responding(text: str) -> bool:
    """Whether ``text`` (a dialog's title or texts) is an ANR dialog's title."""
    low = text.casefold()
    return any(word in low for word in ANDROID_ANR_WORDS)


def system_dialog_window(title: str) -> tuple[str, str] | None:
    """(kind, process) of a system dialog's window title (``Application Not Responding: pkg``), or None."""
    for prefix, kind in SYSTEM_DIALOG_WINDOWS:
        if title.startswith(prefix):
            return kind, title[len(prefix) :].strip()
    return None
