"""What the uiautomator2 server on the phone answers, read from the exceptions uiautomator2 raises.

The server uiautomator2 3.x starts (u2.jar, ``com.wetest.uia2.Main``) answers JSON-RPC through
jsonrpc4j: an exception a method throws comes back as code -32001 with the Java class as message and
the stack trace as data; jsonrpc4j's own refusals as -32700 … -32603; NanoHTTPD's text pages as
other HTTP statuses. uiautomator2 (``core._jsonrpc_call``) raises ``UiAutomationNotConnectedError``,
``UiObjectNotFoundError`` or ``RPCStackOverflowError`` for some, and ``RPCUnknownError("Unknown RPC
error: CODE CLASS", params, data)`` for every other; a server that dies at start is
``LaunchUiAutomationError("server quit unexpectly", output)`` or
``AccessibilityServiceAlreadyRegisteredError(output)``. The functions here read those exceptions
back into what the server said; :mod:`drivers.u2.errors` builds the harness errors from them. Every
answer is in ``tests/fixtures/backend_errors/u2.yaml`` with its source.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import uiautomator2.exceptions as u2e

__all__ = [
    "JAVA_CLASSES",
    "PROTOCOL_CODES",
    "http_status",
    "java_class",
    "rpc_code",
    "rpc_message",
    "says_any",
    "server_says",
    "start_cause",
    "trace_head",
    "uiautomation_broken",
]

_RPC = re.compile(r"Unknown RPC error: (-?\d+)\s*(\S*)")
_HTTP = re.compile(r"^HTTP request failed: (\d{3})\b\s*(.*)")
_CAUSE = re.compile(r"^(?:Caused by: )?((?:[a-z][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b.*)$", re.M)

# jsonrpc4j's refusals of the request itself (ErrorResolver.JsonError): a client and a server that
# do not speak the same methods.
PROTOCOL_CODES: dict[int, str] = {
    -32700: "could not parse the request",
    -32600: "found the request invalid",
    -32601: "does not know the method",
    -32602: "does not take these parameters for the method",
}

# Java exceptions a server method throws that say something about the harness's step (by the
# simple class name Main.java's ErrorResolver puts in the message).
JAVA_CLASSES: dict[str, str] = {
    "StaleObjectException": "stale",
    "IllegalArgumentException": "argument",
    "NotImplementedException": "unsupported",
    "RemoteException": "system",
}


def _text(exc: BaseException) -> str:
    return " ".join(str(a) for a in exc.args if isinstance(a, str | int))


def server_says(exc: BaseException) -> str:
    """Everything the server's answer carried (message and stack trace) as one text."""
    return "\n".join(str(a) for a in exc.args if isinstance(a, str))


def rpc_code(exc: BaseException) -> int | None:
    """The JSON-RPC error code of an ``RPCUnknownError``."""
    match = _RPC.search(_text(exc)) if isinstance(exc, u2e.RPCUnknownError) else None
    return int(match.group(1)) if match else None


def rpc_message(exc: BaseException) -> str:
    """The JSON-RPC error message of an ``RPCUnknownError`` (jsonrpc4j's words, or a Java class)."""
    text = str(exc.args[0]) if isinstance(exc, u2e.RPCUnknownError) and exc.args else ""
    match = _RPC.search(text)
    return text[match.end(1) :].strip() if match else ""


def java_class(exc: BaseException) -> str:
    """The simple name of the Java exception a -32001 answer names (``IllegalArgumentException``)."""
    match = _RPC.search(_text(exc)) if isinstance(exc, u2e.RPCUnknownError) else None
    return match.group(2).rsplit(".", 1)[-1] if match else ""


def trace_head(exc: BaseException) -> str:
    """The first line of the stack trace an answer carried (``java.lang.X: why``), else ''."""
    trace = exc.args[2] if len(exc.args) > 2 and isinstance(exc.args[2], str) else ""
    return trace.strip().splitlines()[0].strip() if trace.strip() else ""


def http_status(exc: BaseException) -> tuple[int, str] | None:
    """(status, reason) when uiautomator2's ``HTTPError`` is an HTTP answer, not a lost connection."""
    if not isinstance(exc, u2e.HTTPError) or isinstance(exc, u2e.HTTPTimeoutError):
        return None
    match = _HTTP.match(str(exc.args[0]) if exc.args else "")
    return (int(match.group(1)), match.group(2).strip()) if match else None


def uiautomation_broken(exc: BaseException) -> bool:
    """The server's UiAutomation is broken, though the server answers: Android 12's
    ``AccessibilityServiceInfo.flags`` NullPointerException (UiAutomation lost its service info, as
    when another client took it), on which a new server is the cure as for "not connected"."""
    says = server_says(exc)
    return isinstance(exc, u2e.RPCUnknownError) and (
        "AccessibilityServiceInfo" in says and "null object reference" in says
    )


def start_cause(exc: BaseException) -> str:
    """Why a server died at start: the innermost Java exception line of its output, else ''."""
    output = "\n".join(str(a) for a in exc.args[1:] if isinstance(a, str))
    if isinstance(exc, u2e.AccessibilityServiceAlreadyRegisteredError):
        output = "\n".join(str(a) for a in exc.args if isinstance(a, str))
    causes = _CAUSE.findall(output)
    return causes[-1].strip() if causes else ""


def says_any(*needles: str) -> Callable[[BaseException], bool]:
    """A row test: the server's answer holds one of ``needles``."""
    return lambda exc: any(n in server_says(exc) for n in needles)
