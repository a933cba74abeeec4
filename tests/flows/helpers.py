"""Shared helpers for the flow tests: write flows, run `amc` in process or as a subprocess."""

from __future__ import annotations

import io
import os
import re
import selectors
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from amc.cli import main

__all__ = [
    "EXAMPLES",
    "HANG",
    "REPO",
    "Amc",
    "CliResult",
    "amc",
    "amc_command",
    "run_files_text",
    "running",
    "write_flow",
]

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "flows"


def write_flow(folder: Path, text: str, name: str = "flow.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str


def amc(*argv: str | os.PathLike[str]) -> CliResult:
    """`amc ARGV` in process, through amc.cli.main, with its two streams captured."""
    out, err = io.StringIO(), io.StringIO()
    code = main([os.fspath(a) for a in argv], out=out, err=err)
    return CliResult(code, out.getvalue(), err.getvalue())


def amc_command() -> list[str]:
    """The installed `amc` script when there is one beside this Python, else `python -m amc.cli`."""
    script = Path(sys.executable).with_name("amc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "amc.cli"]


def run_files_text(run_dir: Path) -> dict[str, bytes]:
    """Every file of a run folder (recursively) by relative name, as bytes."""
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


HANG = 30.0  # seconds: what a test waits for a process at most (a guard against a hang, not a speed)


class Amc:
    """A running `amc` process whose output is read as it comes, with a bound on every wait."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [*amc_command(), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.out = self.err = ""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self._selector.register(self.proc.stderr, selectors.EVENT_READ, "err")

    def _read(self, timeout: float) -> bool:
        """Read what is there within ``timeout``; False once both streams are closed."""
        if not self._selector.get_map():
            return False
        for key, _ in self._selector.select(timeout):
            data = os.read(key.fd, 65536)
            if not data:
                self._selector.unregister(key.fileobj)
                continue
            text = data.decode("utf-8", "replace")
            if key.data == "out":
                self.out += text
            else:
                self.err += text
        return True

    def wait_until(self, seen: Callable[[Amc], bool], what: str) -> None:
        deadline = time.monotonic() + HANG
        while not seen(self):
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.5)) and not seen(self)):
                raise AssertionError(f"never saw {what}; stdout:\n{self.out}\nstderr:\n{self.err}")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def started(self, step: str) -> int:
        """How many of the run folders named so far log ``step`` (``"2 wait_for"``) as started."""
        folders = re.findall(r"run folder: (.+)$", self.out + self.err, re.MULTILINE)
        logs = [Path(folder) / "run.log" for folder in folders]
        return sum(log.is_file() and f"step {step}: started" in log.read_text("utf-8") for log in logs)

    def interrupt(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def finish(self) -> int:
        """Read to the end; the exit code (the test fails if the process is still running after HANG)."""
        deadline = time.monotonic() + HANG
        while self._read(max(0.0, deadline - time.monotonic())) and time.monotonic() < deadline:
            pass
        try:
            return self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"amc still runs {HANG:g} s after SIGINT; stdout:\n{self.out}\nstderr:\n{self.err}"
            ) from None


@contextmanager
def running(*argv: str | os.PathLike[str], env: dict[str, str] | None = None) -> Iterator[Amc]:
    """`amc ARGV` as a process, started with SIGINT delivered (not ignored, as a background job's
    would be), killed at the end if still running."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:  # inherited by the child otherwise; a handled signal is reset by exec
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        amc = Amc([os.fspath(a) for a in argv], env or {})
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        yield amc
    finally:
        if amc.proc.poll() is None:
            amc.proc.kill()
            amc.proc.wait()
        for stream in (amc.proc.stdin, amc.proc.stdout, amc.proc.stderr):
            if stream is not None:
                stream.close()
