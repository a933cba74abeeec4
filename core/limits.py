"""Bounds every input is held to before it is used: how deep and how big a structure from outside
may be, and how much of a value a message may quote.

A step's arguments come from outside (a model's reply, an MCP client, the inspector's page): they
are checked by :func:`check_structure` before anything walks them, so no recursive walk (the world
model's freezing, JSON conversion, the redactor) can run out of stack on them. The walk here is
iterative. :func:`quote` is the one way a message shows a value it refuses: cut, with its length.

Text from outside (a device's bundle id or screen text, a model's rationale, a server's error) may
carry terminal control sequences that clear the screen, retitle the window, move the cursor back
over a line or reorder what is shown (bidirectional overrides). :func:`visible` is the one rule by
which such text reaches a terminal: every control character becomes its ``\\uXXXX`` escape, which
is also what JSON writes, so a JSON line stays JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "MAX_ARGUMENT_ITEMS",
    "MAX_QUOTED",
    "check_structure",
    "one_line",
    "quote",
    "visible",
]

MAX_ARGUMENT_DEPTH = 4  # a step's arguments object, a selector in it, a value in that (and one spare)
MAX_ARGUMENT_ITEMS = 1000  # values in one step's arguments, at every level together
MAX_QUOTED = 60  # characters of a refused value a message shows


def quote(value: Any, limit: int = MAX_QUOTED) -> str:
    """``repr(value)`` of at most ``limit`` characters of it, saying how long it was when cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(value) if isinstance(value, str) else text
    return f"{text[:limit]!r}… ({len(text)} characters)"


def check_structure(
    value: Any, *, depth: int = MAX_ARGUMENT_DEPTH, items: int = MAX_ARGUMENT_ITEMS
) -> str | None:
    """What is wrong with ``value``'s shape (nested deeper than ``depth`` levels of mappings and
    lists, or more than ``items`` values in all), or None. Never recursive."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        current, level = stack.pop()
        seen += 1
        if isinstance(current, Mapping):
            children: Any = current.values()
        elif isinstance(current, list | tuple):
            children = current
        else:
            continue
        if level > depth:
            return f"nested more than {depth} levels deep"
        if seen + len(stack) + len(children) > items:
            return f"more than {items} values"
        stack.extend((child, level + 1) for child in children)
    return None


# C0 and C1 controls, DEL, and the format characters that reorder or hide text (the bidirectional
# marks, embeddings, overrides and isolates; zero-width characters; the line and paragraph separators).
_FORMAT = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_CONTROL = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_FORMAT}]")
_CONTROL_NOT_NEWLINE = re.compile(_CONTROL.pattern.replace("\x0a-\x1f", "\x0b-\x1f"))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def visible(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control character written as ``\\uXXXX`` (tabs kept; newlines kept
    unless ``newlines`` is False), so a terminal shows it instead of obeying it."""
    return (_CONTROL_NOT_NEWLINE if newlines else _CONTROL).sub(_escape, text)


def one_line(text: str) -> str:
    """``text`` for one line of a terminal: :func:`visible`, newlines included."""
    return visible(text, newlines=False)
