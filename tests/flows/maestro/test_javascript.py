"""Maestro's JavaScript surface, run by `amc run` on the simulated device (in process on both
platforms, and over the adb face through uiautomator2): `${...}` in every kind of value, evaluated
when its step runs, with the flow's env as variables; `evalScript`, `runScript` (a file beside the
flow, with its own env), `assertTrue`, `when: {true: ...}`, `repeat` with a computed `times` and a
`while: {true: ...}`, `onFlowStart` / `onFlowComplete` running a script and a subflow, `output`
shared with the subflows, `maestro.copiedText`, `maestro.platform` and `MAESTRO_PLATFORM`, `json()`,
`console.log` in the step's output; what a script puts in `output` in the world state, a secret one
as `***`, and no secret in any file of the run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.connect.simulated import SimDriver
from amc.flows import FlowPlanner, parse_flow
from amc.flows.js import ScriptLimits
from amc.runtime import TaskRunner
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

HERE = Path(__file__).parent
SPECS = ["sim:android?timing=instant", "sim:ios?timing=instant", "sim+adb:android?timing=instant"]

MAIN = """
appId: com.example.amc.demo
name: js surface
env:
  USER: ${USER_GIVEN || 'qa'}
  PASSWORD: ${'secret' + 123}
onFlowStart:
  - runScript: scripts/start.js
  - runFlow: sub/hello.yaml
onFlowComplete:
  - evalScript: ${console.log('complete after', output.rounds, 'rounds')}
---
- launchApp
- assertTrue: ${output.started && output.greeted === 'hello ' + USER}
- tapOn:
    id: username
- inputText: ${USER}
- tapOn:
    id: ${'pass' + 'word'}
- inputText: ${PASSWORD}
- tapOn:
    text: ${'sign in'}
    label: ${'Sign in as ' + USER}
- extendedWaitUntil:
    visible: ${'Signed in as ' + USER}
    timeout: ${2 * 2500}
- copyTextFrom:
    id: greeting
- assertTrue: ${maestro.copiedText == 'Signed in as ' + USER}
- runScript:
    file: scripts/start.js
    when:
      true: ${USER !== 'qa'}
- runScript:
    file: scripts/account.js
    when:
      true: ${USER === 'qa'}
    env:
      BODY: "${JSON.stringify({token: 't0k3n-abcdef', name: USER})}"
- assertTrue: ${output.account.name === 'qa' && MAESTRO_PLATFORM === maestro.platform}
- evalScript: ${output.rounds = 0}
- repeat:
    while:
      true: ${output.rounds < 2}
    commands:
      - evalScript: ${output.rounds++}
- repeat:
    times: ${output.rounds + 1}
    commands:
      - evalScript: ${output.times = (output.times || 0) + 1}
- runFlow:
    when:
      true: ${maestro.platform === 'ios'}
    commands:
      - evalScript: ${output.ios = true}
- runFlow:
    when:
      true: ${MAESTRO_PLATFORM === 'android'}
    commands:
      - evalScript: ${output.android = true}
- assertTrue: ${output.times === 3 && (output.ios || output.android) && !(output.ios && output.android)}
"""
SUB = """
appId: com.example.amc.demo
env:
  WHO: ${USER}
