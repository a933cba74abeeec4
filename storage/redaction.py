"""Keep secrets out of everything a run writes or prints: one :class:`Redactor`, applied last.

A :class:`Redactor` knows the run's secret values (typed or remembered with ``secret: true``, an
API key, the credentials of a URL) and replaces each with ``***`` in a text, a JSON-like value or a
log line. Every sink applies it to what it is about to write, after the harness has formatted it:
the console, ``run.log`` and stderr, ``timeline.jsonl`` and the page-source files, the report, the
index page, JUnit, MCP replies (their text and data, errors included), the LLM request log. A
secret is found in every form the harness or its libraries write it in:

- as it is; quoted by Python (``repr``: escaped backslashes and quotes, ``\\x``/``\\u`` escapes,
  ``ascii()``), and a ``repr`` inside another; as a JSON string (``ensure_ascii`` or not), and JSON
  inside JSON; XML/HTML-escaped (``&amp;``, ``&quot;``/``&#34;``, ``&#x27;``/``&#39;``/``&apos;``,
  ElementTree's ``&#10;``, any decimal or hexadecimal character reference); URL-encoded (``%XX``,
  ``+`` for a space); and any mixture of those forms, character by character (a page source that
  escaped only some of a secret's characters);
- and cut: any start of one of those forms that holds at least the secret's first 6 characters and
  ends where a text was cut, before ``…`` or ``...``: every cut the harness makes (a screen text at
  200 characters, an error at 300 …) marks itself so, and a whole text that merely starts like a
  secret is left alone.

A URL's credentials are secrets too: :meth:`Redactor.add_url` registers the password of
``user:pass@`` (the user, when there is no password: a token) and the values of query parameters
named like a key (``api-key``, ``token``, ``key``, ``secret``, ``password`` …), and every text is
scrubbed of such credentials in any URL it holds (:func:`redact_url`), registered or not. The
step's own secret rule (:func:`amc.core.steps.hide_secrets`) hides secret arguments by name.
"""

from __future__ import annotations

import html
import json
import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus, unquote, urlsplit

from ..core.models import PlannedStep, jsonable
from ..core.steps import REDACTED, hide_secrets

__all__ = [
    "MIN_CUT",
    "REDACTED",
    "RedactingFormatter",
    "Redactor",
    "encodings",
    "named_like_credential",
    "redact_url",
    "url_secrets",
]

MIN_CUT = 6  # characters of a secret a cut must keep to be recognised as the secret's start
_CUT_MARKS = ("…", "...")
# user:password@ (or a lone user, often a token) after a scheme, and the values of query parameters
# named like a credential (api-key, api_key, apikey, key, token, access_token, password, sig …).
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^/\s@?#'\"<>]+)@")
# A name that holds one of these words names a credential: a query parameter, a flow's variable.
_CREDENTIAL = "key|token|secret|passw|auth|sig|credential"
_CREDENTIAL_NAME = re.compile(_CREDENTIAL, re.IGNORECASE)
_SECRET_QUERY_VALUE = re.compile(
    rf"(?P<name>[?&;][A-Za-z0-9_.\-]*?(?:{_CREDENTIAL})[A-Za-z0-9_.\-]*=)"
    r"(?P<value>[^&;#\s'\"<>]+)",
    re.IGNORECASE,
)


def named_like_credential(name: str) -> bool:
    """Whether ``name`` (a query parameter, a flow variable, an ``output`` key, an HTTP header) is
    named like a credential: it holds ``key``, ``token``, ``secret``, ``passw``, ``auth``, ``sig``
    or ``credential``, in any case. Generous on purpose: a value wrongly taken for a secret is only
    shown as ``***``."""
    return _CREDENTIAL_NAME.search(name) is not None


def _py_char(c: str, quote: str, *, ascii_only: bool) -> str:
    """One character as Python's ``repr`` (``ascii`` with ``ascii_only``) writes it inside ``quote``s."""
    if c == "\\":
        return "\\\\"
    if c in "'\"":
        return "\\" + c if c == quote else c
    return (ascii(c) if ascii_only else repr(c))[1:-1]


def _json_char(c: str, *, ascii_only: bool) -> str:
    return json.dumps(c, ensure_ascii=ascii_only)[1:-1]


