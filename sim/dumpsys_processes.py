"""``dumpsys activity processes``: the activity manager's process records, as Appium's
``listAppProcessIds`` reads them (``ProcessRecord{HASH PID:PACKAGE/u0aNN}``, appium-adb
``app-commands.js``).

The layout follows ``ActivityManagerService.dumpProcessesLocked`` (frameworks/base): a heading, each
app process's ``*APP* UID N ProcessRecord{…}`` line under ``All known processes:``, then the
``PID mappings:``. Only those lines are printed (a phone prints many more per process); the rows
are the shell's own process list (:meth:`sim.adb_shell.AndroidShell.processes`), so ``ps`` and
this dump agree.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

__all__ = ["processes_dump"]


def _uid(user: str) -> int | None:
    """10000 + N for an app user ``u0_aN``; None for ``shell``, ``system`` …"""
    return 10000 + int(user[4:]) if user.startswith("u0_a") and user[4:].isdigit() else None


def processes_dump(rows: Iterable[tuple[str, int, str]]) -> str:
    """The dump for (user, pid, name) process rows; processes of no app user are left out."""
    records = []
    for user, pid, name in rows:
        uid = _uid(user)
        if uid is not None:
            record = (
                f"ProcessRecord{{{zlib.crc32(f'{pid}{name}'.encode()):07x} {pid}:{name}/u0a{uid - 10000}}}"
            )
            records.append((uid, pid, record))
    lines = ["ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)", "  All known processes:"]
    lines += [f"  *APP* UID {uid} {record}" for uid, _, record in records]
    lines.append("  PID mappings:")
    lines += [f"    PID #{pid}: {record}" for _, pid, record in sorted(records, key=lambda r: r[1])]
    return "\n".join(lines) + "\n"