---
- evalScript: ${output.greeted = 'hello ' + WHO}
"""
START = "output.started = true;\nconsole.log('started on', maestro.platform);\n"
ACCOUNT = (
    "const data = json(BODY);\n"
    "output.account = {name: data.name, token: data.token};\n"
    "console.log('account for', data.name);\n"
)


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _surface(folder: Path) -> Path:
    (folder / "scripts").mkdir()
    (folder / "sub").mkdir()
    (folder / "scripts" / "start.js").write_text(START)
    (folder / "scripts" / "account.js").write_text(ACCOUNT)
    write_flow(folder, SUB, "sub/hello.yaml")
    return write_flow(folder, MAIN, "main.yaml")


def _run_dir(out: Path) -> Path:
    return next(p for p in out.iterdir() if p.is_dir())


@pytest.mark.parametrize("spec", SPECS)
def test_every_piece_of_the_surface_runs_on_the_device(spec: str, tmp_path: Path) -> None:
    flow = _surface(tmp_path)
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    run_dir = _run_dir(tmp_path / "runs")
    steps = list(read_timeline(run_dir).steps)
    assert all(s["status"] in ("passed", "skipped") for s in steps), [
        (s["action"], s["status"]) for s in steps
    ]
    scripts = [s for s in steps if s["action"] == "script"]
    # the hook's script ran first, its console line in the step's output
    assert scripts[0]["step"]["args"]["command"] == "runScript"
    platform = "ios" if "ios" in spec else "android"
    assert scripts[0]["result"]["output"]["logs"] == [f"started on {platform}"]
    account = next(s for s in scripts if str(s["step"]["args"].get("file", "")).endswith("account.js"))
    assert account["result"]["output"]["logs"] == ["account for qa"]
    typed = [s["step"]["args"]["text"] for s in steps if s["action"] == "type_text"]
    assert typed == ["qa", "***"]  # the secret variable's value, hidden in the record
    skipped = [s for s in steps if s["action"] == "skip"]
    assert [s["step"]["args"]["skipped"] for s in skipped] == ["script", "run_flow"]  # a runScript, a runFlow
    labelled = next(s for s in steps if s["action"] == "tap" and "label" in s["step"]["rationale"])
    assert "(Sign in as qa)" in labelled["step"]["rationale"]
    waited = next(s for s in steps if s["action"] == "assert_visible")
    assert waited["step"]["args"]["timeout"] == 5.0 and waited["step"]["args"]["target"]["text_matches"] == (
        "Signed in as qa"
    )
    # what the scripts put in `output` is in the world state; a secret one as ***
    world = steps[-1]["world"]["variables"]
    assert world["output.started"] is True and world["output.greeted"] == "hello qa"
    assert world["output.rounds"] == 2 and world["output.times"] == 3
    assert world["output.account"] == "***" and world[f"output.{platform}"] is True
    assert "complete after 2 rounds" in json.dumps(scripts[-1]["result"]["output"]["logs"])
    # no secret anywhere: the variable's value, the token a script received
    for path in run_dir.iterdir():
        if path.is_file():
            text = path.read_text(errors="replace")
            assert "secret123" not in text and "t0k3n-abcdef" not in text, path.name
    assert "secret123" not in result.out + result.err


def _records(flow: Path, tmp_path: Path, *options: str) -> tuple[int, list[Mapping[str, Any]], str]:
    result = amc("run", flow, "--device", "sim:android?timing=instant", "--out", tmp_path / "runs", *options)
    return result.code, list(read_timeline(_run_dir(tmp_path / "runs")).steps), result.out


def test_a_failing_script_fails_its_step_with_its_file_line_and_message_and_the_run_reports(
    tmp_path: Path,
) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "create.js").write_text(
        "console.log('asking the backend');\n"
        "if (!output.backend) {\n  throw new Error('no backend answered')\n}\n"
    )
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        onFlowComplete:
          - evalScript: ${output.completed = true}
        ---
        - runScript:
            file: scripts/create.js
            optional: true
        - evalScript: ${output.after = 'ran'}
        - inputText: ${output.user.email}
        - evalScript: ${output.never = true}
        """,
    )
    code, steps, out = _records(flow, tmp_path)
    assert code == 1
    assert [(s["action"], s["status"]) for s in steps] == [
        ("script", "warning"),
        ("script", "passed"),
        ("script", "failed"),
        ("script", "passed"),  # onFlowComplete ran after the failure
    ]
    thrown = steps[0]["result"]
    assert thrown["error_kind"] == "ScriptError"
    assert thrown["error"].startswith(f"{tmp_path / 'scripts' / 'create.js'}:3:")
    assert thrown["error"].endswith("Error: no backend answered")
    assert steps[0]["step"]["args"]["logs"] == ["asking the backend"]
    failed = steps[2]["result"]
    assert failed["error_kind"] == "ScriptError" and failed["error"].startswith(f"{flow}:9:14: ")
    assert "TypeError: cannot read property 'email' of undefined" in failed["error"]
    assert steps[2]["step"]["args"]["command"] == "inputText"
    assert "TypeError: cannot read property 'email' of undefined" in out
    assert steps[-1]["world"]["variables"] == {"output.after": "ran", "output.completed": True}


