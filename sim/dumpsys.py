"""What ``dumpsys window`` and ``dumpsys activity`` print on each simulated Android release.

Each renderer takes the device and its :class:`~sim.profiles.AndroidProfile` and returns the text a
phone of that release prints, modelled on the real outputs in ``tests/fixtures/real/android`` (file
names below). Only the lines the clients read, and the lines around them that give a dump its
shape, are printed; a real dump has many more.

- ``dumpsys window windows``: ``Window #N Window{h u0 NAME}:`` blocks, top-most first, then the
  global tail. Android 10 blocks carry ``stackId=`` and ``mToken=AppWindowToken{…}``
  (``pixelxl-a10-…``, ``samsung-galaxyA70-a10-…``), Android 11+ ``rootTaskId=`` and
  ``mToken=ActivityRecord{…}`` (``emulator-a11-…``, ``androidtv-kodi-…``). From Android 10 on the
  tail has ``mTopFocusedDisplayId=0`` and no ``mCurrentFocus``/``mFocusedApp``
  (``unknown-a10-…``, ``emulator-a11/a12/a13-…``, ``unknown-a13or14-…``); its IME lines are
  ``mInputMethodTarget in display# 0`` on 11 and ``imeLayeringTarget``/``imeInputTarget``/
  ``imeControlTarget`` from 12.
- ``dumpsys window displays``: one ``Display: mDisplayId=0`` block with ``init=… cur=… app=…``,
  ``mCurrentFocus=Window{…}`` and ``mFocusedApp=…`` (``qualcomm-snapcam-a12-…``); the header is
  ``rootTasks=N`` on 12 and ``(organized)`` from 13, where ``mMinSizeOfResizeableTaskDp`` joins the
  ``init`` line (``unknown-a13-…``, ``unknown-a14-…``). ``base=`` is printed only for a display whose
  size or density was overridden (``wm size``/``wm density``): the real Android 14 dump has it on the
  display at 320dpi over an initial 420dpi, not on the other; the simulated phone has no override,
  so it never prints one. Android 10's header and
  the 13-15 bodies below the header were not collected: they are printed like 12's.
- ``ActivityRecord{h u0 pkg/.Act t61}`` up to 12, ``ActivityRecord{h u0 pkg/.Act} t61}`` on 13 and 14
  (``emulator-a13-…``, ``unknown-a13or14-…``); Android 15's form was not collected and is printed
  like 14's. Android 10's focused app is an ``AppWindowToken{… token=Token{… ActivityRecord{…}}}``
  (``unknown-a10-…``).
- ``dumpsys window`` (no section) holds both of the above.
- ``dumpsys activity activities``: ``mResumedActivity:`` per stack up to Android 11 (``xtc-watch-…``,
  ``korean-blog-a8or9-…``), ``topResumedActivity=`` and ``ResumedActivity:`` from 10, the
  ``Resumed activities in task display areas`` block from 12 (``tablet-api36-…``,
  ``unknown-a12plus-…``).
- ``dumpsys activity top``: ``TASK uid:affinity id=N userId=0`` / ``  ACTIVITY pkg/.Act h pid=N``
  per visible task, the app's last (``lineageos-…``, ``amazon-firehd10-…-top-…``).

When the app in front shows a runtime-permission prompt, the focused window and the resumed
activity are the permission controller's ``GrantPermissionsActivity`` (window name from
``fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt``), in the app's task:
AOSP starts it for result from the asking activity. The ActivityRecord line for it was not
collected; it is printed as any other activity's.

While something covers the apps (:mod:`sim.covers`) its window has the focus and ``mFocusedApp``
still names the app under it: ``NotificationShade`` for the lock screen and the shade from Android
11, ``StatusBar`` on 10 (``honor-alt-nx1-a15-…``, ``pixel7-…``, ``emulator-api34-shade-…``,
``unknown-a4-…-statusbar-…``), and a system dialog's ``Application Not Responding: PKG`` /
``Application Error: PKG`` (``emulator-dumpsys-window-*-anr-*``). The display block ends with
``DisplayPolicy``, as the real Android 14 display dump does (``unknown-a14-…-display-policy-…``):
``mAwake``, ``mShowingDream``/``mDreamingLockscreen``, ``mStatusBar``, ``mExpandedPanel`` and
``isKeyguardShowing`` from 11 (AOSP DisplayPolicy.dump); Android 10's, which was not collected,
prints PhoneWindowManager's ``mStatusBar=… isStatusBarKeyguard=`` instead (find_string id
36425693564, the PWM dump it took over). ``dumpsys window policy`` prints the
``KeyguardServiceDelegate`` block appium-adb's tests hold (``appium-adb-…-keyguardservicedelegate-…``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from .device import SimDevice
from .layout import ANDROID_SYSTEMUI
from .profiles import AndroidProfile
from .prompts import GRANT_ACTIVITY

__all__ = [
    "GRANT_ACTIVITY",
    "LAUNCHER_ACTIVITY",
    "Focus",
    "activities_dump",
    "activity_top",
    "displays_dump",
    "focus_of",
    "policy_dump",
    "window_dump",
    "windows_dump",
]

LAUNCHER_ACTIVITY = "com.android.launcher3.uioverrides.QuickstepLauncher"
RESOLVER_ACTIVITY = "com.android.internal.app.ResolverActivity"
_LAUNCHER_TASK = 2


def _hex(text: str) -> str:
    return f"{zlib.crc32(text.encode()):08x}"[:7]


def _uid(package: str) -> int:
    return 10100 + zlib.crc32(package.encode()) % 400


def pid_of(device: SimDevice, package: str) -> int:
    """The process id of ``package`` on ``device``, one rule for ``ps``, ``pidof`` and every dumpsys:
    a running app's pid is the device's (a new one each time the app starts again, as on a phone,
    where ``dumpsys``, ``ps`` and ``pidof`` name the same process); a process that always runs (the
    launcher, System UI) keeps one pid, derived from its name."""
    running = device.pid_of(package)
    return running if running is not None else 2000 + zlib.crc32(package.encode()) % 20000


def short_activity(package: str, activity: str) -> str:
    return activity[len(package) :] if activity.startswith(package + ".") else activity


@dataclass(frozen=True)
class Focus:
    """What has focus: the window's package and activity, and the task it belongs to."""

    package: str
    activity: str
    task: int
    app: str  # the app whose task it is (the asking app when a permission prompt has focus)
    app_activity: str
    title: str | None = None  # the focused window's title when it is not an activity's (a cover)


