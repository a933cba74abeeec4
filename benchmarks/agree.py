"""Do several runs of the benchmarks agree? Every ratio cell of their Markdown tables, compared.

    python -m benchmarks.agree RUN1.md RUN2.md RUN3.md [--limit 0.10] [--column NAME]
    python -m benchmarks --runs 3        # runs every suite three times, then prints this table

It reads any Markdown the suites print (``benchmarks/parse.py``'s table with its ``ratio`` column,
``devices.py``'s speed-up column, the ``1.23x`` cells of the others), matches the tables of the
runs by title (the ``#`` heading above each; the parse script run on its own prints none, which
matches too), their rows by key (the first cell, or as many leading cells as make the keys of that
table unique in every run) and their columns by name, so a row or a table that only some runs have
is reported as missing, not compared against the wrong one.

A ratio column is one whose name says so (``ratio``, ``speed-up``/``speedup``, ``share``, ``vs …``;
``--column`` adds more) or whose cells mostly carry a ``1.23x`` figure (``0.123 (1.23x)`` counts:
the figure in the cell). For every ratio cell it prints each run's value and the spread,
``max/min - 1`` over the runs, flagged when it is over ``--limit`` (10% unless told); the exit code
is 1 when any is.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cell", "MarkdownTable", "agreement", "main", "ratio_columns", "read_tables", "render"]

_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_TIMES = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?|\.\d+)\s*[x\u00d7](?![\w])")
_NUMBER = re.compile(r"[-+]?(\d[\d,]*(?:\.\d+)?|\.\d+)")
_RATIO_NAME = re.compile(r"ratio|speed-?up|share|^vs\b|\bvs\.? ", re.I)


@dataclass(frozen=True)
class MarkdownTable:
    """One Markdown table of a run: its heading (``""`` when none), column names and rows."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Cell:
    """One ratio cell across the runs: ``values[k]`` is run ``k``'s (None: missing in that run)."""

    title: str
    row: str
    column: str
    values: tuple[float | None, ...]

    @property
    def present(self) -> tuple[float, ...]:
        return tuple(v for v in self.values if v is not None)

    @property
    def spread(self) -> float | None:
        """``max/min - 1`` over the runs that have it (None below two runs or at zero)."""
        seen = self.present
        if len(seen) < 2 or min(seen) <= 0:
            return None
        return max(seen) / min(seen) - 1

    def over(self, limit: float) -> bool:
        """True when the runs differ by more than ``limit`` (the printed figures' rounding aside)."""
        spread = self.spread
        return spread is not None and spread > limit + 1e-9


def _plain(text: str) -> str:
    return text.replace("**", "").replace("`", "").strip()


def _cells(line: str) -> tuple[str, ...]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    parts = re.split(r"(?<!\\)\|", body)
    return tuple(_plain(p.replace("\\|", "|")) for p in parts)


def read_tables(text: str) -> list[MarkdownTable]:
    """Every Markdown table in ``text``, each with the last heading (``#`` line) above it."""
    lines = text.splitlines()
    tables: list[MarkdownTable] = []
    title = ""
    n = 0
    while n < len(lines):
        line = lines[n].strip()
        if line.startswith("#"):
            title = _plain(line.lstrip("#"))
        elif line.startswith("|") and n + 1 < len(lines) and _SEPARATOR.match(lines[n + 1].strip()):
            headers = _cells(line)
            rows: list[tuple[str, ...]] = []
            n += 2
            while n < len(lines) and lines[n].strip().startswith("|"):
                rows.append(_cells(lines[n]))
                n += 1
            tables.append(MarkdownTable(title, headers, tuple(rows)))
            continue
        n += 1
    return tables


def _times(cell: str) -> float | None:
    found = _TIMES.search(cell)
    return float(found.group(1).replace(",", "")) if found else None


def _number(cell: str) -> float | None:
    found = _NUMBER.search(cell)
    return float(found.group(0).replace(",", "")) if found else None


def ratio_columns(table: MarkdownTable, extra: Sequence[str] = ()) -> list[int]:
    """The indexes of ``table``'s ratio columns (never the first one: it names the row)."""
    wanted = {name.lower() for name in extra}
    out: list[int] = []
    for index, header in enumerate(table.headers):
        if index == 0:
            continue
        cells = [row[index] for row in table.rows if index < len(row) and row[index] not in ("", "n/a")]
        named = bool(_RATIO_NAME.search(header)) or header.lower() in wanted
        figures = sum(1 for cell in cells if _times(cell) is not None)
        if named or (cells and figures * 2 >= len(cells)):
            out.append(index)
    return out


