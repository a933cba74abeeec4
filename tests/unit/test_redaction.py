"""The redactor's rules, one by one: every form a secret is written in, its cuts, URL credentials,
and what it leaves alone (the sinks that apply it are in tests/hostile/test_secret_sinks.py)."""

from __future__ import annotations

import html
import json
import logging
import xml.etree.ElementTree as ET
from urllib.parse import quote, quote_plus

import pytest
from amc.storage.redaction import MIN_CUT, RedactingFormatter, Redactor, redact_url, url_secrets
from markupsafe import escape

SECRETS = ["Plain-S3cret-4471", "ab\\cd'ef\"gh-9931", "a&b<c>d\"e'f-5512", "ünï-cødé\n\t-7788"]


def _forms(secret: str) -> dict[str, str]:
    element = ET.Element("failure", message=secret)
    attribute = ET.tostring(element, encoding="unicode").split('"', 1)[1].rsplit('"', 1)[0]
    return {
        "raw": secret,
        "repr": repr(secret),
        "repr in a list": repr([secret]),
        "repr of a repr": repr(repr(secret)),
        "ascii": ascii(secret),
        "json": json.dumps(secret),
        "json, not ascii": json.dumps(secret, ensure_ascii=False),
        "json in json": json.dumps({"body": json.dumps({"text": secret})}),
        "html": html.escape(secret),
        "jinja": str(escape(secret)),
        "xml attribute": attribute,
        "url": quote(secret, safe=""),
        "url, plus": quote_plus(secret),
    }


@pytest.mark.parametrize("secret", SECRETS)
def test_every_form_the_harness_writes_is_hidden(secret: str) -> None:
    redactor = Redactor([secret])
    for name, form in _forms(secret).items():
        shown = redactor.text(f"before {form} after")
        assert "***" in shown and "before" in shown and "after" in shown, name
        for other in _forms(secret).values():
            assert other not in shown, (name, shown)


ENCODINGS = {
    "raw": lambda s: s,
    "repr": lambda s: repr(s)[1:-1],
    "json": lambda s: json.dumps(s)[1:-1],
    "html": html.escape,
}


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("mark", ["…", "..."])
@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_a_cut_keeping_six_characters_or_more_before_a_cut_mark_is_hidden(
    secret: str, mark: str, encoding: str
) -> None:
    """Cut, then written (the harness cuts a screen text, then writes it as JSON), or written, then
    cut (a message cut after formatting): either way, once the first six characters are in it."""
    encode = ENCODINGS[encoding]
    redactor = Redactor([secret])
    whole, head = encode(secret), encode(secret[:MIN_CUT])
    cuts = [encode(secret[:keep]) for keep in range(MIN_CUT, len(secret))]
    # written whole, then cut anywhere past the first six characters (a quote style chosen for the
    # whole text may escape one more character of them than their own form does)
    cuts += [whole[:keep] for keep in range(len(head) + MIN_CUT, len(whole))]
    for cut in cuts:
        shown = redactor.text(f"screen shows: '{cut}{mark}' and more")
        assert shown == f"screen shows: '***{mark}' and more", (cut, shown)


def test_what_merely_starts_like_a_secret_is_left_alone() -> None:
    redactor = Redactor(["secret123"])
    assert redactor.text("secret") == "secret"  # a whole text: a word, not a cut
    assert redactor.value({"secret": True}) == {"secret": True}
    assert redactor.text("secr…") == "secr…"  # fewer than MIN_CUT characters
    assert redactor.text("secret12 and more") == "secret12 and more"  # not at a cut
    assert redactor.text("secret12…") == "***…"


def test_a_long_secret_cut_at_200_characters_leaks_nothing() -> None:
    secret = "L0ng-" + "".join(chr(ord("a") + (n * 7) % 26) for n in range(240))
    shown = Redactor([secret]).value({"texts": [secret[:200] + "…"], "error": repr(secret)[:150] + "..."})
    assert shown == {"texts": ["***…"], "error": "'***..."}


def test_url_credentials_are_secrets_in_any_url() -> None:
    url = "http://qa:Pw0rd-77@host:8100/v1?api-key=K3y-55&platform=ios&access_token=T0k"
    assert url_secrets(url) == ["Pw0rd-77", "K3y-55", "T0k"]
    assert url_secrets("https://ghp_T0ken@github.example/x") == ["ghp_T0ken"]
    assert url_secrets("http://127.0.0.1:8100") == []
    shown = redact_url(f"GET {url} failed; retry https://ghp_T0ken@h/x?key=v&monkey=1")
    assert shown == (
        "GET http://qa:***@host:8100/v1?api-key=***&platform=ios&access_token=*** failed; "
        "retry https://***@h/x?key=***&monkey=***"
    )
    redactor = Redactor()
    redactor.add_url(url)
    assert (
        redactor.text("the server said: bad key K3y-55 for user qa")
        == "the server said: bad key *** for user qa"
    )
    assert redactor.text("no url here, key=value?") == "no url here, key=value?"


def test_the_log_formatter_hides_secrets_in_arguments_and_tracebacks() -> None:
    secret = "ab\\cd-ef-42"
    formatter = RedactingFormatter(Redactor([secret]), "%(message)s")
    try:
        raise ValueError(secret)
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "typed %r", (secret,), None)
        record.exc_info = __import__("sys").exc_info()
    shown = formatter.format(record)
    assert "typed '***'" in shown and "ValueError: ***" in shown
    assert secret not in shown and repr(secret) not in shown
