"""Issue 34, part 5: files are written whole, under unique temporary names in their own folder,
never through a link.

Before the fix ``amc report`` wrote ``report.html.tmp`` by name, so a link placed at that name made
it write the report into the file the link pointed at; and every writer of one ``index.html``
shared the temporary name ``index.html.tmp``, so ten ``amc run ... --out SAME`` at once sometimes
failed (one writer renamed the others' file away).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from amc.storage.index import IndexRow, write_index
from amc.storage.report import render_report

from tests.flows.helpers import amc, amc_command, write_flow

pytestmark = pytest.mark.timeout(180)


def _run_folder(tmp_path: Path) -> Path:
    flow = write_flow(tmp_path, "name: t\nsteps:\n  - hide_keyboard\n")
    result = amc("run", flow, "--out", tmp_path / "runs")
    assert result.code == 0, result.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


@pytest.mark.parametrize("name", ["report.html.tmp", "report.html"])
def test_amc_report_never_writes_through_a_link(tmp_path: Path, name: str) -> None:
    run_dir = _run_folder(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (run_dir / "report.html").unlink()
    (run_dir / name).symlink_to(victim)
    result = amc("report", run_dir)
    assert result.code == 0, result.err
    assert victim.read_text() == "keep me\n"
    report = run_dir / "report.html"
    assert not report.is_symlink() and report.read_text().startswith("<!DOCTYPE html>")
    assert oct(report.stat().st_mode & 0o777) == oct(0o644)
    leftovers = sorted(p.name for p in run_dir.iterdir() if p.name.endswith(".tmp") and not p.is_symlink())
    assert leftovers == []


def test_many_writers_of_one_index_page_never_fail(tmp_path: Path) -> None:
    rows: list[IndexRow] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for _ in range(40):
                write_index(tmp_path, rows)
        except BaseException as exc:  # noqa: BLE001 - what a writer met is the test's result
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert (tmp_path / "index.html").read_text().startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]  # no temporary file left behind


def test_ten_amc_runs_into_one_folder_at_once_all_succeed(tmp_path: Path) -> None:
    one = write_flow(tmp_path, "name: one\nsteps:\n  - hide_keyboard\n", "one.yaml")
    two = write_flow(tmp_path, "name: two\nsteps:\n  - hide_keyboard\n", "two.yaml")
    out = tmp_path / "runs"
    env = {**os.environ, "AMC_SEMANTIC": "off"}
    runs = [
        subprocess.Popen(
            [*amc_command(), "run", str(one), str(two), "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(10)
    ]
    results = [(run.wait(timeout=150), run.stderr.read() if run.stderr else "") for run in runs]
    assert [code for code, _ in results] == [0] * 10, [err for _, err in results if err]
    assert (out / "index.html").is_file() and not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert len([p for p in out.iterdir() if p.is_dir()]) == 20


def test_a_report_into_a_folder_that_cannot_be_written_is_a_config_error(tmp_path: Path) -> None:
    run_dir = _run_folder(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = amc("report", run_dir, "--out", blocker / "report.html")
    assert result.code == 2 and "cannot write the report to" in result.err and "Traceback" not in result.err
    assert render_report(run_dir).is_file()
