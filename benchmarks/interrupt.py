"""Ctrl-C on `amc run`, timed from outside: seconds from SIGINT to the process's exit.

Each case starts a real ``amc run`` on the simulated device (its own interpreter, as a user's
shell does), sends SIGINT at a fixed time after the start (as the issue measured it: "Ctrl-C after
5 s"), and times the exit on the monotonic clock; the run's exit code is kept beside it:

- ``wait``: a flow whose step 2 is a ``wait_for`` with ``timeout: 60`` that never matches, SIGINT
  at 5 s (inside the wait);
- ``two devices``: the same flow three times on ``--device sim:android`` twice (two flows on
  threads, one queued), SIGINT at 5 s;
- ``device call``: ``--sim-latency 5`` (every device call takes 5 s), SIGINT at 7.5 s, while the
  ``launch_app`` call is on the device (given up at once since issue 42, before that let finish);
- ``second SIGINT``: the same, with a second SIGINT 1 s after the first, timed from the second.

``python -m benchmarks.interrupt [--rounds N] [--amc PATH]``: ``--amc`` times another install's
``amc`` (the numbers before a change: an older checkout installed in its own venv).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from benchmarks.common import Stats, Table, machine  # noqa: E402

__all__ = ["CASES", "Case", "main", "run"]

WAIT = """name: {name}
steps:
  - launch_app: com.example.amc.demo
  - wait_for: {{text: "Never shown", timeout: 60}}
"""
SLOW_LAUNCH = """name: slow-device
steps:
  - press: home
    when: {platform: ios}
  - launch_app: com.example.amc.demo
  - wait_for: Sign in
"""
LIMIT = 120.0  # seconds a case may take before it is killed (the 60 s wait and then some)


@dataclass(frozen=True)
class Case:
    """One way to press Ctrl-C: the flows (name -> text), the options, when SIGINT is sent."""

    name: str
    flows: dict[str, str]
    options: tuple[str, ...]
    first: float  # seconds after the start
    second: float | None = None  # seconds after the first, when pressed twice


CASES = (
    Case("wait", {"a": WAIT.format(name="a")}, (), 5.0),
    Case(
        "two devices",
        {n: WAIT.format(name=n) for n in "abc"},
        ("--device", "sim:android", "--device", "sim:android"),
        5.0,
    ),
    Case("device call", {"a": SLOW_LAUNCH}, ("--sim-latency", "5"), 7.5),
    Case("second SIGINT", {"a": SLOW_LAUNCH}, ("--sim-latency", "5"), 7.5, second=1.0),
)


def _amc() -> list[str]:
    script = Path(sys.executable).with_name("amc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "amc.cli"]


def _sigint_delivered() -> None:
    """In the child before exec: SIGINT as a terminal delivers it (a background job inherits it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def once(case: Case, amc: Sequence[str]) -> tuple[float, int]:
    """(seconds from the last SIGINT to the exit, the exit code) of one run of ``case``."""
    with tempfile.TemporaryDirectory(prefix="amc-interrupt-") as folder:
        files = []
        for name, text in case.flows.items():
            path = Path(folder, f"{name}.yaml")
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
        argv = [*amc, "run", *files, *case.options, "--out", str(Path(folder, "runs"))]
        env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false", "ANDROID_ADB_SERVER_PORT": "1"}
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            preexec_fn=_sigint_delivered,  # this process runs no thread of its own meanwhile
        )
        try:
            time.sleep(max(0.0, started + case.first - time.monotonic()))
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            if case.second is not None:
                time.sleep(case.second)
                proc.send_signal(signal.SIGINT)
                sent = time.monotonic()
            code = proc.wait(timeout=LIMIT)
            return time.monotonic() - sent, code
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def run(rounds: int = 3, amc: Sequence[str] | None = None) -> list[Table]:
    command = list(amc) if amc is not None else _amc()
    rows: list[list[object]] = []
    for case in CASES:
        results = [once(case, command) for _ in range(rounds)]
        seconds = Stats.of([s for s, _ in results])
        codes = sorted({c for _, c in results})
        pressed = f"at {case.first:g} s" + (f", again {case.second:g} s later" if case.second else "")
        rows.append(
            [
                case.name,
                " ".join(case.options) or "sim:android",
                pressed,
                f"{seconds.min:.2f}",
                f"{seconds.median:.2f}",
                ", ".join(map(str, codes)),
            ]
        )
    return [
        Table(
            "Ctrl-C: seconds from SIGINT to the exit of `amc run` (benchmarks/interrupt.py)",
            ("case", "devices / options", "SIGINT", "min s", "median s", "exit code"),
            rows,
            (
                f"{rounds} runs each, timed from the (last) SIGINT to the process's exit; "
                f"command: {' '.join(command)} run …",
                "wait / two devices: the step in progress is a wait_for with timeout: 60.",
                "device call / second SIGINT: every device call takes 5 s (--sim-latency 5); the first "
                "SIGINT lands while launch_app is on the device.",
            ),
        )
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--amc", help="the amc command to time (default: the one beside this Python)")
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}\n")
    for table in run(args.rounds, [args.amc] if args.amc else None):
        print(table.render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
