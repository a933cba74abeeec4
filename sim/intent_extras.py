"""The typed extras of ``am start``, read as AOSP's ``Intent.parseCommandArgs`` reads them.

``--ez KEY BOOL`` (``true``/``t``/``false``/``f``, else ``Integer.decode(v) != 0``), ``--ei KEY INT``
(``Integer.decode``), ``--el KEY LONG`` (``Long.valueOf``), ``--ef KEY FLOAT`` (``Float.valueOf``),
``--ed KEY DOUBLE`` (``Double.valueOf``), ``--es KEY STRING``. A value that does not parse ends am
with ``Exception occurred while executing 'start':`` and the Java exception on the next line, exit
255 (ShellCommand's report of an uncaught exception), and starts nothing. Written from AOSP's
behaviour as documented, not from a capture.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["EXTRA_FLAGS", "ExtraError", "parse_extras"]

_DECIMAL = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|#[0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_FLOATING = re.compile(r"\s*[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?\s*")
_INT = (-(2**31), 2**31 - 1)
_LONG = (-(2**63), 2**63 - 1)


class ExtraError(ValueError):
    """A value am cannot parse: ``str()`` is the Java exception's line."""


def _number(text: str) -> ExtraError:
    return ExtraError(f'java.lang.NumberFormatException: For input string: "{text}"')


def _decode(text: str, bounds: tuple[int, int]) -> int:
    """``Integer.decode`` / ``Long.decode``: decimal, ``0x``/``#`` hex, leading-zero octal."""
    if _DECIMAL.fullmatch(text) is None:
        raise _number(text)
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if body[:2] in ("0x", "0X") or body.startswith("#"):
        value = int(body[2:] if body[0] == "0" else body[1:], 16)
    elif len(body) > 1 and body.startswith("0"):
        value = int(body, 8)
    else:
        value = int(body)
    value *= sign
    if not bounds[0] <= value <= bounds[1]:
        raise _number(text)
    return value


def _long(text: str) -> int:
    """``Long.valueOf``: decimal only."""
    if re.fullmatch(r"[+-]?[0-9]+", text) is None:
        raise _number(text)
    value = int(text)
    if not _LONG[0] <= value <= _LONG[1]:
        raise _number(text)
    return value


def _floating(text: str) -> float:
    if _FLOATING.fullmatch(text) is None:
        raise _number(text)
    return float(text.strip().rstrip("fFdD").replace("Infinity", "inf"))


def _boolean(text: str) -> bool:
    if text in ("true", "t"):
        return True
    if text in ("false", "f"):
        return False
    try:
        return _decode(text, _INT) != 0
    except ExtraError:
        raise ExtraError(f"java.lang.IllegalArgumentException: Invalid boolean value: {text}") from None


EXTRA_FLAGS: dict[str, Callable[[str], object]] = {
    "--ez": _boolean,
    "--ei": lambda text: _decode(text, _INT),
    "--el": _long,
    "--ef": _floating,
    "--ed": _floating,
    "--es": str,
}


def parse_extras(words: Sequence[str]) -> tuple[dict[str, object], list[str]]:
    """The extras among ``words`` (key -> typed value, a later key replacing an earlier one, as a
    Bundle does) and the words left; ``ExtraError`` for a value am refuses."""
    extras: dict[str, object] = {}
    rest: list[str] = []
    i = 0
    while i < len(words):
        parse = EXTRA_FLAGS.get(words[i])
        if parse is not None and i + 2 < len(words):
            extras[words[i + 1]] = parse(words[i + 2])
            i += 3
        elif parse is not None:
            raise ExtraError(f'java.lang.IllegalArgumentException: Argument expected after "{words[-1]}"')
        else:
            rest.append(words[i])
            i += 1
    return extras, rest