def _value(cell: str) -> float | None:
    times = _times(cell)
    return times if times is not None else _number(cell)


def _keys(tables: Sequence[MarkdownTable]) -> int:
    """How many leading cells make the row keys unique in every one of ``tables``."""
    width = min((len(t.headers) for t in tables), default=1)
    for size in range(1, max(width, 1) + 1):
        if all(len({row[:size] for row in t.rows}) == len(t.rows) for t in tables):
            return size
    return max(width, 1)


def agreement(texts: Sequence[str], extra: Sequence[str] = ()) -> list[Cell]:
    """Every ratio cell of the runs' tables, matched by table title, row key and column name."""
    runs = [read_tables(text) for text in texts]
    titles: list[str] = []
    by_run: list[dict[str, MarkdownTable]] = []
    for tables in runs:
        seen: dict[str, MarkdownTable] = {}
        for table in tables:
            name, copy = table.title, 2
            while name in seen:  # two tables under one heading: the second is "title (2)"
                name, copy = f"{table.title} ({copy})", copy + 1
            seen[name] = table
            if name not in titles:
                titles.append(name)
        by_run.append(seen)
    cells: list[Cell] = []
    for title in titles:
        present = [run[title] for run in by_run if title in run]
        size = _keys(present)
        columns: list[str] = []
        for table in present:
            for index in ratio_columns(table, extra):
                if table.headers[index] not in columns:
                    columns.append(table.headers[index])
        rows: list[tuple[str, ...]] = []
        for table in present:
            for row in table.rows:
                if row[:size] not in rows:
                    rows.append(row[:size])
        for column in columns:
            for key in rows:
                values: list[float | None] = []
                for run in by_run:
                    table = run.get(title)
                    value: float | None = None
                    if table is not None and column in table.headers:
                        index = table.headers.index(column)
                        for row in table.rows:
                            if row[:size] == key and index < len(row):
                                value = _value(row[index])
                    values.append(value)
                if any(v is not None for v in values):
                    cells.append(Cell(title, " / ".join(key), column, tuple(values)))
    return cells


def _figure(value: float | None) -> str:
    return "missing" if value is None else f"{value:.3g}"


def render(cells: Sequence[Cell], runs: int, limit: float = 0.10) -> str:
    """The agreement table as Markdown, with a line saying how many cells are over ``limit``."""
    over = [c for c in cells if c.over(limit)]
    missing = [c for c in cells if len(c.present) < runs]
    spreads = [c.spread for c in cells if c.spread is not None]
    lines = [
        f"### Agreement of {runs} runs: every ratio cell, spread = max/min - 1, flagged over {limit:.0%}",
        "",
        "| table | row | column | " + " | ".join(f"run {k + 1}" for k in range(runs)) + " | spread | |",
        "|---|---|---|" + "---:|" * runs + "---:|---|",
    ]
    for c in cells:
        spread = "" if c.spread is None else f"{c.spread:.1%}"
        flag = "**over**" if c in over else ("missing" if c in missing else "ok")
        figures = " | ".join(_figure(v) for v in c.values)
        lines.append(f"| {c.title or '(untitled)'} | {c.row} | {c.column} | {figures} | {spread} | {flag} |")
    worst = f"{max(spreads):.1%}" if spreads else "n/a"
    median = f"{statistics.median(spreads):.1%}" if spreads else "n/a"
    lines += [
        "",
        f"- {len(cells)} ratio cells, {len(over)} over {limit:.0%}, {len(missing)} missing in some run; "
        f"worst spread {worst}, median {median}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agree", description=__doc__.split("\n", 1)[0])
    parser.add_argument("runs", nargs="+", type=Path, help="the Markdown output of each run")
    parser.add_argument("--limit", type=float, default=0.10, help="largest spread that agrees (0.10)")
    parser.add_argument("--column", action="append", default=[], help="another column to compare")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        parser.error("compare at least two runs")
    texts = [path.read_text(encoding="utf-8") for path in args.runs]
    cells = agreement(texts, args.column)
    sys.stdout.write(render(cells, len(texts), args.limit))
    return 1 if any(c.over(args.limit) for c in cells) else 0


if __name__ == "__main__":
    raise SystemExit(main())
