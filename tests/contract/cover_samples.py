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
  ``anr``, ``crash``) and the overlay name the world model records.
- ``KINDS``: a uiautomator dump or a WebDriverAgent source of a system's or an OEM's own prompt
  (collected for issue 41: chooser, battery, permission, ANR, crash, iOS's SpringBoard prompts) ->
  the cover kind :func:`amc.semantic.screen.cover_of` names and the overlay the world records.
  A ``[...]`` line (the collector's cut) is taken out; iOS fragments are closed (``closed``).
- ``LAUNCH``: iOS's answer to a launch on a locked phone -> the refusal kind of
  :func:`amc.drivers.frontboard.launch_refusal`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FOCUS", "HELD_OUT", "KEYGUARD", "KINDS", "LAUNCH", "TREE", "Sample", "split"]


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
        ("anr", "System UI isn't responding"),
    ),
    Sample(
        "android/ci-uiautomator-dump-pixel-launcher-isnt-responding-nodes.xml",
        ("anr", "Pixel Launcher isn't responding"),
    ),
    Sample(
        "android/ci-uiautomator-dump-pixel-launcher-anr-parentpanel-trimmed.xml",
        ("anr", "Pixel Launcher isn't responding"),
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

KINDS: tuple[Sample, ...] = (
    Sample(
        "android/honor-magicos-uiautomator-dump-open-with-chooser-trimmed.xml",
        ("chooser", "使用以下方式打开"),
    ),
    Sample(
        "android/fireos-settings-battery-let-app-always-run-in-background-nodes.xml",
        ("battery", "Let app always run in background?"),
    ),
    Sample(
        "android/fixture-uiautomator-dump-permission-allow-deny-a13plus.xml", ("permission", "Don't allow")
    ),
    Sample(
        "android/uiautomator-dump-system-ui-keeps-stopping-test-data.xml",
        ("crash", "System UI keeps stopping"),
    ),
    Sample("android/android6-launcher-chooser-select-a-home-app-nodes.xml", ("chooser", "Select a Home app")),
    Sample(
        "android/uiautomator-dump-permission-while-using-the-app-node.xml",
        ("permission", "While using the app"),
    ),
    Sample(
        "android/ci-runner-uiautomator-dump-system-ui-isnt-responding-2026-09-19-trimmed.xml",
        ("anr", "System UI isn't responding"),
    ),
    Sample(
        "android/api35-foldable-uiautomator-dump-pixel-launcher-isnt-responding-close-nodes.xml",
        ("anr", "Pixel Launcher isn't responding"),
    ),
    Sample(
        "ios/wda-0.4.0-ios13-maps-location-alert-source-head.txt",
        ("permission", "Allow \u201cMaps\u201d to access your location while you are using the app?"),
    ),
    Sample(
        "ios/wda-8.5.2-springboard-source-notification-alert-texts.txt",
        ("notifications", "\u201c微信\u201d Would Like to Send You Notifications"),
    ),
    Sample(
        "android/emulator-uiautomator-dump-two-anr-dialogs-googlesdksetup.xml",
        ("anr", "com.google.android.googlesdksetup isn't responding"),
    ),
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
    for name, group in (
        ("FOCUS", FOCUS),
        ("KEYGUARD", KEYGUARD),
        ("TREE", TREE),
        ("KINDS", KINDS),
        ("LAUNCH", LAUNCH),
    )
    for s in split(group)[1]
)
