"""What running a flow's JavaScript in a child process costs, against the engine in the harness's process.

Issue 40 moved the engine (QuickJS-ng through jsbox) into a child process the harness ends at the
limit (:mod:`amc.flows.js._process`), so that a native built-in cannot hold the harness. The baseline
is the engine as it ran before, on a thread of the harness's own process
(``ScriptContext(isolation="thread")``); the contender is the default (``isolation="process"``),
with its warm spare child. Both run in this process, in the same run, interleaved
(:func:`benchmarks.common.interleaved`: blocks whose order rotates), and each table is measured
again, round after round, until two rounds in a row agree: every paired ratio within 10% of the
round before (at most ``--rounds`` rounds; the table says how many it took and the last spread).

- **Per evaluation**: one ``evaluate`` on a warm context: ``1 + 1``; ``output.n = …`` with
  ``output`` read back (what every ``${...}`` of a flow run does); a 6-line ``runScript``.
- **Per flow**: what a flow's JavaScript costs whole: a fresh context, its first evaluation (the
  engine started, the prelude run), nine more with ``output`` read back, closed.

Run: ``python benchmarks/js_process.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from amc.flows.js import ScriptContext  # noqa: E402
from amc.flows.js._process import spare_ready  # noqa: E402

from benchmarks.common import Stats, Table, interleaved, rotations, trim_allocator  # noqa: E402

__all__ = ["run"]

SCRIPT = """const n = (output.n || 0) + 1;
output.n = n;
output.user = {name: USER.toLowerCase(), id: n};
if (n < 0) {
  throw new Error('never');
}
"""
BASE = "thread"  # the engine before issue 40: in the harness's process
NEW = "process"
AGREE = 0.10
READY = "the spare ready (a flow's device steps give it the time)"
BACK_TO_BACK = "flows back to back (the spare may still be starting)"


def _evaluations(context: ScriptContext) -> dict[str, Callable[[], object]]:
    return {
        "`1 + 1`": lambda: context.evaluate("1 + 1"),
        "`output.n = …`, output read back": lambda: context.evaluate(
            "output.n = (output.n || 0) + 1", with_output=True
        ),
        "a 6-line `runScript`": lambda: context.run_script(
            SCRIPT, filename="make.js", env={"USER": "QA"}, with_output=True
        ),
    }


def _flow(isolation: str) -> Callable[[], object]:
    def once() -> object:
        with ScriptContext(platform="android", isolation=isolation) as context:  # type: ignore[arg-type]
            context.evaluate("1")
            for n in range(9):
                context.evaluate(f"output.n{n} = {n}", with_output=True)
            return context.output()

    return once


def _until_stable(
    measure: Callable[[], dict[str, dict[str, Stats]]], rounds: int, judged: tuple[str, ...] = ()
) -> tuple[dict[str, dict[str, Stats]], int, float]:
    """``measure()`` (row -> {BASE, NEW} stats) again until two rounds' ratios of minimums agree
    (the minimum is what a busy machine disturbs least; the paired median ratio is shown beside it)."""
    last: dict[str, float] | None = None
    spread = float("inf")
    taken = 0
    result: dict[str, dict[str, Stats]] = {}
    for taken in range(1, rounds + 1):  # noqa: B007 - the count is the answer
        result = measure()
        ratios = {row: s[NEW].min / s[BASE].min for row, s in result.items() if not judged or row in judged}
        if last is not None:
            spread = max(abs(ratios[row] / last[row] - 1) for row in ratios)
            if spread <= AGREE:
                break
        last = ratios
    return result, taken, spread


def _agreement(blocks: int, taken: int, spread: float) -> str:
    if spread == float("inf"):
        return f"median of {blocks} interleaved blocks per contender; {taken} round(s), none compared"
    said = "agreed with the one before" if spread <= AGREE else "still differed from the one before"
    return (
        f"median of {blocks} interleaved blocks per contender; round {taken} {said} "
        f"(largest change of a ratio of minimums {spread:.2%}, the bar {AGREE:.0%}); "
        "µs/ms: medians"
    )


def _rows(result: dict[str, dict[str, Stats]], scale: float, digits: int) -> list[list[str]]:
    rows = []
    for row, stats in result.items():
        base, new = stats[BASE], stats[NEW]
        rows.append(
            [
                row,
                f"{base.median * scale:.{digits}f}",
                f"{new.median * scale:.{digits}f}",
                f"{new.min / base.min:.2f}x",
                f"{new.paired(base):.2f}x",
                f"{(new.median - base.median) * scale:+.{digits}f}",
            ]
        )
    return rows


def _evaluation_table(blocks: int, rounds: int) -> Table:
    contexts = {name: ScriptContext(platform="android", isolation=name) for name in (BASE, NEW)}  # type: ignore[arg-type]
    for context in contexts.values():
        context.evaluate("1")
    calls = {name: _evaluations(context) for name, context in contexts.items()}

    def measure() -> dict[str, dict[str, Stats]]:
        out: dict[str, dict[str, Stats]] = {}
        for row in calls[BASE]:
            out[row] = interleaved(
                {name: calls[name][row] for name in (BASE, NEW)}, blocks=blocks, warmup=0.2, min_time=0.1
            )
        return out

    try:
        result, taken, spread = _until_stable(measure, rounds)
    finally:
        for context in contexts.values():
            context.close()
    return Table(
        "A flow's JavaScript in a child process against the engine in the harness's process: "
        "one evaluation (µs)",
        [
            "evaluation (warm context)",
            "in process µs",
            "child process µs",
            "vs in process (min)",
            "vs in process (paired)",
            "µs more",
        ],
        _rows(result, 1e6, 0),
        [
            _agreement(blocks, taken, spread),
            "in process: `ScriptContext(isolation='thread')`, the engine as it ran before issue 40, whose "
            "native built-ins held the whole harness; child process: the default",
        ],
    )


def _flows_timed(blocks: int, *, settle: bool) -> dict[str, Stats]:
    """Each contender's flow timed once per block, the order rotating; with ``settle`` the spare
    child has said it is ready before each timed flow (outside the clock), as a flow's device
    steps let it be; without, flows run back to back and one may wait for its spare to start."""
    runs = {BASE: _flow(BASE), NEW: _flow(NEW)}
    samples: dict[str, list[float]] = {BASE: [], NEW: []}
    for order in rotations([BASE, NEW], blocks):
        for name in order:
            if settle:
                spare_ready(10.0)
            trim_allocator()
            started = time.perf_counter_ns()
            runs[name]()
            samples[name].append((time.perf_counter_ns() - started) / 1e9)
    return {name: Stats.of(values) for name, values in samples.items()}


def _flow_table(blocks: int, rounds: int) -> Table:
    _flow(NEW)()  # the first context of the process starts the spare: not a flow's cost

    def measure() -> dict[str, dict[str, Stats]]:
        return {
            READY: _flows_timed(blocks, settle=True),
            BACK_TO_BACK: _flows_timed(blocks, settle=False),
        }

    result, taken, spread = _until_stable(measure, rounds, judged=(READY,))
    return Table(
        "A flow's JavaScript in a child process against the engine in the harness's process: one flow (ms)",
        [
            "a flow's JavaScript (10 evaluations)",
            "in process ms",
            "child process ms",
            "vs in process (min)",
            "vs in process (paired)",
            "ms more",
        ],
        _rows(result, 1e3, 2),
        [
            _agreement(blocks, taken, spread),
            "a flow: a fresh context, its first evaluation (the engine's runtime and prelude), nine more "
            "with output read back, closed; the child process is the spare the previous context left",
            "back to back, a flow finds its spare started or still importing jsbox (tens of ms on a "
            "busy machine): its times are two groups, and its ratio is not what the rounds wait on",
        ],
    )


def run(*, blocks: int = 25, flow_blocks: int = 20, rounds: int = 6) -> list[Table]:
    return [_evaluation_table(blocks, rounds), _flow_table(flow_blocks, rounds)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    tables = run(blocks=3, flow_blocks=3, rounds=2) if args.quick else run(rounds=args.rounds)
    print("\n\n".join(t.render() for t in tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