def focus_of(device: SimDevice) -> Focus:
    """The focused window of ``device`` now (the launcher's on the home screen)."""
    with device._lock:
        package = device.foreground()
        run = device.current_run()
        title = _cover_title(device)
        if run is None and device.system.home_asking and title is None:
            # the home chooser: ResolverActivity in package android has the focus (a test of a real
            # emulator quotes "android/com.android.internal.app.ResolverActivity" as the window)
            return Focus("android", RESOLVER_ACTIVITY, _LAUNCHER_TASK, "android", RESOLVER_ACTIVITY)
        if run is None:
            return Focus(package, LAUNCHER_ACTIVITY, _LAUNCHER_TASK, package, LAUNCHER_ACTIVITY, title)
        activity = device.foreground_activity() or f"{package}.MainActivity"
        task = device.task_id(package)
        drawn = device.prompt_drawn()
        if drawn is not None and title is None:
            return Focus(drawn.package, drawn.activity, task, package, activity)
        return Focus(package, activity, task, package, activity, title)


def _cover_title(device: SimDevice) -> str | None:
    """The title of the window that covers the apps and has the focus, or None."""
    s = device.system
    if s.dialog is not None:
        kind = "Application Not Responding" if s.dialog.kind == "not_responding" else "Application Error"
        return f"{kind}: {s.dialog.app_id}"
    if s.locked or s.shade is not None:
        profile = device.profile
        return (
            "NotificationShade" if isinstance(profile, AndroidProfile) and profile.api >= 30 else "StatusBar"
        )
    return None


