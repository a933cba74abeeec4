"""Real Android outputs replayed to the real clients over the adb protocol: the right answer or the
right typed error, every time.

Each case connects ``sim+adb:android?api=N`` through ``amc.drivers.connect.connect`` (adbutils and
uiautomator2 talking to the adb face) with the face answering some shell commands with real
outputs from ``tests/fixtures/real/android`` (``replies``) and everything else as the simulated
phone of that release. The files are named in each case; PROVENANCE.md says where each comes from.
A ``grep`` output is replayed as the answer to the command it was grepped from: it holds that
command's lines, in their order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import adbutils
import pytest
from amc.core.errors import AppLaunchFailed, AppNotInstalled, DeviceError, DeviceTimeout, HarnessError
from amc.drivers.u2 import U2Driver
from amc.drivers.u2.focus import parse_props
from amc.sim.catalog import AppSpec, Screen, Widget
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.profiles import AndroidProfile
from amc.sim.replay import Reply

from tests.contract.real import connected, real_text

PROPS = "getprop ro.build.version.sdk && getprop ro.build.version.release"
DISPLAYS, WINDOWS, WHOLE = "dumpsys window displays", "dumpsys window windows", "dumpsys window"


def shell(name: str, code: int = 0) -> Reply:
    return Reply.text(real_text(f"android/{name}"), code=code)


@contextmanager
def replayed(
    replies: dict[str, Reply],
    *,
    api: int = 34,
    launcher: str | None = None,
    apps: dict[str, AppSpec] | None = None,
) -> Iterator[tuple[U2Driver, FaultInjector, SimDevice]]:
    device = SimDevice("android", profile=AndroidProfile(api))
    if launcher is not None:
        device.launcher = launcher  # the phone's HOME package, as its resolve-activity answers it
    device.apps.update(apps or {})
    spec = f"sim+adb:android?api={api}"
    options = {"timeout": 5.0, "launch_timeout": 0.6, "launch_poll": 0.1}
    with connected(spec, device, replies, U2Driver, **options) as (driver, faults):
        yield driver, faults, device


@dataclass(frozen=True)
class ForegroundCase:
    """``current_app()`` when the foreground command answers with a real output."""

    name: str
    output: str  # fixture under android/
    expected: str | type[HarnessError] | None
    api: int = 34
    props: str | None = None  # a real getprop output replayed at connect (None: the profile's own)
    launcher: str | None = None
    detail: str = ""  # in the error message, for an error

    @property
    def command(self) -> str:
        if self.props is None:
            return DISPLAYS if self.api >= 29 else WINDOWS
        return {"pixel8-shiba-a14-api34-getprop-fragment.txt": DISPLAYS}.get(self.props, WHOLE)


FOREGROUND: list[ForegroundCase] = [
    # Android 10+: `dumpsys window displays`, the focus lines inside the display block
    ForegroundCase(
        "a12 display block (Qualcomm/CAF)",
        "qualcomm-snapcam-a12-dumpsys-window-displays-Display-block-focus.txt",
        "org.codeaurora.snapcam",
        api=31,
    ),
    ForegroundCase(
        "a12 Z Flip 5G: the cover screen's SystemUI first",
        "samsung-zflip5g-a12-displays-grep-mFocusedApp.txt",
        "eu.niko.smart.universal",
        api=31,
    ),
    ForegroundCase(
        "a12 Z Flip 5G: mCurrentFocus=null first",
        "samsung-zflip5g-a12-displays-grep-mCurrentFocus.txt",
        "eu.niko.smart.universal",
        api=31,
    ),
    ForegroundCase(
        "a12 Z Flip 4: three displays, null and SystemUI",
        "samsung-zflip4-a12-displays-grep-mFocusedApp.txt",
        "jp.naver.line.android",
        api=31,
    ),
    ForegroundCase(
        "a12 Z Flip 4: two null windows",
        "samsung-zflip4-a12-displays-grep-mCurrentFocus.txt",
        "jp.naver.line.android",
        api=31,
    ),
    ForegroundCase(
        "a16 tablet: ActivityRecord{… t323, isEmbedded=false}",
        "tablet-api36-dumpsys-activity-activities-isEmbedded.txt",
        "com.workspacebrowser.acceptance",
        api=35,
    ),
    ForegroundCase(
        "a13 header without focus lines",
        "unknown-a13-dumpsys-window-displays-Display-organized-head.txt",
        DeviceError,
        api=33,
        detail="no mCurrentFocus or mFocusedApp",
    ),
    ForegroundCase(
        "a14 two displays without focus lines",
        "unknown-a14-dumpsys-window-displays-two-displays-grep.txt",
        DeviceError,
        detail="no mCurrentFocus or mFocusedApp",
    ),
    ForegroundCase(
        "a14 permission prompt window (trimmed fixture)",
        "fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt",
        "com.google.android.permissioncontroller",
    ),
    ForegroundCase(
        "elided permission line",
        "emulator-dumpsys-window-permission-dialog-steals-focus-elided.txt",
        DeviceError,
        detail="cannot read",
    ),
    # failures printed instead of a dump
    ForegroundCase(
        "DUMP TIMEOUT and Failure while dumping (HMD/Nokia)",
        "hmd-nokia-dumpsys-activity-top-DUMP-TIMEOUT-failure-while-dumping.txt",
        DeviceTimeout,
        detail="DUMP TIMEOUT (10000ms) EXPIRED",
    ),
    ForegroundCase(
        "Wear OS: no window service",
        "wearos-a13-cmd-cant-find-service-window.txt",
        DeviceError,
        api=33,
        detail="Can't find service: window",
    ),
    ForegroundCase(
        "Android 7: Error dumping service info",
        "unknown-a7-dumpsys-window-redirect-error-dumping-service.txt",
        DeviceError,
        detail="Error dumping service info",
    ),
    # Android 10-14 `dumpsys window windows` has no focus lines: never an answer made up from it
    ForegroundCase(
        "a11 windows dump (emulator)",
        "emulator-a11-api30-dumpsys-window-windows-app-window-and-tail-no-mCurrentFocus.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a12 windows dump (AOSP emulator)",
        "emulator-a12-api31-aosp-dumpsys-window-windows-app-window-and-tail-imeTargets.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a13 windows dump (emulator)",
        "emulator-a13-api33-dumpsys-window-windows-head-app-window-tail.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a13/14 windows dump (phone)",
        "unknown-a13or14-dumpsys-window-windows-fragment-no-mCurrentFocus.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a12 Android TV windows dump",
        "androidtv-a12-dumpsys-window-windows-fragment-ottplay.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a11 Android TV windows dump (Kodi)",
        "androidtv-kodi-a11or12-dumpsys-window-windows-fragment.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    # a phone that does not say its SDK level (a getprop listing without it): `dumpsys window`
    ForegroundCase(
        "a8/9 windows tail: mCurrentFocus and mFocusedApp",
        "unknown-a8or9-dumpsys-window-windows-grep-focus-appwindowtoken-photos.txt",
        "com.google.android.apps.photos",
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
    ),
    ForegroundCase(
        "a4 car head unit: the launcher keeps the focus",
        "carhead-unit-a4-dumpsys-window-windows-mCurrentFocus-differs-mFocusedApp.txt",
        "com.example",
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        launcher="com.incall.apps.launcher",
    ),
    ForegroundCase(
        "a4 mCurrentFocus over several polls",
        "unknown-a4-dumpsys-window-windows-grep-mCurrentFocus-many.txt",
        "com.lookout.enterprise",
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
    ),
    ForegroundCase(
        "Google TV `dumpsys window` (findstr)",
        "googletv-2025-dumpsys-window-findstr-mCurrentFocus-dreamx.txt",
        "com.google.android.apps.tv.dreamx",
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
    ),
    ForegroundCase(
        "Huawei EMUI windows head: no focus lines",
        "huawei-emui-a8-dumpsys-window-windows-head-SearchPanel.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a10 Pixel XL windows block: no focus lines",
        "pixelxl-a10-dumpsys-window-windows-fragment-nexuslauncher-stackId.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a10 Galaxy A70 windows block: no focus lines",
        "samsung-galaxyA70-a10-dumpsys-window-windows-fragment.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    ForegroundCase(
        "a10 windows tail: mTopFocusedDisplayId only",
        "unknown-a10-dumpsys-window-displays-fragment-mTopFocusedDisplayId-snapshotcache.txt",
        DeviceError,
        props="nexus5-hammerhead-a5.1-getprop-fragment.txt",
        detail="no mCurrentFocus",
    ),
    # the Pixel 8's getprop names the SDK level only per partition: still API 34
    ForegroundCase(
        "Pixel 8 getprop, then a12 display block",
        "qualcomm-snapcam-a12-dumpsys-window-displays-Display-block-focus.txt",
        "org.codeaurora.snapcam",
        props="pixel8-shiba-a14-api34-getprop-fragment.txt",
    ),
]


@pytest.mark.parametrize("case", FOREGROUND, ids=[c.name for c in FOREGROUND])
def test_the_foreground_from_a_real_dump(case: ForegroundCase) -> None:
    replies = {case.command: shell(case.output)}
    if case.props is not None:
        replies[PROPS] = shell(case.props)
    with replayed(replies, api=case.api, launcher=case.launcher) as (driver, faults, _):
        history = []
        if isinstance(case.expected, type):
            with pytest.raises(case.expected) as caught:
                driver.current_app()
            assert case.detail in str(caught.value)
        else:
            assert driver.current_app() == case.expected
        assert faults.count("adb:shell:dumpsys") == 1  # one shell command, whatever the release
        history = [c for c in _history(driver) if c.startswith("dumpsys")]
        assert history == [case.command]


def _history(driver: U2Driver) -> list[str]:
    face = driver._on_close.__self__  # type: ignore[union-attr]  # the adb face connect() started
    return list(face.phone(driver.serial).shell.history)


def test_the_sdk_level_is_read_once_at_connect_from_real_getprop_outputs() -> None:
    with replayed({PROPS: shell("pixel8-shiba-a14-api34-getprop-fragment.txt")}) as (driver, _, _d):
        assert (driver.sdk, driver.os_version) == (34, "14")  # from ro.system.build.version.*
    with replayed({PROPS: shell("nexus5-hammerhead-a5.1-getprop-fragment.txt")}) as (driver, _, _d):
        assert driver.sdk is None  # the fragment has no version line: the universal command is used
    chained = real_text("android/androidtv-chromecast-googletv-a10-getprop-device-properties.txt")
    keys = ("ro.product.manufacturer", "ro.product.model", "ro.serialno", "ro.build.version.release", "x")
    assert parse_props(chained, keys)["ro.build.version.release"] == "10"  # python-androidtv's chain


def _start(package: str, category: str = "LAUNCHER") -> str:
    """The launch command the adapter sends (``am start -W`` for the package's launcher activity)."""
    return f"am start -W -a android.intent.action.MAIN -c android.intent.category.{category} -p {package}"


STARTED = "am-start-W-S-status-ok-ThisTime-blog.txt"
SLOW = "react-native-cold-start-am-start-W-status-timeout.txt"
UNRESOLVED = "pixel2-am-start-package-unable-to-resolve-intent-fenix.txt"


KODI = "org.xbmc.kodi"


def _tv_app() -> dict[str, AppSpec]:
    """A TV app that declares only LEANBACK_LAUNCHER (tests/fixtures/real: Maestro#1502)."""
    screen = Screen("main", "Kodi", (Widget("text", "title", "Kodi"),), activity=f"{KODI}.Main")
    return {
        KODI: AppSpec(
            KODI, "Kodi", "main", {"main": screen}, categories=("android.intent.category.LEANBACK_LAUNCHER",)
        )
    }


@pytest.mark.parametrize("answer", [STARTED, SLOW], ids=["Status: ok", "Status: timeout"])
def test_a_launch_behind_real_am_outputs_costs_two_commands(answer: str) -> None:
    """``Status: timeout`` is a slow cold start, not a failure (the activity started and resumed):
    the check after it decides, as after ``Status: ok``."""
    snapcam = "org.codeaurora.snapcam"
    replies = {
        _start(snapcam): shell(answer),
        DISPLAYS: shell("qualcomm-snapcam-a12-dumpsys-window-displays-Display-block-focus.txt"),
    }
    with replayed(replies, api=31) as (driver, faults, _):
        driver.launch_app(snapcam)
        assert faults.count("adb:shell:am") == 1 and faults.count("adb:shell:dumpsys") == 1


def test_an_intent_nothing_resolves_and_no_package_path_is_app_not_installed() -> None:
    missing = "org.mozilla.fenix.performancetest"  # the package the real output names
    with replayed({_start(missing): shell(UNRESOLVED)}) as (driver, faults, _):
        with pytest.raises(AppNotInstalled) as caught:
            driver.launch_app(missing)
        assert caught.value.app_id == missing
        # `pm path`, then `pm list users` (whether another user may have it)
        assert faults.count("adb:shell:am") == 1 and faults.count("adb:shell:pm") == 2
        assert faults.count("adb:shell:dumpsys") == 0


def test_an_android_tv_app_with_only_leanback_launcher_starts_through_it() -> None:
    replies = {_start(KODI): shell(UNRESOLVED)}
    with replayed(replies, apps=_tv_app()) as (driver, faults, device):
        driver.launch_app(KODI)
        assert device.foreground() == KODI and driver.current_app() == KODI
        assert faults.count("adb:shell:am") == 2  # LAUNCHER (real: nothing resolved), LEANBACK_LAUNCHER
        faults.reset_counts()
        device.home()
        driver.launch_app(KODI)  # the category that started it is remembered
        assert (faults.count("adb:shell:am"), faults.count("adb:shell:pm")) == (1, 0)


def test_an_installed_app_with_no_launcher_activity_at_all_is_app_launch_failed() -> None:
    with replayed({}) as (driver, _, _d), pytest.raises(AppLaunchFailed, match="neither LAUNCHER nor"):
        driver.launch_app("com.android.systemui")


def test_the_real_permission_prompt_after_a_launch_is_an_overlay_not_a_failure() -> None:
    """The trimmed A14 emulator dump: the permission window above the app's, focus on the prompt."""
    app = "com.saucelabs.mydemoapp.android"
    replies = {
        _start(app): shell(STARTED),
        DISPLAYS: shell("fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt"),
    }
    with replayed(replies) as (driver, faults, _):
        driver.launch_app(app)  # no AppLaunchFailed: the app started and asked for a permission
        assert driver.current_app() == app  # the app under its prompt
        assert faults.count("adb:shell:dumpsys") == 2


def test_adbutils_app_current_falls_through_to_activity_top_on_android_13_outputs() -> None:
    """adbutils' ``app_current`` on real Android 13/16 outputs: no ``mCurrentFocus`` in the windows
    dump, no ``mResumedActivity`` in the activities dump, so it takes the last ``ACTIVITY`` line of
    ``dumpsys activity top``: three dumps where the adapter sends one."""
    device = SimDevice("android", profile=AndroidProfile(33))
    replies = {
        WINDOWS: shell("emulator-a13-api33-dumpsys-window-windows-head-app-window-tail.txt"),
        "dumpsys activity activities": shell("tablet-api36-dumpsys-activity-activities-isEmbedded.txt"),
        "dumpsys activity top": shell("lineageos-dumpsys-activity-top-head.txt"),
    }
    faults = FaultInjector()
    from amc.sim.adb_face import AdbFace

    with AdbFace([device], faults=faults, replies=replies) as face:
        client: Any = adbutils.AdbClient(host=face.host, port=face.port).device(serial=device.device_id)
        info = client.app_current()
        assert (info.package, info.pid) == ("com.android.launcher3", 2268)  # not the app in front
        assert faults.count("adb:shell:dumpsys") == 3


def _pm_clear_answers() -> dict[str, tuple[str, int]]:
    """The Android 15 emulator's ``pm clear`` answers by package (its reporter's table: the word pm
    printed and the exit code)."""
    answers = {}
    for line in real_text("android/emulator-a15-api35-pm-clear-success-failed-exit-codes.txt").splitlines():
        words = line.split()
        if "--user" in words and words[words.index("--user") + 1] == "0":
            word, code = words[words.index("->") + 1], int(words[-1].removeprefix("exit="))
            answers[words[words.index("--user") + 2]] = (word, code)
    return answers


def test_pm_clear_answers_from_android_15() -> None:
    answers = _pm_clear_answers()
    assert answers["com.example.doesnotexist"] == ("Failed", 1)
    replies = {
        f"pm clear {package}": Reply.text(f"{word}\n", code=code) for package, (word, code) in answers.items()
    }
    with replayed(replies, api=35) as (driver, faults, _):
        with pytest.raises(AppNotInstalled, match=r"com\.example\.doesnotexist"):
            driver.clear_state("com.example.doesnotexist")
        driver.clear_state("com.android.shell")  # Success
        assert faults.count("adb:shell:pm") == 2
