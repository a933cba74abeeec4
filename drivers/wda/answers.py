"""What WebDriverAgent answered, read out of facebook-wda's exceptions, per generation.

appium/WebDriverAgent answers W3C errors (``{"value": {"error", "message", "traceback"}}`` with the
HTTP status of FBCommandStatus.m); the archived Facebook WebDriverAgent (iOS 13 and older) answers
HTTP 200 with a JSON-wire ``status`` from FBCommandStatus.h and the error's text as ``value``, which
facebook-wda since 2020 passes as a value. :func:`json_wire_error` turns such a reply into the W3C
error it means, so one table reads both. :func:`lost_session` says whether an answer is WDA
refusing a command under a session it lost, and what that means for repeating the command. Every
answer is in ``tests/fixtures/backend_errors/wda.yaml`` with its source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from wda.exceptions import (
    WDAError,
    WDAInvalidSessionIdError,
    WDAKeyboardNotPresentError,
    WDAPossiblyCrashedError,
    WDARequestError,
    WDAStaleElementReferenceError,
    WDAUnknownError,
)

from ...core.errors import ConfigError, HarnessError
from ..error_table import quote

__all__ = [
    "JSON_WIRE_ERRORS",
    "LostSession",
    "NotWdaReply",
    "answered",
    "json_wire_error",
    "lost_session",
    "not_wda",
    "wda_error",
]

# JSON-wire status codes of the archived Facebook WebDriverAgent (FBCommandStatus.h at e364eea0)
# -> the W3C error name the table reads.
JSON_WIRE_ERRORS: dict[int, str] = {
    1: "unknown command",  # FBCommandStatusUnsupported: "Unhandled endpoint: …"
    6: "invalid session id",
    7: "no such element",
    8: "no such frame",
    9: "unknown command",
    10: "stale element reference",
    11: "element not visible",
    12: "invalid element state",
    13: "unknown error",
    15: "invalid argument",  # also FBCommandStatusElementNotSelectable: the enum gives both 15
    17: "javascript error",
    19: "invalid selector",
    21: "timeout",
    23: "no such window",
    26: "unexpected alert open",
    27: "no such alert",
    28: "script timeout",
    29: "invalid coordinates",
    30: "unsupported operation",
    31: "unsupported operation",
    32: "invalid selector",
    33: "session not created",
    34: "move target out of bounds",
    51: "invalid selector",  # FBCommandStatusInvalidXPathSelector
    52: "invalid selector",  # FBCommandStatusInvalidXPathSelectorReturnType
    405: "unknown method",
    888: "unknown error",  # application deadlock detected
    889: "unknown error",  # application crash detected ("Application is not running, possibly crashed")
}

# facebook-wda's own classes for an error reply, tried in its order (wda._unsafe_httpdo).
_CLASSES: tuple[type[WDARequestError], ...] = (
    WDAInvalidSessionIdError,
    WDAPossiblyCrashedError,
    WDAKeyboardNotPresentError,
    WDAUnknownError,
    WDAStaleElementReferenceError,
)


class NotWdaReply(WDAError):  # type: ignore[misc]  # facebook-wda ships no type information
    """A reply whose body is not WebDriverAgent's JSON: a proxy's error page, another server at the
    port. ``status`` is the HTTP status, ``text`` the body as sent (facebook-wda's own ``WDAError``
    keeps neither the status nor more than 100 characters)."""

    def __init__(self, method: str, url: str, status: int, text: str) -> None:
        super().__init__(method, url, text[:100])
        self.status = status
        self.text = text


def wda_error(exc: BaseException) -> tuple[str, str]:
    """WDA's ``(error, message)`` from a ``WDARequestError`` (empty strings otherwise)."""
    value = getattr(exc, "value", None)
    if isinstance(value, dict):
        return str(value.get("error") or ""), str(value.get("message") or "")
    return "", str(value or "")


def json_wire_error(status: object, value: object) -> WDARequestError | None:
    """The error a JSON-wire reply with a non-zero ``status`` means (None for 0 or no status), as
    the class facebook-wda gives the same W3C answer."""
    if isinstance(status, bool) or not isinstance(status, int) or status == 0:
        return None
    name = JSON_WIRE_ERRORS.get(status, "unknown error")
    message = value if isinstance(value, str) else str(value)
    payload = {"error": name, "message": message, "status": status}
    cls = next((c for c in _CLASSES if c.check(payload)), WDARequestError)
    return cls(status, payload)


def answered(*kinds: str, says: tuple[str, ...] = ()) -> Callable[[BaseException], bool]:
    """A row test: WDA answered one of ``kinds`` (any when none), with a message holding one of
    ``says`` (any message when none)."""

    def test(exc: BaseException) -> bool:
        error, message = wda_error(exc)
        return (not kinds or error in kinds) and (not says or any(s in message for s in says))

    return test


@dataclass(frozen=True)
class LostSession:
    """WDA refused a command under a session it no longer has, before running it.

    ``what`` says what happened; ``screen_kept`` whether the screen the command was aimed at is
    still there: after an unknown session (WDA restarted, or another client opened one: FBRoute.m
    refuses before any handler runs) it is; after "… is not running, possibly crashed" (FBSession.m:
    the app under test is gone) it is not.
    """

    what: str
    screen_kept: bool


def lost_session(exc: BaseException) -> LostSession | None:
    """What a lost-session answer says, or None when ``exc`` is not one."""
    if isinstance(exc, WDAInvalidSessionIdError):
        return LostSession(
            "WebDriverAgent no longer knows the session (it was restarted, or another client opened one)",
            screen_kept=True,
        )
    if isinstance(exc, WDAPossiblyCrashedError):
        _, message = wda_error(exc)
        app = message.split("bundle id '", 1)[1].split("'", 1)[0] if "bundle id '" in message else ""
        named = f" ({app})" if app else ""
        said = f" (WebDriverAgent: “{quote(message, 300)}”)" if message else ""
        return LostSession(
            f"the app under test{named} is not running: it crashed or was closed{said}", screen_kept=False
        )
    return None


# Appium's own /status (appium/appium lib/appium.js getStatus: ``ready``, ``message``, ``build``), as a
# user's curl printed it (find_string id 284464873): what answers when the URL is Appium's.
_APPIUM_READY = "ready to accept new connections"


def not_wda(status: Mapping[str, Any], url: str) -> HarnessError | None:
    """The error for a ``/status`` that is not WebDriverAgent's (every WDA generation reports
    ``os`` and ``ios``: tests/fixtures/real/ios/wda-status-*), or None: Appium's names itself."""
    if "os" in status or "ios" in status:
        return None
    message = status.get("message")
    build = status.get("build")
    version = build.get("version") if isinstance(build, dict) else None
    if isinstance(message, str) and _APPIUM_READY in message:
        return ConfigError(
            f"an Appium server answers at {url}, not WebDriverAgent (its /status says “{message}”"
            + (f", Appium {version}" if isinstance(version, str) else "")
            + ")",
            hint=f"drive it as Appium: appium:{url}?platform=ios (or give the WebDriverAgent's own URL, "
            "port 8100 by default)",
        )
    return ConfigError(
        f"the server at {url} answers /status, but not as WebDriverAgent does (no os, no ios): "
        f"{quote(repr(dict(status)), 200)}",
        hint="give WebDriverAgent's URL (port 8100 by default, through iproxy for a USB iPhone)",
    )
