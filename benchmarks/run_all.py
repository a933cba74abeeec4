"""Every benchmark in one run: ``python -m benchmarks`` (from the repository root).

Prints the machine line and every table as Markdown: harness overhead per step (``overhead``),
requests and wall time per action against each client used directly and a 20-step flow
(``wire``), the world model's cost and memory (``world``), several devices through the pool
(``devices``) and the parsers' benchmark (``parse.py``). ``--write`` also replaces the results
section of ``benchmarks/README.md`` with this run's output; ``--quick`` runs everything small (a
smoke run: the figures are not worth keeping).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# Like the tests: never start or reach a real adb server while the faces are up.
os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
os.environ.setdefault("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
os.environ.setdefault("ANDROID_ADB_SERVER_PORT", "1")

from benchmarks import devices, overhead, wire, world  # noqa: E402
from benchmarks.common import Table, machine, warm_up  # noqa: E402

__all__ = ["README", "SUITES", "main"]

README = HERE / "README.md"
START, END = "<!-- results: start (written by python -m benchmarks --write) -->", "<!-- results: end -->"

Suite = Callable[[bool], list[Table] | str]


def _parse(quick: bool) -> str:
    from benchmarks import parse

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        parse.main(["--quick", "--repeats", "1" if quick else "3"])
    lines = [line for line in out.getvalue().splitlines() if not line.startswith("Machine:")]
    body = "\n".join(lines).strip()
    rounds = "1 round" if quick else "3 rounds for the largest inputs"
    return (
        "### Parsing: a Scene against a bare lxml parse of the same bytes (benchmarks/parse.py)\n\n"
        f"{body}\n\n- `python benchmarks/parse.py --quick --repeats {1 if quick else 3}` ({rounds}; small "
        "inputs get more); the 20,000-node trees are left out of this run: `python benchmarks/parse.py` "
        "times them too.\n"
    )


SUITES: dict[str, Suite] = {
    "overhead": lambda quick: (
        overhead.run(steps=20, rounds=2, latency_steps=2, latency_rounds=1) if quick else overhead.run()
    ),
    "wire": lambda quick: wire.run(rounds=2, latency_rounds=1, flow_rounds=1) if quick else wire.run(),
    "world": lambda quick: (
        world.run(steps=10_000, every=2_500, task_steps=500, task_every=250) if quick else world.run()
    ),
    "devices": lambda quick: devices.run(steps=4, rounds=1) if quick else devices.run(),
    "parse": _parse,
}


def _write(report: str) -> None:
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{README} has no results section between {START!r} and {END!r}")
    README.write_text(pattern.sub(lambda _m: f"{START}\n\n{report}\n{END}", text), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="everything small: a smoke run")
    parser.add_argument("--write", action="store_true", help="replace the results section of the README")
    parser.add_argument("--only", choices=sorted(SUITES), action="append", help="run only these suites")
    args = parser.parse_args(argv)
    chosen = args.only or list(SUITES)
    started = time.perf_counter()
    header = f"Machine: {machine()}\n\nRun: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
    print(header + "\n", flush=True)
    parts = [header + "\n"]
    warm_up()
    for name in chosen:
        began = time.perf_counter()
        outcome = SUITES[name](args.quick)
        text = outcome if isinstance(outcome, str) else "\n".join(t.render() for t in outcome)
        print(text, flush=True)
        print(f"({name}: {time.perf_counter() - began:.0f} s)\n", file=sys.stderr, flush=True)
        parts.append(text)
    footer = f"All suites: {time.perf_counter() - started:.0f} s."
    print(footer)
    parts.append(footer + "\n")
    if args.write:
        if args.quick or args.only:
            raise SystemExit("--write keeps full runs only: leave out --quick and --only")
        _write("\n".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
