"""Two of toybox's programs the clients' own tests pipe into or call on a phone, for
:class:`~sim.adb_shell.AndroidShell`: ``pidof`` and ``grep`` (alone or after a ``|``).

- ``pidof NAME…`` (toybox ``toys/lsb/pidof.c``, on Android since 6.0) prints the pids of the
  processes of that name, the newest first, on one line separated by spaces, and exits 1 when none
  runs (printing nothing). ``-s`` prints one pid only.
- ``CMD | grep [-v] [-i] [-F|-E] [-c] [-q] [-e] PATTERN`` (toybox ``toys/posix/grep.c``) keeps the
  lines of ``CMD``'s output that match (``-v``: that do not), exits 1 when no line is kept and 2 for
  a pattern that does not compile (``grep: bad REGEX``); a command after a ``|`` other than
  ``grep`` runs with its input ignored. Not played: pipes into anything else, grep's other options.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["grep", "pidof", "pipeline"]


def pipeline(
    argv: list[str], code: int, run: Callable[[list[str], int], tuple[bytes, int]]
) -> tuple[bytes, int]:
    """(output, exit code) of ``argv`` split at its ``|`` words: ``run`` runs each command (given the
    exit code before it), a ``grep`` after a ``|`` reads the output of the command before it."""
    stages: list[list[str]] = [[]]
    for token in argv:
        if token == "|":
            stages.append([])
        else:
            stages[-1].append(token)
    output = b""
    for number, stage in enumerate(stages):
        if number and stage[:1] == ["grep"]:
            output, code = grep(stage, output)
        else:
            output, code = run(stage, code)
    return output, code


def pidof(argv: list[str], processes: Iterable[tuple[str, int, str]]) -> tuple[bytes, int]:
    """(output, exit code) of ``pidof`` over ``processes`` as (user, pid, name)."""
    single = "-s" in argv[1:]
    names = [a for a in argv[1:] if not a.startswith("-")]
    pids = [pid for _, pid, name in sorted(processes, key=lambda p: -p[1]) if name in names]
    if single:
        pids = pids[:1]
    if not pids:
        return b"", 1
    return (" ".join(str(p) for p in pids) + "\n").encode(), 0


def grep(argv: list[str], stdin: bytes) -> tuple[bytes, int]:
    """(output, exit code) of ``grep`` reading ``stdin``."""
    flags: set[str] = set()
    pattern: str | None = None
    words = argv[1:]
    k = 0
    while k < len(words):
        word = words[k]
        if word == "-e" and k + 1 < len(words):
            pattern = words[k + 1]
            k += 2
            continue
        if word.startswith("-") and len(word) > 1 and pattern is None:
            flags.update(word[1:])
        elif pattern is None:
            pattern = word
        k += 1
    if pattern is None:
        return b"usage: grep [-EFHIabchilnoqrsvwxZz] [-ABCm NUM] [-f REGEX]... [-e REGEX]... REGEX\n", 2
    text = re.escape(pattern) if "F" in flags else pattern
    try:
        matcher = re.compile(text.encode("utf-8", "replace"), re.IGNORECASE if "i" in flags else 0)
    except re.error:
        return f"grep: bad REGEX '{pattern}'\n".encode(), 2
    kept = [
        line
        for line in stdin.splitlines(keepends=True)
        if (matcher.search(line) is not None) != ("v" in flags)
    ]
    code = 0 if kept else 1
    if "q" in flags:
        return b"", code
    if "c" in flags:
        return f"{len(kept)}\n".encode(), code
    return b"".join(kept), code