def test_javascript_syntax_and_scripts_outside_the_flows_tree_are_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (tmp_path / "outside.js").write_text("output.x = 1\n")
    (flows / "link.js").symlink_to(tmp_path / "outside.js")
    (flows / "bad.js").write_text("output.x = ;\n")
    flow = write_flow(
        flows,
        "appId: x\n---\n- runScript: ../outside.js\n- runScript: link.js\n- runScript: bad.js\n"
        "- evalScript: ${output.y = }\n",
    )
    result = amc("check", flow)
    assert result.code == 2
    said = result.out
    assert f"{flow}:3:" in said and "outside the flow's folder tree" in said
    assert f"{flow}:4:" in said  # a link that leads out of the tree
    assert f"{flow}:5:" in said and f"{flows / 'bad.js'}:1:12: SyntaxError" in said
    assert f"{flow}:6:" in said and "JavaScript syntax error" in said


def test_a_runaway_script_fails_its_step_within_its_limits_and_the_next_step_runs() -> None:
    """An endless loop and an endless allocation, each stopped at its limit (small ones here, so the
    test is quick: the defaults are 10 s and 64 MiB), each a failed step; the flow goes on."""
    flow = parse_flow(
        """appId: com.example.amc.demo
---
- evalScript: ${output.before = 1}
- evalScript:
    script: ${(() => { while (true) {} })()}
    optional: true
- runScript:
    file: grow.js
    optional: true
- evalScript: ${output.after = output.before + 1}
- evalScript: ${(() => { for (;;) {} })()}
- evalScript: ${output.never = true}
""",
        file=str(HERE / "runaway.yaml"),
        environ={},
    )
    limits = ScriptLimits(time_limit=0.5, memory_limit=16 * 1024 * 1024)
    planner = FlowPlanner(flow, "android", limits=limits)
    result = TaskRunner(SimDriver("android"), planner).run("runaway")
    assert result.status.value == "failed"
    assert [(s.status, s.result.error_kind) for s in result.steps] == [
        ("passed", None),
        ("warning", "ScriptTimeout"),
        ("warning", "ScriptMemoryExceeded"),
        ("passed", None),
        ("failed", "ScriptTimeout"),
    ]
    assert "ran past its time limit of 0.5 s and was stopped" in str(result.steps[1].result.error)
    assert "ran out of its 16 MiB of memory" in str(result.steps[2].result.error)
    assert result.world is not None and result.world.variables["output.after"] == 2


def test_a_project_flow_reaches_its_scripts_folder_from_a_subfolder(tmp_path: Path) -> None:
    """The flow's folder tree is its project: the `.maestro` folder above it (else the repository)."""
    for name in (".maestro", "plain"):
        (tmp_path / name / "tests").mkdir(parents=True)
        (tmp_path / name / "scripts").mkdir()
        (tmp_path / name / "scripts" / "data.js").write_text("output.data = {n: 1}\n")
        write_flow(tmp_path / name / "tests", "appId: x\n---\n- runScript: ../scripts/data.js\n")
    assert amc("check", tmp_path / ".maestro" / "tests" / "flow.yaml").code == 0
    refused = amc("check", tmp_path / "plain" / "tests" / "flow.yaml")
    assert refused.code == 2 and "outside the flow's folder tree" in refused.out
