"""Shared helpers for the flow tests: write flows, run `amc` in process or as a subprocess."""

from __future__ import annotations

import io
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from amc.cli import main

__all__ = ["EXAMPLES", "REPO", "CliResult", "amc", "amc_command", "run_files_text", "write_flow"]

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
