"""What one command of a simulated Android phone's shell answers: :class:`ShellResult`.

Its own module, under the shell (:mod:`sim.adb_shell`) and the commands it dispatches to
(:mod:`sim.adb_commands`, :mod:`sim.adb_state`), so those can build an answer without importing
the shell that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ShellResult"]


@dataclass(frozen=True)
class ShellResult:
    """What a command printed (stdout and stderr interleaved, as shell v1 does) and its exit code."""

    output: bytes
    code: int = 0
