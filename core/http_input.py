"""The one rule for what an HTTP server of the project reads from a request: framing, target, JSON.

Every server the project runs (the inspector, ``inspector/server.py``; the simulated device's
WebDriverAgent and Appium faces, ``sim/wda_face.py`` / ``sim/appium_face.py`` through
``sim/http_guard.py``) reads a request through these functions, and answers a
:class:`BadRequest` with a 4xx JSON error in its own protocol's shape. Nothing here raises
anything else, whatever the bytes:

- :func:`body_length`: the body's length from its framing, refused when the framing is ambiguous
  (two ``Content-Length`` headers, even equal ones; ``Content-Length`` beside
  ``Transfer-Encoding``: the request smuggling of RFC 9112 section 6.3), chunked (411), not a
  plain decimal of at most 18 digits, or over the server's cap (413);
- :func:`split_target`: the request target's path and query (an absolute-form target such as
  ``http://[/x`` is a ``ValueError`` in ``urlsplit``);
- :func:`query_fields`: the query's fields, at most ``max_fields`` (``parse_qs`` raises
  ``ValueError`` past it);
- :func:`json_value`: a body as JSON, UTF-8, with numbers of at most :data:`MAX_NUMBER` characters
  (Python refuses to convert an integer of more than 4,300 digits with a ``ValueError``), nested
  at most as deep as the parser's stack allows (a ``RecursionError`` past it).
"""

from __future__ import annotations

import json
import re
from email.message import Message
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["MAX_NUMBER", "BadRequest", "body_length", "json_value", "query_fields", "split_target"]

MAX_NUMBER = 40  # characters of one number in a JSON body (a flow's numbers are bounded so too)
_LENGTH = re.compile(r"[0-9]{1,18}")


class BadRequest(Exception):
    """A request a server refuses: ``status`` (4xx) and a ``message`` for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def body_length(headers: Message, max_body: int) -> int:
    """The number of body bytes to read (0 when none is declared); ``BadRequest`` otherwise."""
    lengths = headers.get_all("Content-Length") or []
    chunked = headers.get_all("Transfer-Encoding") or []
    if len(lengths) > 1:
        raise BadRequest(400, "the request has more than one Content-Length header (ambiguous framing)")
    if lengths and chunked:
        raise BadRequest(400, "the request has both Content-Length and Transfer-Encoding (ambiguous framing)")
    if chunked:
        raise BadRequest(411, "send the body with a Content-Length, not in chunks")
    if not lengths:
        return 0
    raw = lengths[0].strip()
    if _LENGTH.fullmatch(raw) is None:
        raise BadRequest(400, f"Content-Length {raw[:40]!r} is not a number of bytes")
    length = int(raw)
    if length > max_body:
        raise BadRequest(413, f"the body is {length} bytes; the limit is {max_body}")
    return length


def split_target(target: str) -> tuple[str, str]:
    """The path and the query of a request target."""
    try:
        parts = urlsplit(target)
    except ValueError as exc:
        raise BadRequest(400, f"the request target is not a URL path: {exc}") from None
    return parts.path, parts.query


def query_fields(query: str, max_fields: int) -> dict[str, list[str]]:
    """The fields of a query string, at most ``max_fields`` of them."""
    try:
        return parse_qs(query, max_num_fields=max_fields)
    except ValueError as exc:
        if "max number of fields" in str(exc).lower():
            raise BadRequest(400, f"the query has more than {max_fields} fields") from None
        raise BadRequest(400, f"the query cannot be read: {exc}") from None


def _number(text: str) -> int | float:
    if len(text) > MAX_NUMBER:
        raise BadRequest(400, f"a number in the body has {len(text):,} characters; the limit is {MAX_NUMBER}")
    return float(text) if any(c in text for c in ".eE") else int(text)


def json_value(data: bytes) -> Any:
    """A request body as JSON (see the module docstring)."""
    try:
        return json.loads(data.decode("utf-8"), parse_int=_number, parse_float=_number)
    except UnicodeDecodeError:
        raise BadRequest(400, "the body is not UTF-8") from None
    except RecursionError:
        raise BadRequest(400, "the body is nested too deeply to be read") from None
    except ValueError as exc:  # json.JSONDecodeError is one
        raise BadRequest(400, f"the body is not JSON: {exc}"[:300]) from None
