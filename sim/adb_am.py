"""``am start`` and ``monkey`` on a simulated Android phone: starting apps, as adbutils,
uiautomator2 and the harness start them, in the lines real phones print (the captures each
function names are in ``tests/fixtures/real``). :class:`sim.adb_shell.AndroidShell` runs them;
each answers what the command prints and its exit status, and the launch itself goes to the
:class:`~sim.device.SimDevice`.
"""

from __future__ import annotations

import time

from ..core.errors import AppLaunchFailed
from .device import SimDevice
from .dumpsys import LAUNCHER_ACTIVITY
from .intent_extras import ExtraError, parse_extras
from .profiles import AndroidProfile

__all__ = ["am_start", "launch_activity", "launchable", "monkey", "short_activity"]


def _out(text: str, code: int = 0) -> tuple[str, int]:
    return text, code


def short_activity(package: str, activity: str) -> str:
    """``.Main`` for ``PKG.Main`` (how am and dumpsys print an activity of the package itself)."""
    return activity[len(package) :] if activity.startswith(package + ".") else activity


def launchable(device: SimDevice, package: str) -> bool:
    return package in device.apps or package == device.launcher


def launch_activity(device: SimDevice, package: str) -> str:
    """The activity a launch of ``package`` shows first."""
    if package == device.launcher:
        return LAUNCHER_ACTIVITY
    spec = device.apps[package]
    return spec.screen(spec.start).activity or f"{package}.MainActivity"


def am_start(device: SimDevice, profile: AndroidProfile, argv: list[str]) -> tuple[str, int]:
    """``am start|start-activity``: ``-d URL`` opens a link, no ``-n`` starts a package's launcher
    activity, ``-n PKG/ACT`` that activity. A missing activity prints ``Error type 3`` and
    ``Error: Activity class {…} does not exist.`` (``xiaomi-mi3-…``, ``genymotion-nexus5-…``);
    ``am start`` still exits 0 (``emulator-api34-…``), ``am start-activity`` exits 1
    (``uia2-driver-3.9.5-a15-…``)."""
    verb = argv[1]
    if "-d" in argv[:-1]:
        return _view(device, argv)
    if "-n" not in argv[:-1]:
        return _start_main(device, profile, argv)
    component = argv[argv.index("-n") + 1]
    package, _, activity = component.partition("/")
    intent = f"Starting: Intent {{ act=android.intent.action.MAIN cmp={component} }}\n"
    if not package or not launchable(device, package):
        full = f"{package}/{package}{activity}" if activity.startswith(".") else component
        return _out(
            intent + f"Error type 3\nError: Activity class {{{full}}} does not exist.\n",
            1 if verb == "start-activity" else 0,
        )
    device.start_activity(package, activity)
    return _out(intent)


def monkey(device: SimDevice, argv: list[str]) -> tuple[str, int]:
    """``monkey -p PKG -c CATEGORY 1``, in the lines a real monkey prints (``car-monkey-*.txt``:
    ``args: [...]`` / ``Events injected: 1`` / ``## Network stats``, and ``data="PKG"`` /
    ``** No activities found to run, monkey aborted.``). An app starts through the launcher
    categories it declares (``AppSpec.categories``). The failure's exit status was not
    collected: 252 is what AOSP's Monkey returns (-4) when it finds no activity."""
    package = argv[argv.index("-p") + 1] if "-p" in argv[:-1] else None
    category = argv[argv.index("-c") + 1] if "-c" in argv[:-1] else "android.intent.category.LAUNCHER"
    spec = device.apps.get(package) if package is not None else None
    declared = spec.categories if spec is not None else ("android.intent.category.LAUNCHER",)
    if package is None or not launchable(device, package) or category not in declared:
        return _out(f'data="{package}"\n** No activities found to run, monkey aborted.\n', 252)
    device.launch(package)
    return _out(
        f"args: [{', '.join(argv[1:])}]\n"
        "Events injected: 1\n"
        "## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n"
    )


