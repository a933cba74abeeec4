"""The shell of a simulated Android phone, as ``adb shell`` runs it for adbutils and uiautomator2.

:class:`AndroidShell` runs one command line and returns what a real phone of the device's
release (its :class:`~sim.profiles.AndroidProfile`) prints, in the formats the clients parse:
``monkey``/``am start`` (launch: :mod:`sim.adb_am`), ``am force-stop``, ``dumpsys window
[windows|displays]`` and ``dumpsys activity activities|top`` (per release, see :mod:`sim.dumpsys`),
``dumpsys display``, ``dumpsys package``, ``pm list packages``, ``pm path``, ``cmd package resolve-activity``,
``wm size``, ``getprop``, ``ime``, ``settings``, ``am broadcast`` (the input methods:
:mod:`sim.adb_ime`), ``input``, ``ps``, ``screencap -p``,
``toybox md5sum``/``md5sum`` and ``echo``. Commands joined by ``&&`` or ``;`` run in turn, as
``sh -c`` runs them, and a trailing ``; echo X4EXIT:$?`` (how adbutils reads exit codes) is
honoured. Unknown commands answer as ``sh`` does (exit 127). State changes go to the
:class:`~sim.device.SimDevice`.

``replies`` plays a real phone's output back: a command line found there (exactly as the client
sent it, without the exit-code suffix) is answered with that :class:`~sim.replay.Reply` (its
bytes and exit code) and nothing else happens, which is how the tests replay outputs of real
devices (``tests/fixtures/real``) to the real clients over the adb protocol.
"""

from __future__ import annotations

import shlex
import threading
import zlib
from collections.abc import Callable

from .adb_am import am_start, monkey, short_activity
from .adb_commands import PhoneCommands
from .adb_files import FileEntry, PhoneFiles, entry_for
from .adb_ime import InputMethods, broadcast_extras
from .adb_pipes import grep, pidof, pipeline
from .adb_pm import permission_blocks, pm_grant
from .adb_result import ShellResult
from .adb_state import state_am, state_cmd, state_settings
from .device import SimDevice
from .dumpsys import (
    LAUNCHER_ACTIVITY,
    activities_dump,
    activity_top,
    displays_dump,
    pid_of,
    policy_dump,
    window_dump,
    windows_dump,
)
from .layout import ANDROID_IME, ANDROID_SYSTEMUI
from .profiles import DEFAULT_ANDROID, AndroidProfile
from .replay import Reply
from .users import list_packages_refusal, list_users

__all__ = ["EXIT_MARKER", "AndroidShell", "FileEntry", "ShellResult", "command_name", "md5_entry"]

EXIT_MARKER = "; echo X4EXIT:$?"
SYSTEM_PACKAGES = ("android", "com.android.shell", ANDROID_SYSTEMUI, ANDROID_IME)
_KEYCODES = {"3": "home", "4": "back", "66": "enter", "82": "menu", "187": "recent", "24": "volume_up"}
_KEYCODES.update({"25": "volume_down", "26": "power", "111": "escape", "67": "del"})


def _hex(text: str) -> str:
    return f"{zlib.crc32(text.encode()):08x}"[:7]


def _is_assignment(word: str) -> bool:
    return "=" in word and word.split("=", 1)[0].isidentifier()


def _without_assignments(argv: list[str]) -> list[str]:
    """``argv`` without the leading ``NAME=value`` words (sh reads those as the command's
    environment; later ones, such as a base64 argument ending in ``=``, are arguments)."""
    k = 0
    while k < len(argv) and _is_assignment(argv[k]):
        k += 1
    return argv[k:]


def command_name(command: str) -> str:
    """The program a command line runs (``toybox md5sum x`` -> ``md5sum``; env assignments skipped)."""
    try:
        argv = shlex.split(command.removesuffix(EXIT_MARKER))
    except ValueError:
        return "sh"
    argv = _without_assignments(argv) or ["sh"]
    if argv[0] == "toybox" and len(argv) > 1:
        return argv[1]
    return argv[0].rsplit("/", 1)[-1]


