"""The reply shapes of the wire fuzz: every way an answer is turned hostile, in one table.

Each :class:`Shape` takes the answer a face was about to send (:class:`amc.sim.faults.Answer`: an
HTTP body with its status, a uiautomator2 JSON-RPC response body, a whole adb host reply, an adb shell
command's output) and a seeded ``random.Random`` and returns what goes out instead, over the face's
real protocol. Which shapes apply goes by what the answer is (:func:`kind_of`):

- ``json`` (WebDriverAgent, W3C/Appium, uiautomator2 JSON-RPC): a field missing, ``null``, empty or
  of another type at any depth, an extra field, the fields reordered, the body cut, an empty body,
  bytes that are not UTF-8, the old JSONWP form (``status`` numbers) and the W3C/JSON-RPC error forms;
- every HTTP answer: the HTML error pages of what stands between (nginx's ``502 Bad Gateway``, a
  corporate proxy's block page);
- ``adb`` (a host service's ``OKAY``/``FAIL`` and its block): a length that is not hex, a block
  shorter than its length says, ``FAIL`` with adb's own refusals or anything, four bytes that are
  neither, the block's text turned by a text shape;
- ``text`` (a shell command's output, a block's text): cut, empty, not UTF-8, lines dropped,
  shuffled or doubled, a word replaced by ``null``, numbers out of range, CRLF line ends, junk lines.

Shapes are values drawn by hypothesis (the name and a seed), so a failing example names the shape.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from amc.sim.faults import Answer

__all__ = ["SHAPES", "Shape", "kind_of", "shapes_for"]

NGINX_502 = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway"
    b"</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
)
PROXY_PAGE = (
    b"<!DOCTYPE html><html><head><title>Access Denied</title></head><body><h1>Web Page Blocked</h1>"
    b"<p>Access to the web page you were trying to visit has been blocked in accordance with company"
    b" policy. Please contact your system administrator if you believe this is in error.</p>"
    b"<p>User: corp\\jdoe  URL: 127.0.0.1  Category: Uncategorized</p></body></html>"
)
_ADB_REFUSALS = (
    "unknown host service",
    "device offline",
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set",
    "device 'emulator-5554' not found",
    "closed",
    "more than one device/emulator",
)
_W3C_ERRORS = (
    (404, "no such element"),
    (404, "invalid session id"),
    (500, "unknown error"),
    (400, "invalid argument"),
    (500, "unsupported operation"),
    (404, "unknown command"),
    (500, "\u00e9t\u00e9 \"quoted\" 'both'"),
)


@dataclass(frozen=True)
class Shape:
    """One way to turn an answer hostile; ``kinds`` are the answers it applies to."""

    name: str
    kinds: frozenset[str]
    make: Callable[[Answer, random.Random], Answer]


def kind_of(answer: Answer) -> str:
    """``adb`` (a host reply), ``text`` (a shell output) or ``json`` (an HTTP body)."""
    if answer.route.startswith("adb:shell"):
        return "text"
    if answer.route.startswith("adb:"):
        return "adb"
    return "json"


# --- JSON -----------------------------------------------------------------------------------------


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:8]):
            found += _paths(item, (*path, index))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any, *, delete: bool = False) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if delete and not rest:
            copy.pop(head, None)
        else:
            copy[head] = _set(value[head], rest, new, delete=delete)
        return copy
    copy_list = list(value)
    if delete and not rest:
        del copy_list[head]
    else:
        copy_list[head] = _set(value[head], rest, new, delete=delete)
    return copy_list


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _json_shape(change: Callable[[Any, random.Random], Any]) -> Callable[[Answer, random.Random], Answer]:
    def make(answer: Answer, rnd: random.Random) -> Answer:
        try:
            document = json.loads(answer.body)
        except ValueError:
            return replace(answer, body=answer.body[: len(answer.body) // 2])
        return replace(answer, body=json.dumps(change(document, rnd)).encode("utf-8"))

    return make


def _pick(document: Any, rnd: random.Random, *, inner: bool) -> tuple[Any, ...]:
    paths = [p for p in _paths(document) if p or not inner]
    return rnd.choice(paths) if paths else ()


def _missing(document: Any, rnd: random.Random) -> Any:
    path = _pick(document, rnd, inner=True)
    return _set(document, path, None, delete=True) if path else {}


def _null(document: Any, rnd: random.Random) -> Any:
    return _set(document, _pick(document, rnd, inner=False), None)


def _empty(document: Any, rnd: random.Random) -> Any:
    path = _pick(document, rnd, inner=False)
    old = _get(document, path)
    empty: Any = {dict: {}, list: [], str: "", int: 0, float: 0.0, bool: False}.get(type(old), "")
    return _set(document, path, empty)


_OTHERS: tuple[Any, ...] = (
    7,
    -1,
    2**63,
    1.5,
    "x",
    "",
    True,
    [],
    [1, "a"],
    {},
    {"a": None},
    "\u202e\ud83d\ude00",
)


def _other_type(document: Any, rnd: random.Random) -> Any:
    path = _pick(document, rnd, inner=False)
    old = _get(document, path)
    choices = [v for v in _OTHERS if type(v) is not type(old)]
    return _set(document, path, rnd.choice(choices))


def _extra(document: Any, rnd: random.Random) -> Any:
    dicts = [p for p in _paths(document) if isinstance(_get(document, p), dict)]
    if not dicts:
        return {"value": document, "extra": rnd.choice(_OTHERS)}
    path = rnd.choice(dicts)
    grown = {**_get(document, path), f"x{rnd.randrange(99)}": rnd.choice(_OTHERS)}
    return _set(document, path, grown)


def _reordered(document: Any, rnd: random.Random) -> Any:
    def turn(value: Any) -> Any:
        if isinstance(value, dict):
            items = [(k, turn(v)) for k, v in value.items()]
            rnd.shuffle(items)
            return dict(items)
        if isinstance(value, list):
            return [turn(v) for v in value]
        return value

    return turn(document)


def _jsonwp(document: Any, rnd: random.Random) -> Any:
    value = document.get("value", document) if isinstance(document, dict) else document
    return {"sessionId": rnd.choice([None, "abc"]), "status": rnd.choice([0, 6, 7, 13, 28]), "value": value}


def _truncated(answer: Answer, rnd: random.Random) -> Answer:
    cut = rnd.randrange(len(answer.body)) if answer.body else 0
    return replace(answer, body=answer.body[:cut])


def _w3c_error(answer: Answer, rnd: random.Random) -> Answer:
    status, error = rnd.choice(_W3C_ERRORS)
    if answer.route.startswith("rpc:"):
        code = rnd.choice([-32001, -32002, -32601, -32700, 0])
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": code, "message": error, "data": rnd.choice([None, error])},
        }
        return replace(answer, body=json.dumps(body).encode(), status=200)
    return replace(
        answer, body=json.dumps({"value": {"error": error, "message": error}}).encode(), status=status
    )


def _html(page: bytes, statuses: tuple[int, ...]) -> Callable[[Answer, random.Random], Answer]:
    def make(answer: Answer, rnd: random.Random) -> Answer:
        return replace(answer, body=page, status=rnd.choice(statuses), content_type="text/html")

    return make


# --- text -----------------------------------------------------------------------------------------


def _lines(
    change: Callable[[list[bytes], random.Random], list[bytes]],
) -> Callable[[bytes, random.Random], bytes]:
    def make(text: bytes, rnd: random.Random) -> bytes:
        return b"".join(change(text.splitlines(keepends=True), rnd))

    return make


def _drop_lines(lines: list[bytes], rnd: random.Random) -> list[bytes]:
    return [line for line in lines if rnd.random() < 0.5]


def _shuffle_lines(lines: list[bytes], rnd: random.Random) -> list[bytes]:
    lines = list(lines)
    rnd.shuffle(lines)
    return lines


def _double_lines(lines: list[bytes], rnd: random.Random) -> list[bytes]:
    return [line for line in lines for _ in range(rnd.choice([1, 2]))]


def _null_word(text: bytes, rnd: random.Random) -> bytes:
    words = text.split(b" ")
    if words:
        words[rnd.randrange(len(words))] = b"null"
    return b" ".join(words)


def _big_numbers(text: bytes, rnd: random.Random) -> bytes:
    out, digits = bytearray(), False
    for byte in text:
        if 48 <= byte <= 57:
            if not digits:
                out += rnd.choice([b"99999999999999999999", b"-1", b"0x1F", b"1e309"])
            digits = True
            continue
        digits = False
        out.append(byte)
    return bytes(out)


def _junk_lines(lines: list[bytes], rnd: random.Random) -> list[bytes]:
    junk = [b"WARNING: linker: unused DT entry\n", b"\x00\xff\xfe\n", b"   \n", b"=\n", b"null\n"]
    lines = list(lines)
    for _ in range(3):
        lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(junk))
    return lines


_TEXT: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "text cut": lambda t, r: t[: r.randrange(len(t))] if t else t,
    "text empty": lambda t, r: b"",
    "text not utf-8": lambda t, r: t[: len(t) // 2] + b"\xff\xfe\xc3(" + t[len(t) // 2 :],
    "lines dropped": _lines(_drop_lines),
    "lines shuffled": _lines(_shuffle_lines),
    "lines doubled": _lines(_double_lines),
    "a word null": _null_word,
    "numbers out of range": _big_numbers,
    "crlf line ends": lambda t, r: t.replace(b"\n", b"\r\n"),
    "junk lines": _lines(_junk_lines),
}


def _text_shape(change: Callable[[bytes, random.Random], bytes]) -> Callable[[Answer, random.Random], Answer]:
    def make(answer: Answer, rnd: random.Random) -> Answer:
        return replace(answer, body=change(answer.body, rnd))

    return make


# --- adb framing ----------------------------------------------------------------------------------


def _block(text: bytes) -> bytes:
    return f"{len(text):04x}".encode() + text


def _adb_text(change: Callable[[bytes, random.Random], bytes]) -> Callable[[Answer, random.Random], Answer]:
    def make(answer: Answer, rnd: random.Random) -> Answer:
        body = answer.body
        if body[:4] in (b"OKAY", b"FAIL") and len(body) >= 8:
            return replace(answer, body=body[:4] + _block(change(body[8:], rnd)))
        return replace(answer, body=change(body, rnd))

    return make


def _adb_fail(answer: Answer, rnd: random.Random) -> Answer:
    return replace(answer, body=b"FAIL" + _block(rnd.choice(_ADB_REFUSALS).encode()))


_ADB: dict[str, Callable[[Answer, random.Random], Answer]] = {
    "adb length not hex": lambda a, r: replace(
        a, body=b"OKAY" + r.choice([b"zzzz", b"-001", b"0x1\xff"]) + b"abc"
    ),
    "adb block short": lambda a, r: replace(a, body=b"OKAY" + b"ffff" + a.body[8:]),
    "adb fail": _adb_fail,
    "adb neither okay nor fail": lambda a, r: replace(
        a, body=r.choice([b"WHAT", b"HTTP/1.1 200", b"\x00\x00"])
    ),
    "adb closed": lambda a, r: replace(a, body=b""),
    "adb okay only": lambda a, r: replace(a, body=b"OKAY"),
}


SHAPES: tuple[Shape, ...] = (
    *(
        Shape(name, frozenset({"json"}), _json_shape(change))
        for name, change in (
            ("field missing", _missing),
            ("field null", _null),
            ("field empty", _empty),
            ("field of another type", _other_type),
            ("field extra", _extra),
            ("fields reordered", _reordered),
            ("old JSONWP form", _jsonwp),
        )
    ),
    Shape("body cut", frozenset({"json"}), _truncated),
    Shape("body empty", frozenset({"json"}), lambda a, r: replace(a, body=b"")),
    Shape("body not utf-8", frozenset({"json"}), lambda a, r: replace(a, body=b'\xff\xfe{"value": \xc3(}')),
    Shape("server error form", frozenset({"json"}), _w3c_error),
    Shape("nginx 502 page", frozenset({"json"}), _html(NGINX_502, (502, 200))),
    Shape("proxy block page", frozenset({"json"}), _html(PROXY_PAGE, (403, 407, 200))),
    *(Shape(name, frozenset({"text"}), _text_shape(change)) for name, change in _TEXT.items()),
    *(Shape(f"adb block: {name}", frozenset({"adb"}), _adb_text(change)) for name, change in _TEXT.items()),
    *(Shape(name, frozenset({"adb"}), make) for name, make in _ADB.items()),
)


def shapes_for(kind: str) -> tuple[Shape, ...]:
    """The shapes that apply to an answer of ``kind``."""
    return tuple(shape for shape in SHAPES if kind in shape.kinds)
