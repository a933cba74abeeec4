"""What the wire fuzz covers, counted: ``python -m tests.fuzz.count``.

Prints, per adapter, the calls fuzzed, the reply points they read (found from the wire, as the
test finds them), and in total the calls, the reply shapes, the (point x shape) pairs the sweep sends
and the examples a run makes (the sweep plus hypothesis's EXAMPLES per call with reply points).
"""

from __future__ import annotations

from amc.sim.faults import Answer

from tests.fuzz.calls import ADAPTERS, Rig, calls_for
from tests.fuzz.shapes import SHAPES, kind_of, shapes_for
from tests.fuzz.test_wire_fuzz import EXAMPLES
from tests.fuzz.wire import reply_points


def main() -> None:
    calls = pairs = examples = points_total = 0
    for adapter in ADAPTERS:
        rig = Rig(adapter).start()
        try:
            names = calls_for(adapter)
            points = {name: reply_points(rig, name) for name in names}
        finally:
            rig.stop()
        swept = sum(len(shapes_for(kind_of(Answer(p, b"")))) for ps in points.values() for p in ps)
        with_points = sum(1 for ps in points.values() if ps)
        calls += len(names)
        points_total += sum(len(ps) for ps in points.values())
        pairs += swept
        examples += swept + EXAMPLES * with_points + (len(names) - with_points)
        read = sum(len(ps) for ps in points.values())
        print(f"{adapter}: {len(names)} calls, {read} reply points, {swept} point x shape pairs")
    print(
        f"total: {calls} calls x {len(SHAPES)} reply shapes; {points_total} reply points, "
        f"{pairs} point x shape pairs swept, {examples} examples a run "
        f"({EXAMPLES} hypothesis examples per call)"
    )


if __name__ == "__main__":
    main()
