"""The one way a generated block of a Markdown file is rewritten from the code: between
``<!-- BEGIN GENERATED: name (command) -->`` and ``<!-- END GENERATED: name -->``. Every generated
reference (docs/flows.md's commands, docs/planners.md's actions and tools) uses it, with a command
line of ``--write FILE`` / ``--check FILE``; a test runs each check, so no doc drifts from the code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = ["replace_generated", "write_or_check"]


def replace_generated(text: str, blocks: Mapping[str, Callable[[], str]], command: str) -> str:
    """``text`` with each named generated block replaced by what its function makes now."""
    for name, make in blocks.items():
        begin = f"<!-- BEGIN GENERATED: {name} ({command}) -->"
        end = f"<!-- END GENERATED: {name} -->"
        head, found, rest = text.partition(begin)
        if not found:
            raise ValueError(f"the marker {begin!r} is missing")
        _old, found, tail = rest.partition(end)
        if not found:
            raise ValueError(f"the marker {end!r} is missing")
        text = f"{head}{begin}\n\n{make()}\n{end}{tail}"
    return text


def write_or_check(
    argv: Sequence[str] | None, prog: str, blocks: Mapping[str, Callable[[], str]], command: str
) -> int:
    """The command line every generated reference shares: ``--write FILE`` or ``--check FILE``."""
    parser = argparse.ArgumentParser(
        prog=prog, description=f"rewrite or check the generated blocks ({command})"
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", help="rewrite the generated blocks of FILE")
    group.add_argument("--check", metavar="FILE", help="exit 1 when FILE's generated blocks are stale")
    args = parser.parse_args(argv)
    path = Path(args.write or args.check)
    text = path.read_text(encoding="utf-8")
    fresh = replace_generated(text, blocks, command)
    if args.write:
        path.write_text(fresh, encoding="utf-8")
        return 0
    if fresh != text:
        sys.stderr.write(f"{path} is stale: run {command}\n")
        return 1
    return 0
