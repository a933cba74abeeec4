"""Values that cross between the harness and JavaScript, and the one rule for each crossing.

A value crosses as JSON text (a JavaScript literal going in, ``JSON.stringify`` coming out), so what
a script can hand back is what JSON can say:

- strings, booleans and ``null`` are themselves (``undefined`` comes out as ``None`` too);
- a number that is a whole number within ±(2**53 - 1) is an ``int``, any other a ``float``: JavaScript
  has one number type, and past 2**53 a whole number is no longer exact;
- arrays are lists, plain objects dicts with string keys; what JSON leaves out stays out (a
  function, a symbol, ``undefined`` inside an object), a ``Date`` is its ISO text, ``NaN`` and the
  infinities inside a value are ``None``, a ``BigInt`` is its decimal text;
- every value is bounded (:class:`~amc.flows.js.limits.ScriptLimits`): bytes, nesting, items.

Going in, a value must already be one of these (``JsValue``), within the same bounds.
"""

from __future__ import annotations

import json
from typing import TypeAlias

from ...core.errors import ScriptError
from .limits import ScriptLimits

__all__ = ["MAX_SAFE_INTEGER", "JsValue", "from_json", "to_json"]

JsValue: TypeAlias = "bool | int | float | str | list[JsValue] | dict[str, JsValue] | None"

MAX_SAFE_INTEGER = 2**53 - 1


def to_json(value: object, limits: ScriptLimits, what: str) -> str:
    """The JavaScript literal of ``value`` (JSON, ASCII only); ``ScriptError`` naming ``what`` when it
    is not a ``JsValue`` or is out of bounds."""
    _check(value, limits, what, going_in=True)
    text = json.dumps(value, ensure_ascii=True, allow_nan=True, separators=(",", ":"))
    if len(text) > limits.max_value_bytes:
        raise ScriptError(
            f"{what} is {len(text):,} bytes as JSON, over the limit of {limits.max_value_bytes:,}"
        )
    return text


def from_json(text: str | None, limits: ScriptLimits, what: str) -> JsValue:
    """The value a script handed out as JSON text (None: no JSON value, e.g. ``undefined``)."""
    if text is None:
        return None
    if len(text) > limits.max_value_bytes:
        raise ScriptError(
            f"{what} is {len(text):,} bytes as JSON, over the limit of {limits.max_value_bytes:,}"
        )
    try:
        value: JsValue = json.loads(text, parse_int=_number)
    except RecursionError:
        raise ScriptError(f"{what} is nested too deeply (the limit is {limits.max_depth})") from None
    _check(value, limits, what, going_in=False)
    return value


def _number(text: str) -> int | float:
    number = int(text)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else float(text)


def _check(value: object, limits: ScriptLimits, what: str, *, going_in: bool) -> None:
    """Walk ``value`` (without recursion): its types, its nesting and its number of items."""
    items = 0
    pending: list[tuple[object, int, str]] = [(value, 1, what)]
    while pending:
        current, depth, where = pending.pop()
        items += 1
        if items > limits.max_items:
            raise ScriptError(f"{what} holds more than {limits.max_items:,} items")
        if depth > limits.max_depth:
            raise ScriptError(f"{what} is nested too deeply (the limit is {limits.max_depth})")
        if current is None or isinstance(current, (bool, str, float)):
            continue
        if isinstance(current, int):
            if going_in and not -MAX_SAFE_INTEGER <= current <= MAX_SAFE_INTEGER:
                raise ScriptError(
                    f"{where} is {current}: a JavaScript number holds whole numbers exactly only "
                    f"up to ±{MAX_SAFE_INTEGER}; pass it as a string"
                )
            continue
        if isinstance(current, list):
            pending.extend((item, depth + 1, f"{where}[{n}]") for n, item in enumerate(current))
            continue
        if isinstance(current, dict):
            for key, item in current.items():
                if not isinstance(key, str):
                    raise ScriptError(f"{where} has a key {key!r} that is not a string")
                pending.append((item, depth + 1, f"{where}.{key}"))
            continue
        raise ScriptError(
            f"{where} is a {type(current).__name__}: JavaScript values are None, bool, int, float, str, "
            "lists and dicts with string keys"
        )
