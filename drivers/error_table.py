"""How every backend turns its client library's exceptions into :mod:`core.errors`: one ordered table.

Each backend's ``errors`` module (``drivers/wda/errors.py``, ``drivers/u2/errors.py``,
``drivers/appium/errors.py``) has the same four parts:

- ``CLIENT_ERRORS``: what a call through its client can raise. The adapter catches exactly these,
  so anything else (a bug, ``KeyboardInterrupt``) propagates unchanged.
- a frozen dataclass naming the call that failed (``WdaCall``, ``U2Call``, ``AppiumCall``): what
  the messages need (the request, the device or server, the timeout in force).
- ``ERROR_TABLE``: :class:`ErrorRule` rows, read top to bottom; the first row whose ``types`` (and
  ``test``, when the type alone does not decide) match builds the harness error. More specific rows
  come first; a row that an earlier row hides is a mistake (``tests/drivers/test_error_tables.py``).
- ``map_error(exc, call) -> HarnessError``: unwraps the client's own wrappers (urllib3's
  ``MaxRetryError``, uiautomator2's ``AdbShellError``), applies the table with :func:`apply_table`
  and falls back to :func:`unrecognised`. The caller chains the original:
  ``raise map_error(exc, call) from exc``.

Rules every backend shares are spelled here once: :func:`quote` bounds a raw answer before a message
quotes it, :func:`unrecognised` is the error for an answer no row knows (a ``DeviceError`` that says
so and quotes the answer once, at most :data:`MAX_QUOTE` characters), and :func:`proxy_answer` reads
an HTTP intermediary's own error page (nginx, HAProxy, a cloud load balancer: 502 / 503 / 504 with a
body that is not the backend's) the same way whichever server was behind it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..core.errors import ConfigError, DeviceError, DeviceTimeout, DriverUnavailable, HarnessError

__all__ = [
    "MAX_QUOTE",
    "Build",
    "ErrorRule",
    "apply_table",
    "page_text",
    "proxy_answer",
    "quote",
    "unrecognised",
    "wrong_server",
]

# The most of a raw answer a message quotes.
MAX_QUOTE = 500

C = TypeVar("C")

# Builds the harness error for one client exception raised during the call described by C.
Build = Callable[[BaseException, C], HarnessError]


@dataclass(frozen=True)
class ErrorRule(Generic[C]):
    """One row of a backend's table: which client exceptions it covers and the error they become."""

    name: str
    types: tuple[type[BaseException], ...]
    build: Build[C]
    test: Callable[[BaseException], bool] | None = None

    def matches(self, exc: BaseException) -> bool:
        return isinstance(exc, self.types) and (self.test is None or self.test(exc))


def apply_table(
    table: Sequence[ErrorRule[C]], exc: BaseException, call: C, fallback: Build[C]
) -> HarnessError:
    """The error the first matching row of ``table`` builds for ``exc``; ``fallback`` when none does."""
    for rule in table:
        if rule.matches(exc):
            return rule.build(exc, call)
    return fallback(exc, call)


def quote(raw: str, limit: int = MAX_QUOTE) -> str:
    """``raw`` on one line (runs of white space made one space), cut to ``limit`` characters with
    an ellipsis and the length it had, for a message to quote."""
    text = " ".join(str(raw).split())
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text)} characters)"


def unrecognised(server: str, what: str, raw: str, *, hint: str | None = None) -> DeviceError:
    """The error for an answer no row of a table knows: it says so, and quotes it once."""
    return DeviceError(
        f"{server} answered {what} with an answer the harness has not recognised: {quote(raw)!r}",
        hint=hint,
    )


# An intermediary's error pages, by status: (what the status says, the harness error it becomes).
_PROXY_STATUSES: dict[int, str] = {
    502: "502 Bad Gateway",
    503: "503 Service Unavailable",
    504: "504 Gateway Timeout",
}