def _start_main(device: SimDevice, profile: AndroidProfile, argv: list[str]) -> tuple[str, int]:
    """``am start [-W] -a android.intent.action.MAIN -c CATEGORY -p PKG`` (or ``am start PKG``):
    the app's launcher activity in that category. Nothing answers the intent (no such package,
    or no activity in that category): ``Starting: Intent { … pkg=… }`` and ``Error: Activity not
    started, unable to resolve Intent { … flg=0x10000000 pkg=… }``, exit 0
    (``pixel2-am-start-package-unable-to-resolve-intent-fenix.txt``; the exit status from
    callstack/agent-device#115). With ``-W`` am waits until the activity is displayed and prints
    ``Status: ok``, ``LaunchState:`` (Android 10 and later), ``Activity:``, the times and
    ``Complete`` (``am-start-W-S-status-ok-ThisTime-blog.txt``, whose ``ThisTime:`` Android 10
    dropped). An app already running comes back with its task: AOSP prints ``Warning: Activity
    not started, its current task has been brought to the front`` (from its source; no capture
    was collected). Typed extras (``--ez``, ``--ei``, ``--el``, ``--ef``, ``--ed``, ``--es``) are read
    as AOSP reads them (:mod:`sim.intent_extras`) and reach a process started now."""
    waits = "-W" in argv
    try:
        extras, words = parse_extras([a for a in argv[2:] if a != "-W"])
    except ExtraError as exc:
        return _out(f"Exception occurred while executing '{argv[1]}':\n{exc}\n", 255)
    options: dict[str, list[str]] = {}
    rest: list[str] = []
    i = 0
    while i < len(words):
        if words[i] in ("-a", "-c", "-p", "--user", "-f") and i + 1 < len(words):
            options.setdefault(words[i], []).append(words[i + 1])
            i += 2
        else:
            rest.append(words[i])
            i += 1
    package = (options.get("-p") or rest[-1:] or [""])[0]
    categories = options.get("-c") or ["android.intent.category.LAUNCHER"]
    action = (options.get("-a") or ["android.intent.action.MAIN"])[0]
    described = f"act={action} cat=[{','.join(categories)}]"
    starting = f"Starting: Intent {{ {described} pkg={package} }}\n"
    spec = device.apps.get(package)
    declared = spec.categories if spec is not None else ("android.intent.category.LAUNCHER",)
    if not launchable(device, package) or not set(categories) <= set(declared):
        return _out(
            starting + f"Error: Activity not started, unable to resolve Intent {{ {described} "
            f"flg=0x10000000 pkg={package} }}\n"
        )
    running = package in device.running_apps()
    if extras:
        device.launch(package, extras=extras)  # a new process's launch intent carries them
    else:
        device.launch(package)
    lines = [starting.rstrip("\n")]
    if running:
        lines.append("Warning: Activity not started, its current task has been brought to the front")
    if waits:
        left = device.transition_left()
        time.sleep(min(left, 5.0))  # am waits until the activity is displayed
        waited = max(1, round(left * 1000))
        state = "HOT" if running else "COLD"
        lines += ["Status: ok"]
        if profile.api >= 29:
            lines.append(f"LaunchState: {state}")
        lines += [
            f"Activity: {package}/{short_activity(package, launch_activity(device, package))}",
            f"TotalTime: {waited}",
            f"WaitTime: {waited + 4}",
            "Complete",
        ]
    return _out("\n".join(lines) + "\n")


def _view(device: SimDevice, argv: list[str]) -> tuple[str, int]:
    """``am start -a android.intent.action.VIEW -d URL [-p PACKAGE]``: the lines am prints, and
    its "unable to resolve Intent" error when no activity takes the link. The wording is AOSP's
    ActivityManagerShellCommand (runStartActivity: "Starting: Intent { … }", then "Error:
    Activity not started, unable to resolve Intent { … }"), written from its source as we know
    it, not from a capture; real output also carries flags we leave out."""
    url = argv[argv.index("-d") + 1]
    package = argv[argv.index("-p") + 1] if "-p" in argv[:-1] else None
    intent = f"Intent {{ act=android.intent.action.VIEW dat={url}" + (f" pkg={package}" if package else "")
    try:
        device.open_link(url, package)
    except AppLaunchFailed:
        return _out(
            f"Starting: {intent} }}\n"
            f"Error: Activity not started, unable to resolve {intent} flg=0x10000000 }}\n"
        )
    return _out(f"Starting: {intent} }}\n")
