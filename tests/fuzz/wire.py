"""One fuzzed call: record the reply points a call reads, then run it with one answer made hostile.

:func:`reply_points` runs a call once with answers untouched and returns the routes of the answers
it read (in the faces' own names: ``source``, ``rpc:dumpWindowHierarchy``, ``adb:shell:dumpsys``,
``adb:host:devices-l`` …), so the points fuzzed are found from the wire, never listed by hand.
:func:`run_hostile` runs the call with every answer on one route rewritten by one shape and says
what came out: a value, a harness error, or anything else (an untyped exception, the finding).
"""

from __future__ import annotations

import random
import traceback
from dataclasses import dataclass

from amc.core.errors import HarnessError
from amc.sim.faults import Answer

from tests.fuzz.calls import Rig, allowed
from tests.fuzz.shapes import Shape

__all__ = ["Outcome", "reply_points", "run_hostile"]


@dataclass(frozen=True)
class Outcome:
    """What one hostile call came to: ``ok`` (a value the protocol allows, or a HarnessError), and
    for anything else the exception's class and where it was raised."""

    ok: bool
    what: str = ""
    where: str = ""


def reply_points(rig: Rig, name: str) -> tuple[str, ...]:
    """The routes of the answers ``name`` reads, in the order first read."""
    seen: list[str] = []

    def record(answer: Answer) -> Answer:
        if answer.route not in seen:
            seen.append(answer.route)
        return answer

    rig.reset_device()
    call = rig.call(name)
    rig.faults.set_rewrite(record)
    try:
        call()
    except HarnessError:
        rig.drop()  # the call's own refusal (no keyboard to type into, Unsupported): its replies count
    finally:
        rig.faults.set_rewrite(None)
    return tuple(seen)


def run_hostile(rig: Rig, name: str, route: str, shape: Shape, seed: int) -> Outcome:
    """Run ``name`` with the answers on ``route`` made hostile by ``shape`` (seeded)."""
    rig.reset_device()
    call = rig.call(name)

    def hostile(answer: Answer) -> Answer:
        return shape.make(answer, random.Random(seed)) if answer.route == route else answer

    rig.faults.set_rewrite(hostile)
    try:
        value = call()
    except HarnessError:
        rig.drop()
        return Outcome(True)
    except Exception as exc:  # noqa: BLE001 - the finding: anything but the harness's typed errors
        rig.drop()
        frames = traceback.extract_tb(exc.__traceback__)
        own = [f for f in frames if "/amc/" in f.filename or "/drivers/" in f.filename] or frames
        last = own[-1]
        return Outcome(False, f"{type(exc).__name__}: {str(exc)[:160]}", f"{last.filename}:{last.lineno}")
    finally:
        rig.faults.set_rewrite(None)
    if allowed(name, value):
        return Outcome(True)
    rig.drop()
    return Outcome(False, f"returned {value!r:.160}", "the protocol does not allow it")
