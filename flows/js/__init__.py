"""JavaScript in flows, as Maestro runs it: ``${...}``, ``evalScript``, ``runScript``, ``output``.

One :class:`ScriptContext` per flow run (its subflows share it) evaluates expressions and scripts
in an embedded engine (QuickJS-ng, through the ``jsbox`` package) that reaches nothing of the host:
no files, processes, environment, timers or network, only what the caller hands in (variables,
``maestro.copiedText``, an HTTP handler). Each evaluation is bounded in time and memory
(:class:`ScriptLimits`), and so is every value that crosses (:mod:`amc.flows.js.values`).
:func:`check_syntax` finds syntax errors before anything runs. ``docs/maestro.md`` (its
JavaScript section) has the engine's choice and its costs; :mod:`amc.flows.scripting` runs a flow's
JavaScript with one context per run.

    with ScriptContext(platform="android", http=handler) as js:
        js.run_script(source, filename="scripts/createUser.js", env={"BASE_URL": url})
        js.evaluate("output.user.email", where=position).text
"""

from .engine import EXPRESSION_FILE, Location, ScriptContext, ScriptResult, check_syntax
from .http import HttpHandler, HttpRefused, HttpRequest, HttpResponse
from .limits import ScriptLimits
from .values import MAX_SAFE_INTEGER, JsValue

__all__ = [
    "EXPRESSION_FILE",
    "MAX_SAFE_INTEGER",
    "HttpHandler",
    "HttpRefused",
    "HttpRequest",
    "HttpResponse",
    "JsValue",
    "Location",
    "ScriptContext",
    "ScriptLimits",
    "ScriptResult",
    "check_syntax",
]
