"""WebDriverAgent's routes, enumerated from its source: ``python -m tests.peers.wda_route_list GIT_DIR TAG``.

Reads every ``WebDriverAgentLib/Commands/*.m`` of an appium/WebDriverAgent git directory at
``TAG`` and prints one line per route an iOS build registers: method, path (WDA's ``:uuid``
placeholders kept), ``session`` or ``no-session`` (``.withoutSession``), and the file. Routes inside
``#if TARGET_OS_TV`` (or the ``#else`` of ``#if !TARGET_OS_TV``) are left out, as are the
catch-all ``/*`` routes of ``FBUnknownCommands`` and ``OPTIONS /*``; a route registered twice is
listed once. ``tests/fixtures/wda/routes-<TAG>.tsv`` is this script's output; the WDA face's
tests check it serves every line.
"""

from __future__ import annotations

import re
import subprocess
import sys

__all__ = ["routes"]

_ROUTE = re.compile(r'FBRoute\s+(GET|POST|DELETE|PUT|OPTIONS)\s*:\s*@"([^"]*)"\s*\]\s*(\.withoutSession)?')
_IF = re.compile(r"^\s*#\s*if(?:def|ndef)?\b(.*)")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], capture_output=True, text=True, check=True
    ).stdout


def _ios_lines(source: str) -> list[str]:
    """The lines an iOS build compiles (TARGET_OS_TV false, every other condition taken as true)."""
    kept: list[str] = []
    stack: list[tuple[bool, bool]] = []  # (this branch compiles, the #if was about TARGET_OS_TV)
    for line in source.splitlines():
        found = _IF.match(line)
        stripped = line.strip()
        if found is not None:
            condition = found.group(1)
            about_tv = "TARGET_OS_TV" in condition
            active = ("!" in condition) if about_tv else True
            stack.append((active, about_tv))
            continue
        if stripped.startswith("#else") and stack:
            active, about_tv = stack[-1]
            stack[-1] = ((not active) if about_tv else active, about_tv)
            continue
        if stripped.startswith("#endif") and stack:
            stack.pop()
            continue
        if all(active for active, _ in stack):
            kept.append(line)
    return kept


def routes(git_dir: str, tag: str) -> list[tuple[str, str, str, str]]:
    """(method, path, session, file) for every iOS route of WebDriverAgent at ``tag``."""
    files = _git(git_dir, "ls-tree", "--name-only", tag, "WebDriverAgentLib/Commands/").split()
    found: dict[tuple[str, str, str], str] = {}
    for name in sorted(f for f in files if f.endswith(".m")):
        source = "\n".join(_ios_lines(_git(git_dir, "show", f"{tag}:{name}")))
        for match in _ROUTE.finditer(source):
            method, path, without = match.groups()
            if path.endswith("/*"):
                continue
            key = (method, path, "no-session" if without else "session")
            found.setdefault(key, name.rsplit("/", 1)[-1])
    return [(*key, file) for key, file in found.items()]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    git_dir, tag = argv
    source = "WebDriverAgentLib/Commands/*.m (tests/peers/wda_route_list.py)"
    print(f"# WebDriverAgent {tag}: iOS routes from {source}")
    print("# method\tpath\tsession\tfile")
    for row in routes(git_dir, tag):
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