def _cover_package(title: str) -> str:
    return "android" if title.startswith("Application ") else ANDROID_SYSTEMUI


def _record(profile: AndroidProfile, package: str, activity: str, task: int) -> str:
    name = f"{package}/{short_activity(package, activity)}"
    if profile.brace_before_task:
        return f"ActivityRecord{{{_hex(name)} u0 {name}}} t{task}}}"
    return f"ActivityRecord{{{_hex(name)} u0 {name} t{task}}}"


def _focused_app(profile: AndroidProfile, focus: Focus) -> str:
    record = _record(profile, focus.package, focus.activity, focus.task)
    if profile.api < 30:  # Android 10: the focused app is an AppWindowToken
        return f"AppWindowToken{{{_hex(record)} token=Token{{{_hex(focus.activity)} {record}}}}}"
    return record


def _window(package: str, activity: str | None = None) -> str:
    name = f"{package}/{activity}" if activity else package
    return f"Window{{{_hex(name)} u0 {name}}}"


def _block(
    profile: AndroidProfile, number: int, title: str, package: str, task: int, token: str, pid: int
) -> list[str]:
    where = f"stackId={task}" if profile.api < 30 else f"rootTaskId={task}"
    # SystemUI's windows show for all users (``fixture-a14-…``); Android 10's were not collected
    system = package == ANDROID_SYSTEMUI
    owner = "mShowToOwnerOnly=true" if profile.api < 30 else f"showForAllUsers={str(system).lower()}"
    lines = [
        f"  Window #{number} {title}:",
        f"    mDisplayId=0 {where} "
        f"mSession=Session{{{_hex(title)} {pid}:u0a{_uid(package) - 10000}}}"
        f" mClient=android.os.BinderProxy@{_hex(title[::-1])}",
        f"    mOwnerUid={_uid(package)} {owner} package={package} appop=NONE",
    ]
    if token:
        lines.append(f"    mBaseLayer=21000 mSubLayer=0    mToken={token}")
        if profile.api >= 30:
            lines.append(f"    mActivityRecord={token}")
    return lines


def _wallpaper(profile: AndroidProfile) -> str:
    """The wallpaper window's title: in ``wallpapers`` from 14 (``fixture-a14-…``)."""
    if profile.api >= 34:
        return "com.android.systemui.wallpapers.ImageWallpaper"
    return "com.android.systemui.ImageWallpaper"


def _tail(profile: AndroidProfile, focus: Focus, width: int, height: int) -> list[str]:
    target = _window(focus.package, focus.activity)
    lines = [
        "",
        "  mGlobalConfiguration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long"
        f" port finger qwerty/v/v dpad/v winConfig={{ mBounds=Rect(0, 0 - {width}, {height})}} s.2}}",
        "  mHasPermanentDpad=false",
        "  mTopFocusedDisplayId=0",
    ]
    if profile.api == 30:
        lines += [
            f"  mInputMethodTarget in display# 0 {target}",
            "  inputMethodControlTarget in display# 0 null",
        ]
    elif profile.api >= 31:
        lines += [
            f"  {kind} in display# 0 {target}"
            for kind in ("imeLayeringTarget", "imeInputTarget", "imeControlTarget")
        ]
    lines += [
        # 13 prints the minimum task size first, with no line break after it (``emulator-a13-…``)
        ("  Minimum task size of display#0 220" if profile.api >= 33 else "") + "  mInTouchMode=true",
        f"  mInputMethodWindow={_window('InputMethod')}",
        f"  mObscuringWindow={_window(_wallpaper(profile))}",
        "  mSystemBooted=true mDisplayEnabled=true",
    ]
    return lines


