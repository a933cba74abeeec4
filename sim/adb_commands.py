"""More of a simulated Android phone's shell: the files, the system settings, the log and the
commands adbutils' helpers run (see :mod:`sim.adb_shell` for the rest).

Each answer is modelled on what toybox, ``settings``, ``svc``, ``log``/``logcat``, ``uiautomator``
and ``dumpsys battery`` print on an emulator (Android 10-15): ``echo`` takes ``-n`` (toybox echo),
``pwd`` of ``adb shell`` is ``/``, ``sleep`` sleeps (bounded by :data:`MAX_SLEEP`), ``false``
exits 1, ``ls`` lists a folder one name a line, ``settings get`` prints ``null`` for a key never
set, ``log -p i -t TAG msg`` goes to the log that ``logcat -v time`` prints as
``MM-DD HH:MM:SS.mmm I/TAG( PID): msg``, ``uiautomator dump PATH`` writes the window hierarchy
there and prints ``UI hierchary dumped to: PATH`` (uiautomator's own misspelling, as adbutils and
uiautomator2 expect), ``ifconfig wlan0`` prints the emulator's ``inet addr:10.0.2.16``, and
``dumpsys battery`` the keys adbutils' ``battery()`` reads. Not played: the audio, radio and
network stacks behind ``svc`` (it changes the setting it names and nothing else).
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from .adb_files import entry_for
from .adb_result import ShellResult
from .render_android import render_hierarchy

if TYPE_CHECKING:
    from .adb_shell import AndroidShell

__all__ = ["MAX_SLEEP", "PhoneCommands"]

MAX_SLEEP = 60.0
_LOG_LINES = 5000
# Settings a fresh emulator answers (settings get …), by namespace.
_SETTINGS: dict[str, dict[str, str]] = {
    "system": {"screen_brightness": "102", "screen_brightness_mode": "0", "screen_off_timeout": "60000"},
    "global": {"airplane_mode_on": "0", "wifi_on": "1", "adb_enabled": "1", "stay_on_while_plugged_in": "0"},
    "secure": {},
}


class PhoneCommands:
    """The commands of this module for one phone's shell (thread-safe)."""

    def __init__(self, shell: AndroidShell) -> None:
        self.shell = shell
        self.settings = {ns: dict(values) for ns, values in _SETTINGS.items()}
        self.log: collections.deque[str] = collections.deque(maxlen=_LOG_LINES)
        self.logged = threading.Condition()
        self.screen_on = True

    def table(self) -> dict[str, Callable[[list[str]], ShellResult]]:
        return {
            "echo": self.echo,
            "pwd": lambda argv: self._ok("/\n"),
            "sleep": self.sleep,
            "false": lambda argv: self._ok("", 1),
            "true": lambda argv: self._ok(""),
            "ls": self.ls,
            "mkdir": self.mkdir,
            "rm": self.rm,
            "touch": self.touch,
            "cat": self.cat,
            "log": self.log_line,
            "logcat": self.logcat,
            "uiautomator": self.uiautomator,
            "svc": self.svc,
            "ifconfig": self.ifconfig,
            "ip": self.ip,
            "which": self.which,
            "sh": self.sh,
        }

    def _ok(self, text: str, code: int = 0) -> ShellResult:
        return ShellResult(text.encode("utf-8"), code)

    # --- text and time ----------------------------------------------------------------------

    def echo(self, argv: list[str]) -> ShellResult:
        args = argv[1:]
        newline = "\n"
        if args[:1] == ["-n"]:
            args, newline = args[1:], ""
        return self._ok(" ".join(args) + newline)

    def sleep(self, argv: list[str]) -> ShellResult:
        try:
            seconds = float(argv[1]) if len(argv) > 1 else -1.0
        except ValueError:
            seconds = -1.0
        if seconds < 0:
            return self._ok(f"sleep: invalid number '{argv[1] if len(argv) > 1 else ''}'\n", 1)
        time.sleep(min(seconds, MAX_SLEEP))
        return self._ok("")

    # --- files ------------------------------------------------------------------------------

    def ls(self, argv: list[str]) -> ShellResult:
        paths = [a for a in argv[1:] if not a.startswith("-")] or ["/"]
        out, code = [], 0
        for path in paths:
            rows = self.shell.files.listdir(path)
            if rows is None and path in self.shell.files:
                out.append(path)
            elif rows is None:
                out.append(f"ls: {path}: No such file or directory")
                code = 1
            else:
                out.extend(name for name, *_ in rows)
        return self._ok("".join(line + "\n" for line in out), code)

    def mkdir(self, argv: list[str]) -> ShellResult:
        parents = "-p" in argv[1:]
        errors = [
            e for p in argv[1:] if not p.startswith("-") and (e := self.shell.files.mkdir(p, parents=parents))
        ]
        return self._ok("".join(e + "\n" for e in errors), 1 if errors else 0)

    def rm(self, argv: list[str]) -> ShellResult:
        flags = "".join(a[1:] for a in argv[1:] if a.startswith("-"))
        recursive, force = "r" in flags.lower(), "f" in flags
        errors = [
            e
            for p in argv[1:]
            if not p.startswith("-") and (e := self.shell.files.remove(p, recursive=recursive, force=force))
        ]
        return self._ok("".join(e + "\n" for e in errors), 1 if errors else 0)

    def touch(self, argv: list[str]) -> ShellResult:
        errors = [e for p in argv[1:] if not p.startswith("-") and (e := self.shell.files.touch(p))]
        return self._ok("".join(e + "\n" for e in errors), 1 if errors else 0)

    def cat(self, argv: list[str]) -> ShellResult:
        out, code = b"", 0
        for path in argv[1:]:
            entry = self.shell.files.get(path)
            if entry is None or entry.data is None:
                out += f"cat: {path}: No such file or directory\n".encode()
                code = 1
            else:
                out += entry.data
        return ShellResult(out, code)

    # --- the log ----------------------------------------------------------------------------

    def log_line(self, argv: list[str]) -> ShellResult:
        """``log [-p PRIORITY] [-t TAG] MESSAGE``: a line in the main log buffer."""
        priority, tag, words, i = "I", "log", [], 1
        while i < len(argv):
            if argv[i] in ("-p", "-t") and i + 1 < len(argv):
                if argv[i] == "-p":
                    priority = argv[i + 1][:1].upper()
                else:
                    tag = argv[i + 1]
                i += 2
                continue
            words.append(argv[i])
            i += 1
        stamp = datetime.now().strftime("%m-%d %H:%M:%S.%f")[:-3]
        with self.logged:
            self.log.append(f"{stamp} {priority}/{tag}( 4242): {' '.join(words)}\n")
            self.logged.notify_all()
        return self._ok("")

    def logcat(self, argv: list[str]) -> ShellResult:
        """``logcat -c``/``--clear`` empties the log; ``logcat -d`` prints it (the streaming form,
        without ``-d``, is served by the adb face, which keeps the stream open)."""
        if "-c" in argv or "--clear" in argv:
            with self.logged:
                self.log.clear()
            return self._ok("")
        with self.logged:
            return self._ok("".join(self.log))

    # --- system -----------------------------------------------------------------------------

    def settings_command(self, argv: list[str]) -> ShellResult | None:
        """``settings get|put|delete NAMESPACE KEY [VALUE]``; None for what :mod:`sim.adb_shell` answers."""
        if len(argv) < 4 or argv[1] not in ("get", "put", "delete") or argv[2] not in self.settings:
            return None
        values = self.settings[argv[2]]
        if argv[1] == "get":
            return self._ok(values.get(argv[3], "null") + "\n")
        if argv[1] == "put" and len(argv) > 4:
            values[argv[3]] = argv[4]
            return self._ok("")
        values.pop(argv[3], None)
        return self._ok("Deleted 1 rows\n")

    def svc(self, argv: list[str]) -> ShellResult:
        names = {"wifi": ("global", "wifi_on"), "data": ("global", "mobile_data")}
        if len(argv) > 2 and argv[1] in names and argv[2] in ("enable", "disable"):
            namespace, key = names[argv[1]]
            self.settings[namespace][key] = "1" if argv[2] == "enable" else "0"
            return self._ok("")
        if len(argv) > 2 and argv[1] == "power" and argv[2] == "stayon":
            return self._ok("")
        return self._ok(f"Unknown command '{' '.join(argv[1:2])}'\n", 1)

    def ifconfig(self, argv: list[str]) -> ShellResult:
        """The emulator's interfaces: wlan0 has 10.0.2.16 while Wi-Fi is on (as ``ifconfig`` on an
        API 30+ emulator prints it), eth0 none."""
        name = argv[1] if len(argv) > 1 else "wlan0"
        if name == "wlan0" and self.settings["global"].get("wifi_on") == "1":
            return self._ok(
                "wlan0     Link encap:UNSPEC    Driver mac80211_hwsim\n"
                "          inet addr:10.0.2.16  Bcast:10.0.2.255  Mask:255.255.255.0 \n"
                "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n"
            )
        if name in ("wlan0", "eth0", "lo"):
            return self._ok(f"{name}: Cannot assign requested address\n" if name != "lo" else "lo ...\n", 1)
        return self._ok(f"ifconfig: {name}: No such device\n", 1)

    def ip(self, argv: list[str]) -> ShellResult:
        if "wlan0" in argv and self.settings["global"].get("wifi_on") == "1":
            return self._ok(
                "3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default "
                "qlen 1000\n"
                "    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0\n"
            )
        return self._ok("")

    def sh(self, argv: list[str]) -> ShellResult:
        """``sh -c COMMAND``: the command line run by this shell (a script file is streamed by the face)."""
        if argv[1:2] == ["-c"] and len(argv) > 2:
            return self.shell.run(argv[2])
        return self._ok("/system/bin/sh: interactive shells are not simulated\n", 1)

    def which(self, argv: list[str]) -> ShellResult:
        known = set(self.shell.programs())
        found = [f"/system/bin/{name}" for name in argv[1:] if name in known]
        return self._ok("".join(f + "\n" for f in found), 0 if len(found) == len(argv[1:]) else 1)

    def uiautomator(self, argv: list[str]) -> ShellResult:
        """``uiautomator dump [PATH]``: the window hierarchy written to PATH (default
        ``/sdcard/window_dump.xml``), and uiautomator's line about it."""
        if argv[1:2] != ["dump"]:
            return self._ok("Usage: uiautomator <subcommand> [options]\n", 1)
        path = next((a for a in argv[2:] if not a.startswith("-")), "/sdcard/window_dump.xml")
        xml = render_hierarchy(self.shell.device.tree(), rotation=self.shell.device.rotation)
        error = self.shell.files.write_entry(path, entry_for(xml.encode("utf-8")))
        if error:
            return self._ok(f"ERROR: could not write to {path}\n", 1)
        return self._ok(f"UI hierchary dumped to: {path}\n")

    def battery(self) -> str:
        """``dumpsys battery`` of an emulator (AC powered, 100 %)."""
        return (
            "Current Battery Service state:\n  AC powered: true\n  USB powered: false\n"
            "  Wireless powered: false\n  Dock powered: false\n  Max charging current: 0\n"
            "  Max charging voltage: 0\n  Charge counter: 10000\n  status: 2\n  health: 2\n"
            "  present: true\n  level: 100\n  scale: 100\n  voltage: 5000\n  temperature: 250\n"
            "  technology: Li-ion\n"
        )
