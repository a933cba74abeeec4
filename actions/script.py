"""``script``: what a flow's JavaScript did, recorded as a step of its own (nothing reaches the device).

Maestro's ``evalScript``, ``runScript`` and ``assertTrue`` run in the flow interpreter
(:mod:`amc.flows.scripting`) when their turn comes, as does any ``${...}`` a step's values hold. The
interpreter hands out this step with what happened: the command, its file, what the script gave
(``value``), its ``console.log`` lines (``logs``), the HTTP calls it made (``http``), how long it ran
(``seconds``) and, when it failed, the error (``error``: its kind, message and place; see
:func:`recorded_error`). The step then passes, or fails with that error, so a failed script is a
failed step like any other: the report, the timeline and JUnit show the script's file, line and
JavaScript message. What the script put in ``output`` comes with the step as values to remember
(the world model's variables; the common ``remember`` / ``secret`` arguments).

Only flows hand this step out (``offered=False``: agents have no JavaScript).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import (
    AssertionFailed,
    FlowError,
    HarnessError,
    ScriptError,
    ScriptMemoryExceeded,
    ScriptSyntaxError,
    ScriptTimeout,
)
from ..drivers.base import Driver
from .base import Action, MaestroForm, Param, Screen
from .kinds import Anything, Number, Text

__all__ = ["ACTION", "MAX_LOG_LINES", "MAX_VALUE", "recorded_error"]

MAX_LOG_LINES = 200  # console lines a step keeps (the engine keeps 1,000 per evaluation; the rest: a count)
MAX_VALUE = 2000  # characters of a script's value a step keeps


def recorded_error(error: HarnessError) -> dict[str, Any]:
    """``error`` as this step's ``error`` argument: what :func:`_raised` makes it again."""
    out: dict[str, Any] = {"kind": error.kind, "message": error.message}
    if error.hint:
        out["hint"] = error.hint
    for name in ("file", "line", "column", "js_name", "js_message", "limit"):
        value = getattr(error, name, None)
        if value is not None:
            out[name] = value
    return out


def _raised(error: Mapping[str, Any]) -> HarnessError:
    """The error a recorded ``error`` stands for, with its kind, message (place included) and fields."""
    kind, message = str(error.get("kind")), str(error.get("message"))
    hint = error.get("hint") if isinstance(error.get("hint"), str) else None
    made: HarnessError
    if kind == "ScriptTimeout":
        made = ScriptTimeout(message, limit=float(error.get("limit") or 0))
    elif kind == "ScriptMemoryExceeded":
        made = ScriptMemoryExceeded(message, limit=int(error.get("limit") or 0))
    elif kind == "ScriptSyntaxError":
        made = ScriptSyntaxError(str(error.get("js_message") or message))
        made.message = message
    elif kind == "AssertionFailed":
        made = AssertionFailed(message)
    elif kind == "FlowError":
        made = FlowError(message)
    else:
        made = ScriptError(message)
    made.hint = hint if hint is not None else made.hint
    for name in ("file", "line", "column", "js_name", "js_message"):
        if name in error and hasattr(made, name):
            setattr(made, name, error[name])
    return made


def _record(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    error = args.get("error")
    if isinstance(error, Mapping):
        raise _raised(error)
    return {key: args[key] for key in ("command", "file", "value", "logs", "http", "seconds") if key in args}


ACTION = Action(
    "script",
    "record what a flow's JavaScript did (evalScript, runScript, assertTrue, a ${...})",
    _record,
    params=(
        Param("command", Text(max_length=200), "the Maestro command whose JavaScript this is", required=True),
        Param("file", Text(max_length=4096), "the script's file, or the flow's"),
        Param("value", Text(allow_empty=True, max_length=MAX_VALUE + 1), "what the script gave, as text"),
        Param("logs", Anything(), "its console.log lines"),
        Param("http", Anything(), "the HTTP calls it made"),
        Param("seconds", Number(0, 1e6), "how long it ran"),
        Param("error", Anything(), "why it failed (its kind, message and place)"),
    ),
    idempotent=False,  # an HTTP call may have been made: never run twice behind the flow's back
    looks_after=False,
    offered=False,
    ran_for="seconds",  # the interpreter ran the script before the step's turn: the step took that long
    maestro=(
        MaestroForm(
            "evalScript", short="script", note="runs between two device steps, in the flow's context"
        ),
        MaestroForm(
            "runScript",
            short="file",
            note="the file is read with the flow (relative to it, within the flow's folder tree); "
            "`env` and `when` as in Maestro",
        ),
        MaestroForm(
            "assertTrue", short="condition", note="Maestro's truth rule: '', false, 0, null, undefined"
        ),
    ),
)
