"""Well-known app IDs the harness treats specially: home screens, system UI, on-screen keyboards.

These are facts about the platforms, used by the parsers (which window is the app in front) and by
the semantic layer (is a keyboard up, is the home screen showing); the heuristics that use them
live with their users.
"""

from __future__ import annotations

__all__ = [
    "ANDROID_SYSTEMUI",
    "HOME_SCREEN_APPS",
    "IME_PACKAGES",
    "PERMISSION_DIALOG_PACKAGES",
    "SPRINGBOARD",
    "is_home_screen",
    "is_ime_package",
    "is_permission_dialog",
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
