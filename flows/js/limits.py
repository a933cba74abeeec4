"""How far one script context may go: time, memory, the size of what crosses, HTTP calls.

Every bound of :mod:`amc.flows.js` is a field here, with its default, so a caller states its own in one
value and a reader finds them all in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ScriptLimits"]

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class ScriptLimits:
    """The bounds of one :class:`~amc.flows.js.ScriptContext`.

    - ``time_limit``: wall-clock seconds one evaluation (a ``${...}``, an ``evalScript``, a
      ``runScript`` file) may take, the time its HTTP calls wait included; past it the script is
      stopped (a ``try``/``catch`` in the script cannot keep it going) and the step fails with
      ``ScriptTimeout``. ``grace`` more seconds are given to a script stuck in one long native
      operation, which the engine can only stop once it returns; then the context is given up.
    - ``memory_limit``: bytes of JavaScript heap of the context, ``output`` included; an allocation
      past it fails (``ScriptMemoryExceeded``) and the context goes on.
    - ``stack_limit``: bytes of native stack for the engine (deep recursion is a ``RangeError``);
      at most 4 MiB, the most the engine accepts without risking the thread's own stack.
    - ``max_source``: characters of one expression or script file.
    - ``max_value_bytes``, ``max_depth``, ``max_items``: any value crossing between the harness and
      JavaScript (variables in, the result out, ``output`` read, HTTP parameters and responses): its
      size in bytes as the engine copies it, its nesting, its number of strings, numbers, lists and
      objects all together.
    - ``max_log_lines``, ``max_log_line``: ``console.log`` lines kept per evaluation, and characters
      per line; more are dropped and a last line says how many.
    - ``http_timeout``: seconds one HTTP call may take (less when the evaluation has less left);
      ``http_max_calls`` per evaluation; ``http_max_response_bytes`` of one response body.
    """

    time_limit: float = 10.0
    grace: float = 2.0
    memory_limit: int = 64 * MIB
    stack_limit: int = 1 * MIB
    max_source: int = 1 * MIB
    max_value_bytes: int = 4 * MIB
    max_depth: int = 64
    max_items: int = 100_000
    max_log_lines: int = 1_000
    max_log_line: int = 4 * KIB
    http_timeout: float = 10.0
    http_max_calls: int = 100
    http_max_response_bytes: int = 4 * MIB

    def __post_init__(self) -> None:
        for name in ("time_limit", "grace", "http_timeout"):
            value = getattr(self, name)
            if not value > 0 or value == float("inf"):
                raise ValueError(
                    f"ScriptLimits.{name} must be a finite number of seconds above 0, not {value!r}"
                )
        for name in (
            "memory_limit",
            "stack_limit",
            "max_source",
            "max_value_bytes",
            "max_depth",
            "max_items",
            "max_log_lines",
            "max_log_line",
            "http_max_calls",
            "http_max_response_bytes",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ScriptLimits.{name} must be a whole number above 0, not {value!r}")
        if self.memory_limit < 1 * MIB:
            raise ValueError(
                "ScriptLimits.memory_limit must be at least 1 MiB: the context itself needs about 200 KiB"
            )
        if not 64 * KIB <= self.stack_limit <= 4 * MIB:
            raise ValueError("ScriptLimits.stack_limit must be between 64 KiB and 4 MiB")
