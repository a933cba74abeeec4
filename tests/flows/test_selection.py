"""`amc run FOLDER --include-tags …`: every file is checked, but a variable only for the flows that run.

A flow the tags leave out may use a variable that is not set (it will not run); a chosen flow may
not (exit 2 at its file:line:col); a file with a problem of its own stops the run whatever the tags
say, with every problem of every file reported at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.flows import FlowValidationError, load_flow
from amc.flows.loader import check_flow
from amc.flows.nodes import UnsetVariable

from .helpers import amc, write_flow

FAST = "name: fast\ntags: [smoke]\nsteps:\n  - press: home\n"
# ${EXPECT} at line 4, column 21 (where its scalar starts).
NEEDS_EXPECT = "name: checks\ntags: [slow]\nsteps:\n  - assert_visible: ${EXPECT}\n"


@pytest.fixture(autouse=True)
def _no_expect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXPECT", raising=False)


def test_a_flow_the_tags_leave_out_may_use_a_variable_that_is_not_set(tmp_path: Path) -> None:
    write_flow(tmp_path, FAST, "a.yaml")
    write_flow(tmp_path, NEEDS_EXPECT, "b.yaml")
    result = amc("run", tmp_path, "--include-tags", "smoke", "--out", tmp_path / "r")
    assert result.code == 0, result.err
    assert "1 flow(s) left out by tags: checks" in result.err
    assert "flow fast passed" in result.out and "EXPECT" not in result.out + result.err
    excluded = amc("run", tmp_path, "--exclude-tags", "slow", "--out", tmp_path / "r2")
    assert excluded.code == 0, excluded.err


def test_a_chosen_flow_with_a_variable_not_set_stops_the_run_at_its_line(tmp_path: Path) -> None:
    write_flow(tmp_path, FAST, "a.yaml")
    write_flow(tmp_path, NEEDS_EXPECT, "b.yaml")
    result = amc("run", tmp_path, "--include-tags", "slow", "--out", tmp_path / "r")
    assert result.code == 2
    assert f"amc: bad flow: {tmp_path / 'b.yaml'}:4:21: undefined variable ${{EXPECT}}" in result.err
    assert "nothing was run" in result.err and not (tmp_path / "r").exists()
    given = amc("run", tmp_path, "--include-tags", "slow", "--env", "EXPECT=Home", "--out", tmp_path / "r")
    assert "bad flow" not in given.err and "flow checks" in given.out


def test_a_subflow_with_a_variable_not_set_only_matters_when_its_flow_runs(tmp_path: Path) -> None:
    write_flow(tmp_path, "steps:\n  - assert_visible: ${EXPECT}\n", "part.yml.txt")
    write_flow(tmp_path, FAST, "a.yaml")
    write_flow(tmp_path, "name: whole\ntags: [slow]\nsteps:\n  - run_flow: part.yml.txt\n", "b.yaml")
    assert amc("run", tmp_path, "--include-tags", "smoke", "--out", tmp_path / "r").code == 0
    chosen = amc("run", tmp_path, "--include-tags", "slow", "--out", tmp_path / "r")
    assert chosen.code == 2
    assert f"{tmp_path / 'part.yml.txt'}:2:21: undefined variable ${{EXPECT}}" in chosen.err
    assert f"{tmp_path / 'b.yaml'}:4:15: run_flow 'part.yml.txt' has problems" in chosen.err


def test_a_file_with_a_problem_of_its_own_stops_the_run_even_when_left_out(tmp_path: Path) -> None:
    write_flow(tmp_path, FAST, "a.yaml")
    write_flow(tmp_path, "name: broken\ntags: [slow]\nsteps:\n  - tapp: Sign in\n", "b.yaml")
    write_flow(tmp_path, "name: yaml\ntags: [slow]\nsteps: [press: home\n", "c.yaml")
    write_flow(tmp_path, NEEDS_EXPECT, "d.yaml")
    result = amc("run", tmp_path, "--include-tags", "smoke", "--out", tmp_path / "r")
    assert result.code == 2 and "nothing was run" in result.err
    problems = [line for line in result.err.splitlines() if line.startswith("amc: bad flow: ")]
    assert [p.split(": ")[2].rsplit(":", 2)[0] for p in problems] == [
        str(tmp_path / "b.yaml"),
        str(tmp_path / "c.yaml"),
    ]  # every file's own problem, in file order; d.yaml's unset variable is not one of them
    assert "unknown command 'tapp'" in problems[0] and "not valid YAML" in problems[1]


def test_tags_that_use_a_variable_not_set_are_a_problem_of_every_run(tmp_path: Path) -> None:
    write_flow(tmp_path, FAST, "a.yaml")
    write_flow(tmp_path, "name: t\ntags: ['${EXPECT}']\nsteps:\n  - press: home\n", "b.yaml")
    result = amc("run", tmp_path, "--include-tags", "smoke", "--out", tmp_path / "r")
    assert result.code == 2
    assert f"{tmp_path / 'b.yaml'}:2:7: the tags use a variable that is not set" in result.err


def test_the_loader_keeps_unset_variables_apart_and_load_flow_still_refuses_them(tmp_path: Path) -> None:
    path = write_flow(tmp_path, NEEDS_EXPECT + "  - tapp: x\n", "b.yaml")
    check = check_flow(path, environ={})
    assert (check.name, check.tags, check.flow) == ("checks", ("slow",), None)
    assert [type(p) for p in check.unset] == [UnsetVariable]
    assert len(check.problems) == 1 and "unknown command 'tapp'" in str(check.problems[0])
    with pytest.raises(FlowValidationError) as caught:
        load_flow(path, environ={})
    assert [p.line for p in caught.value.problems] == [4, 5]
    fine = check_flow(write_flow(tmp_path, FAST, "a.yaml"), environ={})
    assert fine.flow is not None and fine.found == () and fine.flow.tags == ("smoke",)
