"""Every ``maestro test`` line collected from real CI files (tests/fixtures/maestro/ci_lines/) runs
with ``maestro`` replaced by ``amc``, against the simulated device.

The repositories' flows are not here: each line runs in a stand-in workspace holding the paths it
names (a flow file where it names a ``.yaml``/``.yml``, a folder of two flows where it names a
folder, a workspace config where it names ``--config``), whose flows launch the simulated device's
demo app and carry the tags the line includes. What is asserted is what the CI step would see: exit
0, the report where the line asks for it with one testcase per flow, the debug folder.

    pytest tests/flows/maestro/test_amc_test_ci_lines.py -k train     # or -k holdout
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from amc import connect as connect_module
from amc.cli import build_parser
from amc.cli.maestro_options import FORMATS, hoist
from lxml import etree

from ..helpers import amc

LINES = Path(__file__).resolve().parents[2] / "fixtures" / "maestro" / "ci_lines" / "lines.yaml"
ENTRIES: list[dict[str, Any]] = yaml.safe_load(LINES.read_text(encoding="utf-8"))["lines"]
_ARRAY = re.compile(r'"\$\{(\w+)\[@\]\}"')
_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def expand(line: str, values: dict[str, Any]) -> list[str]:
    """The words the CI's shell runs: arrays and variables replaced by ``values``, the first word
    (the maestro executable, wherever it is installed) dropped."""

    def array(m: re.Match[str]) -> str:
        return " ".join(shlex.quote(v) for v in values[m.group(1)])

    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return "/home/runner" if name == "HOME" else str(values[name])

    words = shlex.split(_VAR.sub(var, _ARRAY.sub(array, line)))
    assert words[0].endswith("maestro"), words
    return words[1:]


def _flow(path: Path, tags: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tag_line = f"tags: [{', '.join(tags)}]\n" if tags else ""
    path.write_text(
        f"appId: com.example.amc.demo\nname: {path.stem}\n{tag_line}---\n- launchApp\n"
        '- assertVisible: "Sign in"\n',
        encoding="utf-8",
    )


def stand_in(root: Path, argv: list[str]) -> tuple[Any, int]:
    """The stand-in workspace for ``argv`` under ``root``; the parsed options and how many flows
    the line will run."""
    args = build_parser().parse_args(hoist(argv))
    include = [t for v in args.include_tags or [] for t in v.split(",") if t]
    exclude = [t for v in args.exclude_tags or [] for t in v.split(",") if t]
    flows = 0
    for given in args.flows:
        path = root / given
        if path.suffix in (".yaml", ".yml"):
            _flow(path, include[:1])
            flows += 1
            continue
        _flow(path / "login.yaml", include[:1])
        _flow(path / "search.yaml", include[:1])
        flows += 2
        if exclude:  # a flow the line's --exclude-tags leaves out
            _flow(path / "left_out.yaml", [*include[:1], exclude[0]])
    if args.config is not None:
        config = root / args.config
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('flows:\n  - "*"\n', encoding="utf-8")
    return args, flows


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def test_the_collection_is_what_the_provenance_says() -> None:
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids))
    assert {e["side"] for e in ENTRIES} == {"train", "holdout"}
    assert all(re.fullmatch(r"[0-9a-f]{40}", e["commit"]) for e in ENTRIES)
    repos = {e["repo"] for e in ENTRIES}
    provenance = (LINES.parent / "PROVENANCE.md").read_text(encoding="utf-8")
    assert all(f"| {repo} |" in provenance for repo in repos)
    assert len(ENTRIES) >= 36 and len(repos) >= 25


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e['side']}-{e['id']}" for e in ENTRIES])
def test_a_collected_ci_line_runs_with_amc(
    entry: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = expand(entry["line"], entry.get("vars") or {})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if entry.get("expect") == "usage":  # a line Maestro itself refuses (an option it has not)
        result = amc(*argv)
        usage = capsys.readouterr().err  # argparse writes its usage error to sys.stderr
        assert result.code == 2 and "unrecognized arguments: --subflow" in usage, usage
        assert not (tmp_path / "runs").exists()
        return
    args, flows = stand_in(tmp_path, argv)
    result = amc(*argv)
    assert result.code == 0, f"{entry['line']}\n{result.out}\n{result.err}"
    assert f"{flows} flow(s): {flows} passed" in result.out
    fmt = args.format or "noop"
    if FORMATS[fmt] is not None:
        report = tmp_path / (args.output or f"report{FORMATS[fmt]}")
        if fmt == "junit":
            cases = etree.parse(str(report)).findall(".//testcase")
            assert len(cases) == flows and {c.get("status") for c in cases} == {"SUCCESS"}
        else:
            assert report.read_text(encoding="utf-8").count('class="flow SUCCESS"') == flows
    debug = tmp_path / (args.debug_output or "home")
    logs = (
        [debug / "maestro.log"]
        if args.flatten_debug_output
        else list(debug.glob(".maestro/tests/*/maestro.log"))
    )
    assert len(logs) == 1 and logs[0].is_file(), result.err
