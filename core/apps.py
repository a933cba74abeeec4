"""Well-known app IDs the harness treats specially."""

from __future__ import annotations

__all__ = ["HOME_SCREEN_APPS", "SPRINGBOARD", "is_home_screen"]

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


def is_home_screen(app_id: str | None) -> bool:
    return app_id is not None and app_id in HOME_SCREEN_APPS
