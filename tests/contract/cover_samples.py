"""Real outputs of phones with something over the app: the lock screen, the notification shade, a
system dialog (files in ``tests/fixtures/real``, sources in its PROVENANCE.md).

Each group lists its samples in one fixed order, and every third of them (the second, fifth …:
``index % 3 == 1``) was set aside before the rule it tests was written: :data:`HELD_OUT` names
them. ``tests/contract/test_cover_samples.py`` runs each rule on both parts and reports the
numbers. Expectations are what the output says, read by hand:

- ``FOCUS``: a ``dumpsys window`` output (or a grep of it) -> the cover its focused window is
  (``systemui`` for the lock screen or shade windows, ``not_responding`` / ``error`` for a system
  dialog, None) and the app whose activity has the focus behind it (None: none named).
- ``KEYGUARD``: a ``dumpsys window`` output -> whether it says the keyguard is up or the screen is
  off (True), that neither is (False), or nothing about it (None).
- ``TREE``: a uiautomator dump -> the cover the semantic layer names (``keyguard``, ``shade``,
  ``system_dialog``) and the overlay name the world model records.
- ``LAUNCH``: iOS's answer to a launch on a locked phone -> the refusal kind of
  :func:`amc.drivers.frontboard.launch_refusal`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FOCUS", "HELD_OUT", "KEYGUARD", "LAUNCH", "TREE", "Sample", "split"]


@dataclass(frozen=True)
class Sample:
    """One real output and what it says (``expected`` depends on the group, see the module)."""

    path: str  # under tests/fixtures/real
    expected: object


FOCUS: tuple[Sample, ...] = (
    Sample(
        "android/honor-alt-nx1-a15-dumpsys-window-screen-off-notificationshade-focusedapp.txt",
        ("systemui", "com.android.settings"),
    ),
    Sample(
        "android/pixel7-dumpsys-window-notificationshade-focusedapp-behind.txt",
        ("systemui", "com.flow.mobile.debug"),
    ),
    Sample("android/unknown-dumpsys-window-grep-mCurrentFocus-notificationshade.txt", ("systemui", None)),
    Sample("android/emulator-api34-shade-expanded-mCurrentFocus-notificationshade.txt", ("systemui", None)),
    Sample("android/unknown-a4-dumpsys-window-statusbar-focus-appwindowtoken-typo.txt", ("systemui", None)),
    Sample(
        "android/emulator-dumpsys-window-launcher-anr-over-devmenu.txt", ("not_responding", "com.monyvi.app")
    ),
    Sample("android/emulator-dumpsys-window-last-anr-section-then-app-focus.txt", (None, "com.monyvi.app")),
    Sample("android/emulator-dumpsys-window-grep-anr-wellbeing.txt", ("not_responding", None)),
    Sample("android/emulator-dumpsys-window-grep-anr-system.txt", ("not_responding", None)),
    Sample(
        "android/unknown-a14-dumpsys-activity-activities-display-policy-isKeyguardShowing-false.txt",
        (None, "com.android.launcher3"),
    ),
)

KEYGUARD: tuple[Sample, ...] = (
    Sample("android/honor-alt-nx1-a15-dumpsys-window-screen-off-notificationshade-focusedapp.txt", True),
    Sample(
        "android/unknown-a14-dumpsys-activity-activities-display-policy-isKeyguardShowing-false.txt", False
    ),
    Sample("android/gapid-a10-dumpsys-window-screen-on-locked-stub.txt", True),
    Sample("android/gapid-a10-dumpsys-window-screen-on-unlocked-stub.txt", False),
    Sample("android/gapid-a10-dumpsys-window-screen-off-locked-stub.txt", True),
    Sample("android/appium-adb-a7-dumpsys-window-mShowingLockscreen-true-line.txt", True),
    Sample("android/appium-adb-dumpsys-window-mShowingLockscreen-false-line.txt", False),
    Sample("android/appium-adb-dumpsys-window-keyguardstatemonitor-showing-input-restricted.txt", True),
    Sample("android/appium-adb-dumpsys-window-keyguardstatemonitor-showing-not-restricted.txt", None),
    Sample("android/appium-adb-dumpsys-window-keyguardservicedelegate-screen-off.txt", True),
    Sample("android/reference-device-dumpsys-window-policy-dreaming-keyguard-line.txt", True),
    Sample("android/emulator-dumpsys-window-grep-anr-wellbeing.txt", None),
)

TREE: tuple[Sample, ...] = (
    Sample(
        "android/emulator-uiautomator-dump-system-ui-isnt-responding-trimmed.xml",
        ("system_dialog", "System UI isn't responding"),
    ),
    Sample(
        "android/ci-uiautomator-dump-pixel-launcher-isnt-responding-nodes.xml",
        ("system_dialog", "Pixel Launcher isn't responding"),
    ),
    Sample(
        "android/ci-uiautomator-dump-pixel-launcher-anr-parentpanel-trimmed.xml",
        ("system_dialog", "Pixel Launcher isn't responding"),
    ),
    Sample("android/miui-uiautomator-dump-keyguard-after-timeout.xml", ("keyguard", "Lock screen")),
    Sample("android/samsung-uiautomator-dump-keyguard-swipe-to-open.xml", ("keyguard", "Lock screen")),
    Sample("android/samsung-uiautomator-dump-keyguard-enter-pin.xml", ("keyguard", "Lock screen")),
    Sample("android/zte-uiautomator-dump-lockscreen-status-bar-bottom-area.xml", ("keyguard", "Lock screen")),
    Sample(
        "android/uiautomator-dump-notification-shade-stack-scroller-row.xml", ("shade", "Notification shade")
    ),
    Sample("android/uiautomator-dump-notification-panel-systemui-node.xml", ("shade", "Notification shade")),
)

LAUNCH: tuple[Sample, ...] = (
    Sample("ios/devicectl-launch-locked-expo-test-stderr.txt", "locked"),
    Sample("ios/devicectl-launch-locked-facetgallery-console.txt", "locked"),
    Sample("ios/devicectl-launch-locked-littlebuddy-ipad-console.txt", "locked"),
    Sample("ios/devicectl-launch-locked-kinowo-verbatim.txt", "locked"),
    Sample("ios/devicectl-launch-locked-tactra-stderr.txt", "locked"),
)


def split(group: tuple[Sample, ...]) -> tuple[tuple[Sample, ...], tuple[Sample, ...]]:
    """(the samples the rule was written from, the third set aside before it was written)."""
    return (
        tuple(s for i, s in enumerate(group) if i % 3 != 1),
        tuple(s for i, s in enumerate(group) if i % 3 == 1),
    )


HELD_OUT: frozenset[str] = frozenset(
    f"{name}:{s.path}"
    for name, group in (("FOCUS", FOCUS), ("KEYGUARD", KEYGUARD), ("TREE", TREE), ("LAUNCH", LAUNCH))
    for s in split(group)[1]
)