def windows_dump(device: SimDevice, profile: AndroidProfile) -> str:
    """``dumpsys window windows``: the windows, top-most first, and the global tail."""
    focus = focus_of(device)
    width, height = device.window_size
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    number = 0

    def add(title: str, package: str, task: int, token: str = "") -> None:
        nonlocal number
        lines.extend(_block(profile, number, title, package, task, token, pid_of(device, package)))
        number += 1

    add(_window("ScreenDecorOverlayBottom"), ANDROID_SYSTEMUI, 1)
    if focus.title is not None and focus.title != "StatusBar":
        add(_window(focus.title), _cover_package(focus.title), 1)
    add(_window("StatusBar"), ANDROID_SYSTEMUI, 1)
    if device.keyboard_shown():
        add(_window("InputMethod"), device.input_method.split("/")[0], 1)  # the current keyboard's
    if focus.package != focus.app:
        token = _record(profile, focus.package, focus.activity, focus.task)
        add(_window(focus.package, focus.activity), focus.package, focus.task, token)
    app_token = _record(profile, focus.app, focus.app_activity, focus.task)
    if profile.api < 30:
        app_token = f"AppWindowToken{{{_hex(app_token)} token=Token{{{_hex(focus.app)} {app_token}}}}}"
    add(_window(focus.app, focus.app_activity), focus.app, focus.task, app_token)
    add(_window(_wallpaper(profile)), ANDROID_SYSTEMUI, 1)
    lines += _tail(profile, focus, width, height)
    return "\n".join(lines) + "\n"


def _display_block(device: SimDevice, profile: AndroidProfile) -> list[str]:
    focus = focus_of(device)
    width, height = device.window_size
    if profile.api >= 33:
        header = "  Display: mDisplayId=0 (organized)"
    elif profile.api >= 31:
        header = "  Display: mDisplayId=0 rootTasks=5"
    else:
        header = "  Display: mDisplayId=0"
    init = f"    init={width}x{height} 420dpi"
    if profile.api >= 33:
        init += " mMinSizeOfResizeableTaskDp=220"
    app_h = height - 63
    init += f" cur={width}x{height} app={width}x{app_h} rng={width}x{width - 63}-{app_h}x{app_h}"
    return [
        header,
        init,
        f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{width},{height}))",
        "",
        "  mLayoutSeq=212",
        f"  mCurrentFocus={_window(focus.title) if focus.title else _window(focus.package, focus.activity)}",
        f"  mFocusedApp={_focused_app(profile, focus)}",
        "",
        "  displayId=0",
        "  mWallpaperTarget=null",
        "",
        *_display_policy(device, profile),
    ]


def _display_policy(device: SimDevice, profile: AndroidProfile) -> list[str]:
    """The display's DisplayPolicy block: the lines that say whether the keyguard is up."""
    locked = str(device.system.locked).lower()
    lines = [
        "  DisplayPolicy",
        "    mDockMode=EXTRA_DOCK_STATE_UNDOCKED mLidState=LID_ABSENT",
        "    mAwake=true mScreenOnEarly=true mScreenOnFully=true",
        f"    mShowingDream=false mDreamingLockscreen={locked}",
    ]
    if profile.api >= 30:
        lines += [
            f"    mStatusBar={_window('StatusBar')}",
            f"    mExpandedPanel={_window('NotificationShade')}",
            f"    isKeyguardShowing={locked}",
        ]
    else:
        lines.append(f"    mStatusBar={_window('StatusBar')} isStatusBarKeyguard={locked}")
    return lines


