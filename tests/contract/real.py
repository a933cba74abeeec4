"""Reading the real outputs in ``tests/fixtures/real`` for replay through the faces.

The files hold outputs as they were published (see their PROVENANCE.md): some carry a log prefix,
a client's rendering or are cut. These helpers take out exactly the bytes a device sent, and say
so where a test must complete them (:func:`w3c` puts a real message into WDA's error envelope,
:func:`closed` closes the elements a cut XML fragment left open). Nothing here invents an answer.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from amc.drivers.connect import connect
from amc.sim.device import SimDevice
from amc.sim.faults import FaultInjector
from amc.sim.replay import Reply

__all__ = [
    "REAL",
    "closed",
    "connected",
    "json_after",
    "json_string",
    "log_json",
    "real_text",
    "reply",
    "ruby_value",
    "value_reply",
    "w3c",
]

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
_CUT = "[...]"
_TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)([^<>]*?)(/?)>")


@contextmanager
def connected(
    spec: str, device: SimDevice, replies: dict[str, Reply], kind: type[Any], **options: Any
) -> Iterator[tuple[Any, FaultInjector]]:
    """The real adapter of ``spec`` connected to ``device``'s face, which answers with ``replies``;
    its fault injector counts from after the connection."""
    faults = FaultInjector()
    driver = connect(spec, device=device, faults=faults, replies=replies, **options)
    assert isinstance(driver, kind)
    try:
        faults.reset_counts()
        yield driver, faults
    finally:
        driver.close()


def real_text(name: str) -> str:
    """A fixture's text without the collector's ``[...]`` marks (lines the source had there are
    missing, as the fixture's PROVENANCE row says)."""
    text = (REAL / name).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if line.strip() != _CUT) + "\n"


def json_after(name: str, marker: str = "Got response with status") -> Any:
    """The JSON object a log line carries after ``marker`` (``… status 200: {…}``)."""
    for line in real_text(name).splitlines():
        at = line.find(marker)
        if at >= 0:
            start = line.index("{", at)
            return json.loads(line[start:])
    raise ValueError(f"{name} has no line with {marker!r}")


def json_string(name: str, key: str) -> str:
    """The JSON string value of ``"key": "…"`` in a fixture whose JSON is cut further on (a log line
    that stops inside the stack trace): the string itself is whole."""
    text = real_text(name)
    match = re.search(rf'"{re.escape(key)}"\s*:\s*("(?:[^"\\]|\\.)*")', text)
    if match is None:
        raise ValueError(f"{name} has no whole string for {key!r}")
    return str(json.loads(match.group(1)))


def log_json(name: str, prefix: str = "[WD Proxy]") -> Any:
    """A JSON body an Appium log printed over several lines, each after ``prefix``."""
    lines = []
    for line in real_text(name).splitlines():
        at = line.find(prefix)
        if at < 0:
            continue
        rest = line[at + len(prefix) :]
        if "Got response with status" in rest:
            rest = rest[rest.index("{") :]
        lines.append(rest)
    return json.loads("\n".join(lines))


def ruby_value(text: str) -> Any:
    """A Ruby hash as irb printed it (``{"k"=>"v"}``) as the JSON value it was."""
    return json.loads(text.strip().removeprefix("=> ").replace("=>", ": "))


def python_value(text: str) -> Any:
    """A Python repr as a client printed it (``{'k': 'v', 'ok': False}``)."""
    return ast.literal_eval(" ".join(text.split()))


def reply(body: str | bytes | Any, status: int = 200) -> Reply:
    """A played-back HTTP answer: ``body`` as sent (text or bytes), or a value encoded as JSON."""
    if isinstance(body, str):
        return Reply(body.encode("utf-8"), status=status)
    if isinstance(body, bytes):
        return Reply(body, status=status)
    return Reply(json.dumps(body, ensure_ascii=False).encode("utf-8"), status=status)


def value_reply(value: Any, status: int = 200) -> Reply:
    """WDA's envelope ``{"value": …, "sessionId": null}`` around a real reply's value."""
    return reply({"value": value, "sessionId": None}, status)


def w3c(error: str, message: str, status: int, *, trace: str = "traceback") -> Reply:
    """A W3C error answer whose ``error`` and ``message`` are real (WDA's envelope around them: the
    published copies cut the stack trace, which clients do not read)."""
    return reply({"value": {"error": error, "message": message, trace: ""}, "sessionId": None}, status)


def closed(fragment: str) -> str:
    """An XML fragment with the elements it left open closed, in order (a cut page source)."""
    keep = fragment[: fragment.rfind(">") + 1]
    stack: list[str] = []
    for match in _TAG.finditer(keep):
        closing, name, _, self_closing = match.groups()
        if name.startswith("?") or self_closing:
            continue
        if closing:
            if stack and stack[-1] == name:
                stack.pop()
        else:
            stack.append(name)
    return keep + "".join(f"</{name}>" for name in reversed(stack)) + "\n"