def _markupsafe(c: str) -> str:
    """Jinja's (markupsafe's) escaping: the report's and the index page's."""
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"}.get(c, c)


def _xml_attribute(c: str) -> str:
    """ElementTree's attribute escaping (what JUnit's XML writes)."""
    named = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
    return named.get(c, {"\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}.get(c, c))


Encode = Callable[[str], str]


def _python(quote: str, *, ascii_only: bool = False) -> Encode:
    return lambda c: _py_char(c, quote, ascii_only=ascii_only)


def _json(*, ascii_only: bool) -> Encode:
    return lambda c: _json_char(c, ascii_only=ascii_only)


def _html(*, quote: bool) -> Encode:
    return lambda c: html.escape(c, quote=quote)


def _url(safe: str) -> Encode:
    return lambda c: quote(c, safe=safe)


def _then(first: Encode, second: Encode) -> Encode:
    """``second``'s form of ``first``'s form (a text quoted, then quoted again)."""
    return lambda c: "".join(second(part) for part in first(c))


def _all_encodings() -> tuple[Encode, ...]:
    quotes = ("'", '"')
    python = [_python(q, ascii_only=a) for q in quotes for a in (False, True)]
    return (
        lambda c: c,
        *python,
        *(_then(_python(q), _python(r)) for q in quotes for r in quotes),  # a repr inside a repr
        _json(ascii_only=True),
        _json(ascii_only=False),
        _then(_json(ascii_only=False), _json(ascii_only=False)),  # JSON inside JSON
        _then(_json(ascii_only=True), _json(ascii_only=True)),
        *(_then(_python(q), _json(ascii_only=False)) for q in quotes),  # a repr in a JSON record
        _html(quote=True),
        _html(quote=False),
        lambda c: html.escape(c, quote=True).replace("&#x27;", "&apos;"),
        _then(_html(quote=True), _html(quote=True)),
        _markupsafe,
        _xml_attribute,
        _url(""),
        _url("/"),
        quote_plus,
    )


# Every form the harness (or a library it drives) writes a text in, one character at a time: each
# is a per-character escape, so a form's start is the form of the text's start (what a cut keeps).
_ENCODINGS = _all_encodings()


def encodings(secret: str) -> list[str]:
    """Every form of ``secret`` :class:`Redactor` looks for (see the module docstring), longest first."""
    forms = {"".join(encode(c) for c in secret) for encode in _ENCODINGS}
    forms.discard("")
    return sorted(forms, key=len, reverse=True)


def _hex(number: int) -> str:
    """The hexadecimal digits of ``number`` as a pattern of either case (``e4``, ``E4``)."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{number:x}")


def _character(c: str) -> str:
    """A pattern for one character of a secret in any form the harness writes: each encoding's
    (:data:`_ENCODINGS`), and every way XML and JSON may spell it (``&#9;``, ``&#009;``,
    ``&#x9;``, ``\\u00E4``), longest first."""
    forms = {re.escape(encode(c)) for encode in _ENCODINGS}
    code = ord(c)
    forms |= {f"&#0*{code};", f"&#[xX]0*{_hex(code)};"}
    if code < 0x10000:
        forms.add(f"\\\\[uU]{''.join(f'[{d}{d.upper()}]' if d.isalpha() else d for d in f'{code:04x}')}")
    forms.discard("")
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + ")"


class _Secret:
    """One secret's forms, the pattern that finds them whole, and the start each must keep to count
    as a cut of it."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.forms = encodings(value)
        self.pattern = re.compile("|".join(re.escape(form) for form in self.forms))
        # Character by character, any of each character's forms: a text that escaped only some of
        # them (a page source with a prefix in clear and a TAB as &#9;). Ten times slower than the
        # forms whole, so it runs only where the secret's longest run of ASCII letters and digits
        # (which no encoding the harness writes escapes) is in the text.
        self.mixed = re.compile("".join(_character(c) for c in value))
        runs = re.findall(r"[A-Za-z0-9]+", value)
        self.anchor = max(runs, key=len) if runs else ""
        # (form, the form of the secret's first MIN_CUT characters): a cut keeps at least that much.
        self.starts: list[tuple[str, str]] = []
        if len(value) > MIN_CUT:
            pairs = {
                ("".join(encode(c) for c in value), "".join(encode(c) for c in value[:MIN_CUT]))
                for encode in _ENCODINGS
            }
            self.starts = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: the password of ``user:pass@`` (the user when alone), and the
    values of query parameters named like a key; each also as the URL writes it (percent-encoded)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    found: list[str] = []
    if parts.password:
        found.append(parts.password)
    elif parts.username and "@" in parts.netloc:
        found.append(parts.username)
    found += [
        m.group("value") for m in _SECRET_QUERY_VALUE.finditer("?" + parts.query if parts.query else "")
    ]
    return [s for value in found for s in dict.fromkeys((value, unquote(value))) if s]


def redact_url(text: str) -> str:
    """``text`` with the credentials of every URL (``scheme://…``) in it shown as ``***`` (the user
    of ``user:pass@`` stays; a lone user is taken for a token)."""

    def userinfo(match: re.Match[str]) -> str:
        info = match.group("info")
        user, colon, _password = info.partition(":")
        return (
            f"{match.group('scheme')}{user}:{REDACTED}@" if colon else f"{match.group('scheme')}{REDACTED}@"
        )

    if "://" not in text:  # no URL: nothing to do (a page source has none, and is long)
        return text
    if "@" in text:
        text = _USERINFO.sub(userinfo, text)
    if "?" in text and "=" in text:  # a query's values follow its ?, and a secret one is named so
        text = _SECRET_QUERY_VALUE.sub(lambda m: f"{m.group('name')}{REDACTED}", text)
    return text


class Redactor:
    """Replaces known secret values, in every form (see the module docstring), with ``***``.
    Longer secrets are replaced first, so a secret that contains another is hidden whole."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: tuple[_Secret, ...] = ()
        self._lock = threading.Lock()
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        with self._lock:
            known = {s.value: s for s in self._secrets}
            for value in secrets:
                if isinstance(value, str) and value and value not in known:
                    known[value] = _Secret(value)
            self._secrets = tuple(sorted(known.values(), key=lambda s: len(s.value), reverse=True))

    def add_url(self, url: str) -> None:
        """Register the credentials ``url`` carries (:func:`url_secrets`)."""
        self.add(*url_secrets(url))

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, value: str) -> str:
        """``value`` with every secret, whole or cut, and every URL credential hidden."""
        for secret in self._secrets:
            value = secret.pattern.sub(REDACTED, value)
            if secret.anchor in value:
                value = secret.mixed.sub(REDACTED, value)
        if self._secrets:
            value = self._cuts(value)
        return redact_url(value)

    def _cuts(self, value: str) -> str:
        ends = sorted({m.start() for mark in _CUT_MARKS for m in re.finditer(re.escape(mark), value)})
        for end in reversed(ends):  # right to left: a replacement keeps the positions before it
            start = self._cut_start(value, end)
            if start is not None:
                value = value[:start] + REDACTED + value[end:]
        return value

    def _cut_start(self, value: str, end: int) -> int | None:
        """Where a cut form of a secret starts when one ends at ``end``, else None."""
        for secret in self._secrets:
            for form, anchor in secret.starts:
                lowest = max(0, end - len(form) + 1)
                found = value.find(anchor, lowest, end)
                while found != -1:
                    if form.startswith(value[found:end]):
                        return found
                    found = value.find(anchor, found + 1, end)
        return None

    def value(self, data: Any) -> Any:
        """A JSON-ready copy of ``data`` with every string scrubbed (mapping keys included)."""
        data = jsonable(data)
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in data.items()}
        if isinstance(data, list):
            return [self.value(v) for v in data]
        return data

    def step(self, step: PlannedStep) -> dict[str, Any]:
        """``step.to_dict()`` with its secret arguments hidden and every known secret scrubbed."""
        out = step.to_dict()
        out["args"] = jsonable(hide_secrets(step.args))
        scrubbed: dict[str, Any] = self.value(out)
        return scrubbed


class RedactingFormatter(logging.Formatter):
    """A log formatter whose output (message, arguments and traceback) has the secrets scrubbed."""

    def __init__(self, redactor: Redactor, fmt: str | None = None) -> None:
        super().__init__(fmt or "%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.text(super().format(record))
