"""docs/pytest.md documents every fixture, option, ini key and marker the plugin registers: its
tables are what ``pytest_plugin/reference.py`` reads from the plugin, and pytest itself (``--help``,
``--fixtures``) is asked which ``amc`` options and fixtures exist, so a new one cannot go unlisted.
The page's example test runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from amc.pytest_plugin import reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "pytest.md"


def _pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_the_tables_are_current() -> None:
    page = DOC.read_text()
    assert reference.rewrite(page) == page, "regenerate docs/pytest.md as its Reference section says"


def test_every_option_and_fixture_pytest_knows_is_documented(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    helped = _pytest("--help", cwd=tmp_path)
    fixtures = _pytest("--fixtures", cwd=tmp_path)
    options = set(re.findall(r"(--amc-[a-z-]+)", helped.stdout))
    inis = set(re.findall(r"^\s+(amc_[a-z_]+) \(", helped.stdout, re.M))
    names = set(re.findall(r"^(amc_[a-z_]+)(?: \[\w+ scope\])? -- ", fixtures.stdout, re.M))
    assert len(options) == 7 and inis == {"amc_artifacts", "amc_reports"}, (options, inis)
    assert names == set(reference.FIXTURES), fixtures.stdout[-3000:]
    page = DOC.read_text()
    for name in sorted(options):
        assert f"| `{name}` |" in page, name
    for name in sorted(inis | names):
        assert f"| `{name}` |" in page, name


def test_the_example_on_the_page_passes_on_the_simulated_phone(tmp_path: Path) -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_page.py").write_text(code.group(1))

    done = _pytest("-m", "device", "--amc-device=sim:android", "--amc-device=sim+wda:ios", "-q", cwd=tmp_path)

    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout


def test_a_page_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="markers"):
        reference.rewrite("# a page\n")
    assert reference.main([]) == 2