class AndroidShell:
    """Runs shell command lines against one simulated phone (thread-safe through the device lock)."""

    def __init__(
        self,
        device: SimDevice,
        files: PhoneFiles | dict[str, FileEntry] | None = None,
        replies: dict[str, Reply] | None = None,
    ) -> None:
        self.device = device
        self.files: PhoneFiles = files if isinstance(files, PhoneFiles) else PhoneFiles(files)
        self.replies: dict[str, Reply] = replies if replies is not None else {}
        self._lock = threading.Lock()
        self.history: list[str] = []
        self.input_methods = InputMethods(device)
        self.commands = PhoneCommands(self)
        # The uiautomator2 server's process, as the adb face wires it: its pid while it runs, and
        # what a kill of it does.
        self.server_pid: Callable[[], int | None] | None = None
        self.on_server_kill: Callable[[], None] | None = None

    @property
    def profile(self) -> AndroidProfile:
        profile = self.device.profile
        return profile if isinstance(profile, AndroidProfile) else DEFAULT_ANDROID

    # --- entry point ------------------------------------------------------------------------

    def run(self, command: str) -> ShellResult:
        """Run ``command`` as ``sh -c`` would; the X4EXIT suffix prints the exit code after it."""
        with self._lock:
            self.history.append(command)
        wants_code = command.endswith(EXIT_MARKER)
        body = command.removesuffix(EXIT_MARKER)
        replayed = self.replies.get(body.strip())
        result = ShellResult(replayed.body, replayed.code) if replayed is not None else self._run_line(body)
        if wants_code:
            return ShellResult(result.output + f"X4EXIT:{result.code}\n".encode(), result.code)
        return result

    def _run_line(self, body: str) -> ShellResult:
        """Commands joined by ``&&`` (the next runs only after a success) and ``;``, in turn."""
        try:
            lexer = shlex.shlex(body, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            return ShellResult(b"/system/bin/sh: syntax error: unterminated quoted string\n", 2)
        output, code, argv, joiner = b"", 0, [], ";"
        for token in [*tokens, ";"]:
            if token not in (";", "&&"):
                argv.append(token)
                continue
            if joiner == ";" or code == 0:
                result = self._pipeline(argv, code)
                output, code = output + result.output, result.code
            argv, joiner = [], token
        return ShellResult(output, code)

    def _pipeline(self, argv: list[str], code: int) -> ShellResult:
        """``A | grep …``: each command after a ``|`` reads the one before (see :mod:`sim.adb_pipes`)."""

        def run(words: list[str], prior: int) -> tuple[bytes, int]:
            words = _without_assignments(words)
            result = self._dispatch(words) if words else ShellResult(b"", prior)
            return result.output, result.code

        return ShellResult(*pipeline(argv, code, run))

    def programs(self) -> tuple[str, ...]:
        """The programs this shell runs (``which`` finds them), the streaming ones included."""
        return (*self._table(), "sh", "screenrecord")

    def _table(self) -> dict[str, Callable[[list[str]], ShellResult]]:
        return {
            "md5sum": self._md5sum,
            "md5": self._md5sum,
            "monkey": self._monkey,
            "am": self._am,
            "pm": self._pm,
            "cmd": self._cmd,
            "dumpsys": self._dumpsys,
            "wm": self._wm,
            "getprop": self._getprop,
            "ime": self._ime,
            "settings": self._settings,
            "input": self._input,
            "ps": self._ps,
            "kill": self._kill,
            "pidof": lambda args: ShellResult(*pidof(args, self.processes())),
            "grep": lambda args: ShellResult(*grep(args, b"")),
            # screencap -p writes the frame as an RGBA_8888 PNG (frameworks/base cmds/screencap/
            # screencap.cpp); adbutils' screenshot() converts RGBA to RGB for that reason.
            "screencap": lambda args: ShellResult(self.device.screenshot_png(alpha=True)),
            "chmod": lambda args: ShellResult(b""),
            **self.commands.table(),
        }

    def _dispatch(self, argv: list[str]) -> ShellResult:
        name = argv[0].rsplit("/", 1)[-1]
        if name == "toybox" and len(argv) > 1:
            return self._dispatch(argv[1:])
        handler = self._table().get(name)
        if handler is None:
            return ShellResult(f"/system/bin/sh: {name}: inaccessible or not found\n".encode(), 127)
        return handler(argv)

    @staticmethod
    def _text(text: str, code: int = 0) -> ShellResult:
        return ShellResult(text.encode("utf-8"), code)

    # --- packages and apps ------------------------------------------------------------------

    def packages(self) -> list[str]:
        """Every installed package: the simulated apps, the launcher and the system packages."""
        return sorted({*self.device.installed_apps(), self.device.launcher, *SYSTEM_PACKAGES})

    def _md5sum(self, argv: list[str]) -> ShellResult:
        lines, code = [], 0
        for path in argv[1:]:
            entry = self.files.get(path)
            if entry is None:
                lines.append(f"md5sum: {path}: No such file or directory")
                code = 1
            else:
                lines.append(f"{entry.md5}  {path}")
        return self._text("\n".join(lines) + "\n", code)

    def _am(self, argv: list[str]) -> ShellResult:
        """``am force-stop PKG``, ``am start`` (see :func:`sim.adb_am.am_start`) and ``am
        broadcast`` (the input methods' actions, :mod:`sim.adb_ime`)."""
        verb = argv[1] if len(argv) > 1 else ""
        scanned = state_am(self, argv)  # the media scanner's broadcast (sim.adb_state)
        if scanned is not None:
            return scanned
        if verb == "force-stop" and len(argv) > 2:
            self.device.terminate(argv[-1])
            return ShellResult(b"")
        if verb in ("start", "start-activity"):
            return self._text(*am_start(self.device, self.profile, argv))
        if verb == "broadcast":
            action, extras = broadcast_extras(argv)
            return self._text(self.input_methods.broadcast(action, extras))
        return self._text(f"Error: unknown command '{verb}'\n", 255)

    def _monkey(self, argv: list[str]) -> ShellResult:
        return self._text(*monkey(self.device, argv))

    def _pm(self, argv: list[str]) -> ShellResult:
        verb = argv[1] if len(argv) > 1 else ""
        if verb == "list" and argv[2:3] == ["users"]:
            return self._text(list_users(self.device.users))
        refused = list_packages_refusal(self.device.users)
        if verb == "list" and argv[2:3] == ["packages"] and refused and "--user" not in argv:
            return self._text(refused, 255)
        if verb == "list" and argv[2:3] == ["packages"]:
            words = [a for a in argv[3:] if a and not a.startswith("-")]
            wanted = words[-1] if words else ""
            return self._text("".join(f"package:{p}\n" for p in self.packages() if wanted in p))
        if verb == "path" and len(argv) > 2:
            package = argv[2]
            if package not in self.packages():
                return ShellResult(b"", 1)  # nothing printed, exit 1 (flutter PR #3840; not collected)
            return self._text(
                f"package:/data/app/~~{_hex(package)}==/{package}-{_hex(package[::-1])}==/base.apk\n"
            )
        if verb == "clear" and len(argv) > 2:
            # pm answers "Success" (exit 0) when it cleared the package, "Failed" with exit 1 when it
            # could not (no such package): an Android 15 emulator's answers,
            # tests/fixtures/real/android/emulator-a15-api35-pm-clear-success-failed-exit-codes.txt.
            if argv[-1] not in self.device.apps:
                return self._text("Failed\n", 1)
            self.device.clear_state(argv[-1])
            return self._text("Success\n")
        if verb in ("grant", "revoke"):
            return self._text(*pm_grant(self.device, argv))
        return self._text(f"Unknown command: {verb}\n", 255)

    def _cmd(self, argv: list[str]) -> ShellResult:
        played = state_cmd(self, argv)  # airplane mode and night mode (sim.adb_state)
        if played is not None:
            return played
        if argv[1:2] == ["statusbar"] and argv[2:3] in (
            ["expand-notifications"],
            ["expand-settings"],
            ["collapse"],
        ):
            # SystemUI's shell command (an API 34 emulator's shade was pulled down with
            # `cmd statusbar expand-notifications`, kaeawc/auto-mobile#6078); it prints nothing.
            verb = argv[2]
            if verb == "collapse":
                self.device.close_shade()
            else:
                self.device.pull_shade("notifications" if verb == "expand-notifications" else "controls")
            return ShellResult(b"")
        if argv[1:3] == ["package", "resolve-activity"] and "android.intent.category.HOME" in argv:
            return self._text(
                "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
                f"{self.device.launcher}/{short_activity(self.device.launcher, LAUNCHER_ACTIVITY)}\n"
            )
        return self._text(f"cmd: Can't find service: {argv[1] if len(argv) > 1 else ''}\n", 255)

    # --- dumpsys ----------------------------------------------------------------------------

    def _dumpsys(self, argv: list[str]) -> ShellResult:
        service, args = (argv[1] if len(argv) > 1 else ""), argv[2:]
        profile = self.profile
        if service == "window":
            section = args[0] if args else ""
            if section in ("windows", "w"):
                return self._text(windows_dump(self.device, profile))
            if section in ("displays", "d"):
                return self._text(displays_dump(self.device, profile))
            if section in ("policy", "p"):
                return self._text(policy_dump(self.device))
            return self._text(window_dump(self.device, profile))
        if service == "activity" and args[:1] == ["top"]:
            return self._text(activity_top(self.device, profile))
        if service == "activity":
            return self._text(activities_dump(self.device, profile))
        if service == "input_method":
            # The line tools grep for (e.g. yonadev/yona-app-android's checkUIKeyboard quotes a real
            # one: "mShowRequested=true mShowExplicitlyRequested=false mShowForced=false mInputShown=true").
            shown = str(self.device.keyboard_shown()).lower()
            return self._text(
                "Input method client state for IInputMethodClientInvoker:\n"
                f"  mShowRequested={shown} mShowExplicitlyRequested=false mShowForced=false "
                f"mInputShown={shown}\n"
            )
        if service == "display":
            width, height = self.device.window_size
            return self._text(
                "DISPLAY MANAGER (dumpsys display)\n"
                f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
                f"uniqueId='local:4619827259835644672', physicalPort=0, orientation={self.device.rotation}, "
                f"logicalFrame=Rect(0, 0 - {width}, {height}), physicalFrame=Rect(0, 0 - {width}, {height}), "
                f"deviceWidth={width}, deviceHeight={height}}}]\n"
            )
        if service == "package" and args:
            return self._package_info(args[-1])
        if service == "battery":
            return self._text(self.commands.battery())
        if service == "power":
            on = str(self.device.screen_on).lower()
            awake = "Awake" if self.device.screen_on else "Asleep"
            return self._text(
                "POWER MANAGER (dumpsys power)\n"
                f"  mWakefulness={awake}\n  mHoldingDisplaySuspendBlocker={on}\n"
            )
        if service == "SurfaceFlinger":
            return self._text(
                'Display 4619827259835644672 (HWC display 0): port=0 displayName="EMU_display_0"\n'
            )
        return self._text(f"Can't find service: {service}\n")

    def _package_info(self, package: str) -> ShellResult:
        if package not in self.packages():
            return self._text(f"Unable to find package: {package}\n")
        return self._text(
            "Packages:\n"
            f"  Package [{package}] ({_hex(package)}):\n"
            "    userId=10123\n"
            "    versionCode=34 minSdk=26 targetSdk=34\n"
            "    versionName=14\n"
            "    firstInstallTime=2024-01-01 00:00:00\n"
            "    lastUpdateTime=2024-01-01 00:00:00\n"
            f"    signatures=PackageSignatures{{{_hex(package)} version:3, "
            f"signatures:[{_hex(package[::-1])}], past signatures:[]}}\n"
            "    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
            + (permission_blocks(self.device, package) if package in self.device.apps else "")
        )

    # --- system -----------------------------------------------------------------------------

    def _wm(self, argv: list[str]) -> ShellResult:
        if argv[1:2] == ["size"]:  # the panel's size, whichever way the screen is turned
            width, height = self.device.portrait_size
            return self._text(f"Physical size: {width}x{height}\n")
        if argv[1:2] == ["density"]:
            return self._text("Physical density: 420\n")
        if argv[1:2] == ["dismiss-keyguard"]:  # appium-adb's dismissKeyguard on API 22+; no PIN here
            self.device.unlock()
            return ShellResult(b"")
        return self._text(f"Unknown command: {' '.join(argv[1:])}\n", 255)

    def properties(self) -> dict[str, str]:
        dev = self.device
        return {
            "ro.serialno": dev.device_id,
            "ro.build.version.sdk": str(self.profile.api),
            "ro.build.version.release": dev.os_version,
            "ro.build.characteristics": "emulator",
            "ro.product.model": dev.model,
            "ro.product.name": dev.model,
            "ro.product.device": "emu64x",
            "ro.product.brand": "google",
            "ro.product.manufacturer": "Google",
            "ro.product.cpu.abi": "x86_64",
            "sys.boot_completed": "1",
        }

    def _getprop(self, argv: list[str]) -> ShellResult:
        """``getprop KEY`` prints the value alone (an empty line when unset), ``getprop`` every
        property as ``[key]: [value]`` (``pixel8-shiba-…``, ``androidtv-chromecast-…``)."""
        props = self.properties()
        if len(argv) > 1:
            return self._text(props.get(argv[1], "") + "\n")
        return self._text("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))

    def _ime(self, argv: list[str]) -> ShellResult:
        """``ime list|enable|disable|set`` (see :mod:`sim.adb_ime`)."""
        output, code = self.input_methods.ime(argv)
        return self._text(output, code)

    def _settings(self, argv: list[str]) -> ShellResult:
        kept = state_settings(self, argv)  # what the device keeps itself (sim.adb_state)
        if kept is not None:
            return kept
        played = self.commands.settings_command(argv) if argv[2:3] != ["secure"] else None
        if played is not None:
            return played
        if argv[1:4] == ["get", "secure", "default_input_method"]:
            return self._text(self.input_methods.current + "\n")
        if argv[1:4] == ["put", "secure", "default_input_method"] and len(argv) > 4:
            self.input_methods.put_default(argv[4])
            return ShellResult(b"")
        if argv[1:2] == ["get"]:
            return self._text("null\n")
        return ShellResult(b"")

    def _input(self, argv: list[str]) -> ShellResult:
        verb, args = (argv[1] if len(argv) > 1 else ""), argv[2:]
        try:
            if verb == "tap" and len(args) >= 2:
                self.device.tap(float(args[0]), float(args[1]))
            elif verb in ("swipe", "draganddrop") and len(args) >= 4:
                # input swipe x1 y1 x2 y2 [ms]: the command returns when the gesture is over
                self.device.hold(float(args[4]) / 1000 if len(args) > 4 else 0.3)
                self.device.swipe(*(float(a) for a in args[:4]))
            elif verb == "text" and args:
                self.device.type_text(args[0].replace("%s", " "))
            elif verb == "keyevent" and args:
                # `input keyevent` takes several key codes (Input.java's sendKeyEvent per code).
                codes = [a for a in args if not a.startswith("--")]
                for code in codes:
                    key = code.upper().removeprefix("KEYCODE_")
                    name = _KEYCODES.get(key, key.lower())
                    if name in (
                        "home",
                        "back",
                        "enter",
                        "menu",
                        "recent",
                        "volume_up",
                        "volume_down",
                        "power",
                    ):
                        self.device.press(name)
                    elif (
                        name == "escape"
                    ):  # KEYCODE_ESCAPE: the IME hides, as appium-android-driver relies on
                        self.device.hide_keyboard()
                    elif name == "del":  # KEYCODE_DEL: the caret's previous character goes
                        self.device.erase_text(1)
            else:
                return self._text(f"Error: Unknown command: {verb}\n", 1)
        except ValueError:
            return self._text(f"Error: Invalid arguments for command: {verb}\n", 1)
        return ShellResult(b"")

    def processes(self) -> list[tuple[str, int, str]]:
        """(user, pid, name) of the processes ``ps`` lists: the launcher, System UI, each running app
        (its pid changes when it is started again) and the uiautomator2 server (``app_process``, run
        by ``shell``) while it runs."""
        launcher = self.device.launcher
        rows = [("u0_a98", pid_of(self.device, launcher), launcher)]
        rows.append(("u0_a97", pid_of(self.device, ANDROID_SYSTEMUI), ANDROID_SYSTEMUI))
        for package in self.device.running_apps():
            if package in (launcher, ANDROID_SYSTEMUI):
                continue
            pid = self.device.pid_of(package)
            if pid is not None:
                rows.append((f"u0_a{100 + zlib.crc32(package.encode()) % 200}", pid, package))
        server = self.server_pid() if self.server_pid is not None else None
        if server is not None:
            rows.append(("shell", server, "app_process"))
        return rows

    def _ps(self, argv: list[str]) -> ShellResult:
        """toybox ps: ``-u USER[,USER]`` keeps those users' processes, ``-p PID[,PID]`` those pids; ``-A``
        (all) is the default here."""
        users: set[str] | None = None
        pids: set[str] | None = None
        if "-u" in argv[1:-1]:
            users = set(argv[argv.index("-u") + 1].split(","))
        if "-p" in argv[1:-1]:  # -p PID[,PID]: those processes only
            pids = set(argv[argv.index("-p") + 1].split(","))
        rows = ["USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME"]
        for user, pid, name in self.processes():
            if (users is None or user in users) and (pids is None or str(pid) in pids):
                rows.append(f"{user:<8} {pid:>10}   345   14567892 123456 0                   0 S {name}")
        return self._text("\n".join(rows) + "\n")

    def _kill(self, argv: list[str]) -> ShellResult:
        """``kill [-SIG] PID…``: the process ends (an app is stopped; the uiautomator2 server exits)."""
        by_pid = {pid: name for _, pid, name in self.processes()}
        errors = []
        for word in argv[1:]:
            if word.startswith("-"):
                continue
            name = by_pid.get(int(word)) if word.isdigit() else None
            if name is None:
                errors.append(f"kill: pid {word}: No such process")
            elif name == "app_process" and self.on_server_kill is not None:
                self.on_server_kill()
            elif name in self.device.running_apps():
                self.device.terminate(name)
        return self._text("".join(e + "\n" for e in errors), 1 if errors else 0)


def md5_entry(data: bytes) -> FileEntry:
    """A :class:`FileEntry` holding ``data``."""
    return entry_for(data)