def proxy_answer(
    status: int, body: str, *, server: str, what: str, timeout: float | None = None
) -> HarnessError | None:
    """The error an HTTP intermediary's own error page means, or None when ``status`` is not one
    (502, 503, 504 with a body that is not the backend's JSON).

    502 and 503 say the proxy could not reach ``server`` (nothing answers behind it): the harness
    error is ``DriverUnavailable``. 504 says ``server`` did not answer the proxy in time, which may
    be after it acted: ``DeviceTimeout``.
    """
    said = _PROXY_STATUSES.get(status)
    if said is None:
        return None
    page = quote(body, 120)
    if status == 504:
        return DeviceTimeout(
            f"the HTTP proxy in front of {server} answered {what} with {said}: {server} did not answer it "
            f"in time ({page!r})",
            timeout=timeout,
            hint="the proxy's own timeout ran out first: raise its read timeout (nginx proxy_read_timeout, "
            "a load balancer's idle timeout) above the harness's, or check why the server is slow",
        )
    return DriverUnavailable(
        f"the HTTP proxy in front of {server} answered {what} with {said}: nothing answers behind it "
        f"({page!r})",
        hint=f"the proxy cannot reach {server}: check that it runs and that the proxy points at it",
    )


# What sits at an address instead of the server asked for, by HTTP status, when the body is not
# the server's JSON (statuses an intermediary's own page means are proxy_answer's).
_CREDENTIALS_HINT = (
    "the server asks for credentials (a Selenium Grid started with --username and --password answers "
    "401 with no body: BasicAuthenticationFilter): put them in the URL, http://USER:PASSWORD@HOST:PORT "
    "(in the form user:password@host)"
)


def page_text(body: str, limit: int = MAX_QUOTE) -> str:
    """What an HTML (or plain) error page says: its text without the markup, on one line, bounded;
    quotes and apostrophes are kept as they are (the reason is quoted whole, not as a repr)."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.IGNORECASE | re.DOTALL)
    text = re.sub(r"<[^>]*>", " ", text)
    text = html.unescape(text)
    return quote(text, limit)


# An intermediary's page for a refusal of its own, by status: what it says, and the fix (nginx's
# ngx_http_special_response.c and HAProxy's http_err_msgs write these pages; the status heads them).
_PROXY_REFUSALS: dict[int, tuple[str, str]] = {
    403: (
        "refused the request by its own rules",
        "the proxy in front of the server refuses this client (its ACL or allow list): have it let the "
        "harness's address through",
    ),
    407: (
        "asks for the proxy's own credentials",
        "the proxy in front of the server wants Proxy-Authorization: use a proxy that does not, or reach "
        "the server directly",
    ),
    413: (
        "found the request too large",
        "the proxy in front of the server limits request bodies (nginx client_max_body_size, HAProxy's "
        "tune.bufsize): raise it above the largest request (an app in the capabilities, a long text)",
    ),
}


def wrong_server(status: int, body: str, *, server: str, what: str, expected: str) -> HarnessError | None:
    """The error for an answer that says the address holds no ``expected`` server, chosen from what
    it says, or None: an HTTP 401 (credentials), an intermediary's own refusal (a 403, 407 or 413
    page headed by its status, nginx's or HAProxy's), another web server's HTML page."""
    said = page_text(body, 240)
    if status == 401:
        return ConfigError(
            f"{server} answered {what} with HTTP 401 Unauthorized" + (f": “{said}”" if said else ""),
            hint=_CREDENTIALS_HINT,
        )
    looks_like_page = "<html" in body[:2000].casefold() or "<!doctype html" in body[:200].casefold()
    refusal = _PROXY_REFUSALS.get(status)
    if refusal is not None and said.startswith(str(status)):
        return ConfigError(
            f"the HTTP proxy in front of {server} {refusal[0]} (HTTP {status}, its page: “{said}”)",
            hint=refusal[1],
        )
    if looks_like_page and status >= 400:
        return ConfigError(
            f"{server} answered {what} with an HTML page (HTTP {status}), not {expected}'s JSON: “{said}”",
            hint=f"the address holds a web server that is not a WebDriver server (not {expected}): check "
            "the host, the port and the base path",
        )
    return None