def policy_dump(device: SimDevice) -> str:
    """``dumpsys window policy``: the keyguard's state as PhoneWindowManager prints it (the block
    appium-adb's lock tests hold; ``showing`` and ``mIsShowing`` say whether it is up)."""
    locked = str(device.system.locked).lower()
    return (
        "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n"
        "    mSafeMode=false mSystemReady=true mSystemBooted=true\n"
        "    KeyguardServiceDelegate\n"
        f"      showing={locked}\n"
        f"      showingAndNotOccluded={locked}\n"
        f"      inputRestricted={locked}\n"
        "      occluded=false\n"
        "      secure=false\n"
        "      dreaming=false\n"
        "      systemIsReady=true\n"
        "      deviceHasKeyguard=true\n"
        "      enabled=true\n"
        "      screenState=SCREEN_STATE_ON\n"
        "      interactiveState=INTERACTIVE_STATE_AWAKE\n"
        "      KeyguardStateMonitor\n"
        f"        mIsShowing={locked}\n"
        "        mSimSecure=false\n"
        f"        mInputRestricted={locked}\n"
        "        mTrusted=false\n"
        "        mCurrentUserId=0\n"
    )


def displays_dump(device: SimDevice, profile: AndroidProfile) -> str:
    """``dumpsys window displays``: one block per display (the simulated phone has one)."""
    lines = ["WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)", *_display_block(device, profile)]
    return "\n".join(lines) + "\n"


def window_dump(device: SimDevice, profile: AndroidProfile) -> str:
    """``dumpsys window``: every section, here the display contents and the windows."""
    rule = "-" * 79
    displays, windows = displays_dump(device, profile), windows_dump(device, profile)
    return f"{policy_dump(device)}{rule}\n{displays}{rule}\n{windows}"


def activities_dump(device: SimDevice, profile: AndroidProfile) -> str:
    """``dumpsys activity activities``: the tasks of the display, and what is resumed."""
    focus = focus_of(device)
    record = _record(profile, focus.package, focus.activity, focus.task)
    app_record = _record(profile, focus.app, focus.app_activity, focus.task)
    affinity = f"{_uid(focus.app)}:{focus.app}"
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    if profile.api >= 29:
        lines.append(f"    topResumedActivity={record}")
    if profile.api >= 31:
        lines.append(
            f"  * Task{{{_hex(affinity)} #{focus.task} type=standard A={affinity} U=0 visible=true"
            " visibleRequested=true mode=fullscreen translucent=false sz=1}"
        )
    else:
        lines += [
            f"  Stack #{focus.task}: type=standard mode=fullscreen",
            f"    * TaskRecord{{{_hex(affinity)} #{focus.task} A={focus.app} U=0 StackId={focus.task} sz=1}}",
        ]
    if record != app_record:
        lines.append(f"      * Hist  #1: {record}")
    lines.append(f"      * Hist  #0: {app_record}")
    if profile.per_stack_resumed:
        lines.append(f"    mResumedActivity: {record}")
    if profile.api >= 31:
        lines += [
            "  Resumed activities in task display areas (from top to bottom):",
            f"    Resumed: {record}",
        ]
    lines += ["", f"  ResumedActivity: {record}"]
    return "\n".join(lines) + "\n"


def activity_top(device: SimDevice, profile: AndroidProfile) -> str:
    """``dumpsys activity top``: the top activity of each visible task, the one in front last."""
    focus = focus_of(device)
    lines = []
    if focus.app != device.launcher:
        launcher = device.launcher
        lines += [
            f"TASK {_uid(launcher)}:{launcher} id={_LAUNCHER_TASK} userId=0",
            f"  ACTIVITY {launcher}/{short_activity(launcher, LAUNCHER_ACTIVITY)} {_hex(launcher)} "
            f"pid={pid_of(device, launcher)}",
            "",
        ]
    lines += [
        f"TASK {_uid(focus.app)}:{focus.app} id={focus.task} userId=0",
        f"  ACTIVITY {focus.package}/{short_activity(focus.package, focus.activity)} {_hex(focus.activity)}"
        f" pid={pid_of(device, focus.package)}",
    ]
    return "\n".join(lines) + "\n"
