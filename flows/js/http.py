"""Maestro's ``http`` object, as data: what a script asked for, and what goes back to it.

A script calls ``http.get(url, params)`` (``post``, ``put``, ``delete``, or ``request`` with
``params.method``). This module turns the call into an :class:`HttpRequest`, hands it to the
caller's :class:`HttpHandler` (the engine itself never opens a socket), checks the
:class:`HttpResponse` and gives the script what Maestro's GraalJS engine gives it: an object with
``ok`` (status 200-299), ``status``, ``body`` (text) and ``headers`` (names in lower case, repeated
headers joined with ``,``). A request that cannot be made (a bad URL, no handler, the handler
failing, a body over the cap) throws an ``Error`` in the script, which it may catch; a status of
400 or 500 is a response like any other.

Who may call what, where requests go, logging them with secrets hidden: the handler's concern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from .limits import ScriptLimits
from .values import JsValue

__all__ = [
    "HttpHandler",
    "HttpRefused",
    "HttpRequest",
    "HttpResponse",
    "request_from_script",
    "response_for_script",
]

METHOD = re.compile(r"[A-Z]{1,16}\Z")
SCHEMES = ("http://", "https://")
MAX_URL = 8 * 1024
MAX_HEADERS = 100
MAX_HEADER = 8 * 1024


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP call a script asked for. ``headers`` as the script gave them (values turned to text),
    ``body`` the text to send (Maestro sends only a string body), ``multipart_form`` the
    ``multipartForm`` object as given (its file parts name paths: whether to read them is the
    handler's decision). ``timeout``: seconds the handler may take, at most the limits' HTTP timeout
    and never past the evaluation's own time limit; ``max_response_bytes``: a longer body fails."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None
    multipart_form: dict[str, JsValue] | None = None
    timeout: float = 10.0
    max_response_bytes: int = 4 * 1024 * 1024


@dataclass(frozen=True)
class HttpResponse:
    """What the handler got back: the status, the body as text, the headers as received."""

    status: int
    body: str = ""
    headers: tuple[tuple[str, str], ...] = ()


class HttpHandler(Protocol):
    """Makes the request (or refuses it by raising :class:`HttpRefused`, or any ``HarnessError`` or
    ``OSError``: the script gets an ``Error`` with that message)."""

    def __call__(self, request: HttpRequest, /) -> HttpResponse: ...


class HttpRefused(Exception):
    """A request that is not made; the message is what the script's ``Error`` says."""


def request_from_script(
    method: object, url: object, params: object, *, timeout: float, limits: ScriptLimits
) -> HttpRequest:
    """The request a script's ``http.*`` call describes; ``HttpRefused`` saying what is wrong with it."""
    if not isinstance(method, str) or not METHOD.match(method.upper()):
        raise HttpRefused(f"http: the method must be a word such as GET or POST, not {method!r}")
    verb = method.upper()
    if not isinstance(url, str):
        raise HttpRefused(f"http.{verb.lower()}: the URL must be a string, not {_kind(url)}")
    if len(url) > MAX_URL:
        raise HttpRefused(f"http.{verb.lower()}: the URL is {len(url):,} characters, over {MAX_URL:,}")
    if not url.lower().startswith(SCHEMES):
        raise HttpRefused(
            f"http.{verb.lower()}: only http:// and https:// URLs are requested, not {url[:80]!r}"
        )
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise HttpRefused(f"http.{verb.lower()}: the second argument must be an object, not {_kind(params)}")
    headers = _headers(params.get("headers"), verb)
    body = params.get("body")
    form = params.get("multipartForm")
    return HttpRequest(
        method=verb,
        url=url,
        headers=headers,
        body=body if isinstance(body, str) else None,  # Maestro sends no body unless it is a string
        multipart_form=form if isinstance(form, dict) else None,
        timeout=timeout,
        max_response_bytes=limits.http_max_response_bytes,
    )


def response_for_script(response: object, request: HttpRequest) -> dict[str, JsValue]:
    """The object the script's call returns; ``HttpRefused`` when the handler's answer is not a
    response or its body is over the cap."""
    if not isinstance(response, HttpResponse):
        raise HttpRefused(
            f"http.{request.method.lower()}: the harness's HTTP handler returned {_kind(response)}"
        )
    if not 100 <= response.status <= 599:
        raise HttpRefused(
            f"http.{request.method.lower()}: the response status {response.status} is not HTTP's"
        )
    size = len(response.body.encode("utf-8", "surrogatepass"))
    if size > request.max_response_bytes:
        raise HttpRefused(
            f"http.{request.method.lower()} {request.url}: the response body is {size:,} bytes, "
            f"over the cap of {request.max_response_bytes:,}"
        )
    headers: dict[str, JsValue] = {}
    for name, value in response.headers:
        key = name.lower()
        previous = headers.get(key)
        headers[key] = value if previous is None else f"{previous},{value}"
    return {
        "ok": 200 <= response.status <= 299,
        "status": response.status,
        "body": response.body,
        "headers": headers,
    }


def _headers(given: object, verb: str) -> tuple[tuple[str, str], ...]:
    if given is None:
        return ()
    if not isinstance(given, Mapping):
        raise HttpRefused(f"http.{verb.lower()}: headers must be an object, not {_kind(given)}")
    if len(given) > MAX_HEADERS:
        raise HttpRefused(f"http.{verb.lower()}: {len(given)} headers, over {MAX_HEADERS}")
    headers = []
    for name, value in given.items():
        text = _text(value)
        if any(c in "\r\n\0" for c in str(name) + text) or len(name) + len(text) > MAX_HEADER:
            raise HttpRefused(
                f"http.{verb.lower()}: the header {str(name)[:40]!r} holds a line break or is too long"
            )
        headers.append((str(name), text))
    return tuple(headers)


def _text(value: object) -> str:
    """A header value as Maestro sends it (its ``toString()``): whole numbers without ``.0``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "null" if value is None else str(value)


_JS_KINDS = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def _kind(value: object) -> str:
    """What a script would call the value it passed."""
    return "nothing" if value is None else _JS_KINDS.get(type(value), f"a {type(value).__name__}")
