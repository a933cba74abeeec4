"""A Maestro flow runs to its last command (issue 39): no step budget counted from the file cuts it
short. Each flow is of a shape the issue names (a conditional sign-out, a subflow with ``env``, an
``onFlowStart`` / ``onFlowComplete`` hook, a ``repeat`` of conditional blocks), run with ``amc run``
on the simulated demo app; before, each stopped ``MAX_STEPS ... stopped after N steps`` short of its
end. The loop's ``max_steps`` still bounds planners that decide freely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.runtime.task import TaskRunnerConfig
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

LOGIN = """
- tapOn: "Username"
- inputText: qa
- tapOn: "Password"
- inputText: secret123
- tapOn: "Sign in"
"""

SIGN_OUT_IF_SIGNED_IN = """
- runFlow:
    when:
      visible: "Sign out"
    commands:
      - tapOn: "Sign out"
"""

FLOWS = {
    "conditional sign-out": (
        "appId: com.example.amc.demo\n---\n- launchApp\n"
        + SIGN_OUT_IF_SIGNED_IN
        + LOGIN
        + '- assertVisible: "Signed in as qa"\n'
        + SIGN_OUT_IF_SIGNED_IN
        + '- assertVisible: "Sign in to continue"\n'
    ),
    "subflow with env and hooks": (
        "appId: com.example.amc.demo\nonFlowStart:\n  - launchApp\nonFlowComplete:\n"
        + "\n".join("  " + line for line in SIGN_OUT_IF_SIGNED_IN.strip().splitlines())
        + "\n---\n- runFlow:\n    file: login.yaml\n    env:\n      USER: qa\n      PASS: secret123\n"
        + '- assertVisible: "Signed in as qa"\n'
    ),
    "repeat of conditional blocks": (
        "appId: com.example.amc.demo\n---\n- launchApp\n- repeat:\n    times: 3\n    commands:\n"
        + "\n".join("      " + line for line in SIGN_OUT_IF_SIGNED_IN.strip().splitlines())
        + '\n      - runFlow:\n          when:\n            visible: "Sign in to continue"\n'
        + "          commands:\n"
        + "\n".join("            " + line for line in LOGIN.strip().splitlines())
        + '\n- assertVisible: "Signed in as qa"\n'
    ),
}
SUBFLOW = (
    "appId: com.example.amc.demo\n---\n- tapOn: Username\n- inputText: ${USER}\n"
    "- tapOn: Password\n- inputText: ${PASS}\n- tapOn: Sign in\n"
)


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _steps(out: Path) -> list[dict[str, Any]]:
    run_dir = next(p for p in out.iterdir() if p.is_dir())
    return list(read_timeline(run_dir).steps)


@pytest.mark.parametrize("shape", sorted(FLOWS))
@pytest.mark.parametrize("spec", ["sim:android?timing=instant", "sim:ios?timing=instant"])
def test_a_flow_decided_as_it_runs_reaches_its_last_command(shape: str, spec: str, tmp_path: Path) -> None:
    write_flow(tmp_path, SUBFLOW, "login.yaml")
    flow = write_flow(tmp_path, FLOWS[shape], "flow.yaml")
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    assert "MAX_STEPS" not in result.out and "stopped after" not in result.out
    steps = _steps(tmp_path / "runs")
    assert all(s["status"] in ("passed", "skipped") for s in steps), [s["status"] for s in steps]
    last = steps[-1]["step"]
    if shape == "subflow with env and hooks":  # the hook's sign-out, after the flow's own last check
        assert last["action"] == "tap" and "Sign out" in str(last["args"]), last
        assert any(s["step"]["action"] == "assert_visible" for s in steps)
    else:
        assert last["action"] == "assert_visible", last


def test_the_loops_step_limit_still_bounds_a_free_planner() -> None:
    assert TaskRunnerConfig().max_steps == 20  # agents keep their bound; flows run with None
    assert TaskRunnerConfig(max_steps=None).max_steps is None
