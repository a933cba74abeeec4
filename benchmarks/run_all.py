"""Every benchmark in one run: ``python -m benchmarks`` (from the repository root).

Prints the machine line and every table as Markdown: harness overhead per step (``overhead``),
requests and wall time per action against each client used directly and a 20-step flow
(``wire``), the world model's cost and memory (``world``), several devices through the pool
(``devices``), the simulated device's pictures (``screens``), an MCP tool call and the LLM
planner's requests (``agent``), Ctrl-C timed from outside (``interrupt``), a Maestro flow's
JavaScript on the wired path (``js``) and the parsers' benchmark (``parse.py``). Each suite runs in a
fresh interpreter of its own (``--suite NAME``), so no suite measures against the heap another one
left behind.
``--write`` also replaces the results section of ``benchmarks/README.md`` with this run's output;
``--quick`` runs everything small (a smoke run: the figures are not worth keeping). ``--runs N``
runs the chosen suites N times in a row and ends with the agreement table of
:mod:`benchmarks.agree` (every ratio cell of every run, flagged when the runs differ by over 10%);
``--save DIR`` keeps each run's Markdown there (``run-1.md`` ...) for ``python -m benchmarks.agree``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
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

from benchmarks.agree import agreement, render  # noqa: E402
from benchmarks.common import Table, keep_off_real_adb, machine, warm_up  # noqa: E402

__all__ = ["README", "SUITES", "main"]

README = HERE / "README.md"
START, END = "<!-- results: start (written by python -m benchmarks --write) -->", "<!-- results: end -->"

Suite = Callable[[bool], list[Table] | str]


def _parse_command(quick: bool) -> list[str]:
    rounds = ["--repeats", "1"] if quick else ["--repeats", "5", "--seconds", "1.0"]
    return [sys.executable, str(HERE / "parse.py"), "--quick", *rounds]


def _parse_table(output: str, quick: bool) -> str:
    lines = [line for line in output.splitlines() if not line.startswith("Machine:")]
    body = "\n".join(lines).strip()
    command = " ".join(["python", "benchmarks/parse.py", *_parse_command(quick)[2:]])
    return (
        "### Parsing: a Scene against a bare lxml parse of the same bytes (benchmarks/parse.py)\n\n"
        f"{body}\n\n- `{command}`, run as is in "
        "its own interpreter (small inputs get more rounds); the 20,000-node trees are left out of this "
        "run: `python benchmarks/parse.py` times them too.\n"
    )


def _parse(quick: bool) -> str:
    done = subprocess.run(_parse_command(quick), cwd=REPO, capture_output=True, text=True, check=True)
    return _parse_table(done.stdout, quick)


def _overhead(quick: bool) -> list[Table]:
    from benchmarks import overhead

    return overhead.run(steps=20, rounds=2, latency_steps=2, latency_rounds=1) if quick else overhead.run()


def _wire(quick: bool) -> list[Table]:
    from benchmarks import wire

    return wire.run(rounds=2, latency_rounds=1, flow_rounds=1) if quick else wire.run()


def _world(quick: bool) -> list[Table]:
    from benchmarks import world

    quick_args = {
        "steps": 10_000,
        "every": 2_500,
        "task_steps": 2_000,
        "task_every": 500,
        "traced_steps": 1_000,
        "parsed_steps": 1_000,
        "parsed_every": 250,
    }
    return world.run(**quick_args) if quick else world.run()


def _screens(quick: bool) -> list[Table]:
    from benchmarks import screens

    return screens.run(rounds=3, flow_rounds=1) if quick else screens.run()


def _agent(quick: bool) -> list[Table]:
    from benchmarks import agent

    return agent.run(rounds=1) if quick else agent.run()


def _settle(quick: bool) -> list[Table]:
    from benchmarks import settle

    return settle.run(blocks=3, rounds=2) if quick else settle.run()


def _interrupt(quick: bool) -> list[Table]:
    from benchmarks import interrupt

    return interrupt.run(rounds=1) if quick else interrupt.run()


def _js(quick: bool) -> list[Table]:
    from benchmarks import js_flow

    return js_flow.run(steps=10, blocks=2, start_blocks=3) if quick else js_flow.run()


def _devices(quick: bool) -> list[Table]:
    from benchmarks import devices

    return devices.run(steps=4, rounds=1) if quick else devices.run()


# Each suite imports what it needs when it runs: a suite's child interpreter holds nothing else (the
# parse benchmark collects garbage before every run, and a bigger heap makes that slower).
SUITES: dict[str, Suite] = {
    "overhead": _overhead,
    "wire": _wire,
    "world": _world,
    "devices": _devices,
    "screens": _screens,
    "agent": _agent,
    "settle": _settle,
    "interrupt": _interrupt,
    "js": _js,
    "parse": _parse,
}


def _write(report: str) -> None:
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{README} has no results section between {START!r} and {END!r}")
    README.write_text(pattern.sub(lambda _m: f"{START}\n\n{report}\n{END}", text), encoding="utf-8")


def _run_suite(name: str, quick: bool) -> str:
    """One suite in this process: its Markdown."""
    warm_up()
    outcome = SUITES[name](quick)
    return outcome if isinstance(outcome, str) else "\n".join(t.render() for t in outcome)


def _child(name: str, quick: bool) -> str:
    """One suite in a fresh interpreter: its Markdown (a failure stops the run with its stderr)."""
    if name == "parse":
        return _parse(quick)  # the parsers' script itself, in an interpreter of its own
    command = [sys.executable, "-m", "benchmarks", "--suite", name] + (["--quick"] if quick else [])
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"benchmark suite {name!r} failed (exit code {done.returncode})")
    return done.stdout


def _one_run(chosen: Sequence[str], quick: bool, label: str) -> str:
    """Every chosen suite once, each in a fresh interpreter, printed as it ends; the run's Markdown."""
    started = time.perf_counter()
    header = f"Machine: {machine()}\n\nRun: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}{label}"
    print(header + "\n", flush=True)
    parts = [header + "\n"]
    for name in chosen:
        began = time.perf_counter()
        text = _child(name, quick)
        print(text, flush=True)
        print(f"({name}: {time.perf_counter() - began:.0f} s)\n", file=sys.stderr, flush=True)
        parts.append(text)
    footer = f"All suites: {time.perf_counter() - started:.0f} s, each in a fresh interpreter."
    print(footer + "\n", flush=True)
    parts.append(footer + "\n")
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    keep_off_real_adb()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="everything small: a smoke run")
    parser.add_argument("--write", action="store_true", help="replace the results section of the README")
    parser.add_argument("--only", choices=sorted(SUITES), action="append", help="run only these suites")
    parser.add_argument("--runs", type=int, default=1, help="run everything N times, then compare (1)")
    parser.add_argument("--save", type=Path, help="keep each run's Markdown in this folder")
    parser.add_argument("--suite", choices=sorted(SUITES), help=argparse.SUPPRESS)  # one suite, in process
    args = parser.parse_args(argv)
    if args.suite:
        print(_run_suite(args.suite, args.quick), end="")
        return 0
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.write and (args.quick or args.only):
        parser.error("--write keeps full runs only: leave out --quick and --only")
    chosen = args.only or list(SUITES)
    reports: list[str] = []
    for run in range(1, args.runs + 1):
        label = f" (run {run} of {args.runs})" if args.runs > 1 else ""
        reports.append(_one_run(chosen, args.quick, label))
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"run-{run}.md").write_text(reports[-1], encoding="utf-8")
    report = reports[-1]
    if args.runs > 1:
        agreed = render(agreement(reports), args.runs)
        print(agreed)
        report += "\n" + agreed
    if args.write:
        _write(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
