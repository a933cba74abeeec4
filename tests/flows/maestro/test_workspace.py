"""Whole Maestro workspaces, read as Maestro reads them and run end to end with ``amc run FOLDER``
(issue 39): every key of Maestro's ``WorkspaceConfig`` with its meaning, unknown keys set aside
with a note (never refused), ``executionOrder`` with ``continueOnFailure``, ``testOutputDir``,
``requireTags``, ``platform``, and additional config files that are not flows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

HEADER = "appId: com.example.amc.demo\n"
LOGIN = (
    HEADER + "---\n- tapOn: Username\n- inputText: ${USER}\n- tapOn: Password\n- inputText: ${PASS}\n"
    "- tapOn: Sign in\n"
)
SIGNED_IN = (
    HEADER + "name: signed in\ntags: [smoke, auth]\nonFlowStart:\n  - launchApp\n---\n"
    "- runFlow:\n    file: ../../subflows/login.yaml\n    env: {USER: qa, PASS: secret123}\n"
    '- assertVisible: "Signed in as qa"\n'
    "- runFlow:\n    when:\n      visible: Sign out\n    commands:\n      - tapOn: Sign out\n"
    '- assertVisible: "Sign in to continue"\n'
)
SIGN_IN_PAGE = (
    HEADER + "name: sign-in page\ntags: [smoke, auth]\n---\n- launchApp\n"
    "- runFlow:\n    when:\n      platform: iOS\n    commands:\n      - assertVisible: Username\n"
    "- runFlow:\n    when:\n      platform: Android\n    commands:\n      - assertVisible: Password\n"
    '- assertVisible: "Sign in to continue"\n'
)
ONLY_SMOKE = HEADER + "name: smoke only\ntags: [smoke]\n---\n- launchApp\n"  # no auth tag: required
WIP = HEADER + "name: wip\ntags: [smoke, auth]\n---\n- assertVisible: nothing like this\n"
SPECS = ["sim:android?timing=instant", "sim:ios?timing=instant", "sim+adb:android?timing=instant"]


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _workspace(root: Path, config: str) -> Path:
    space = root / ".maestro"
    for folder in ("flows/auth", "flows/wip", "subflows"):
        (space / folder).mkdir(parents=True, exist_ok=True)
    write_flow(space, config, "config.yaml")
    write_flow(space, SIGNED_IN, "flows/auth/signed_in.yaml")
    write_flow(space, SIGN_IN_PAGE, "flows/sign_in_page.yaml")
    write_flow(space, ONLY_SMOKE, "flows/smoke_only.yaml")
    write_flow(space, WIP, "flows/wip/wip.yaml")
    write_flow(space, LOGIN, "subflows/login.yaml")
    return space


CONFIG = """
appId: com.example.amc.demo      # not a key of Maestro's workspace config: set aside, as Maestro does
env:
  USER: someone
timeout: 30000
browser: chrome
appStartup: {wait: 3}
flows:
  - "flows/**"
  - "!flows/wip/*"
includeTags: [smoke]
requireTags: [auth]
executionOrder:
  continueOnFailure: false
  flowsOrder: [sign-in page, signed in]
platform:
  ios: {disableAnimations: true, snapshotKeyHonorModalViews: false}
  android: {disableAnimations: true}
testOutputDir: results
"""


def _started(out: str) -> list[str]:
    """The flows in the order they started (``flow NAME (FILE): N steps``)."""
    return [m.group(1) for m in re.finditer(r"^flow (.+?) \((/[^)]*)\): ", out, re.MULTILINE)]


def test_unknown_keys_are_set_aside_with_a_note(tmp_path: Path) -> None:
    space = _workspace(tmp_path, CONFIG)
    result = amc("check", space)
    assert result.code == 0, result.out + result.err
    for key in ("appId", "env", "timeout", "browser", "appStartup"):
        assert f"key {key!r} is not one Maestro's workspace config reads; set aside" in result.out
    assert "config.yaml:1:1:" in result.out  # the note is at the key's line
    assert "wip.yaml" not in result.out and "login.yaml (" not in result.out.split("subflows")[0]


@pytest.mark.parametrize("spec", SPECS)
def test_a_whole_workspace_runs_as_maestro_runs_it(spec: str, tmp_path: Path) -> None:
    space = _workspace(tmp_path, CONFIG)
    result = amc("run", space, "--device", spec)
    assert result.code == 0, result.out + result.err
    # the executionOrder first, in its order; the wip folder left out by its glob, smoke_only by
    # requireTags; the subflow is no flow of the workspace (flows/** does not reach it)
    assert _started(result.out) == ["sign-in page", "signed in"]
    assert "key 'appId' is not one Maestro's workspace config reads" in result.err
    assert "left out by tags: smoke only" in result.err
    runs = sorted(p for p in (space / "results").iterdir() if p.is_dir())  # testOutputDir
    assert len(runs) == 2
    signed_in = next(p for p in runs if "signed" in p.name and "page" not in p.name)
    steps = read_timeline(signed_in).steps
    assert [s["status"] for s in steps].count("failed") == 0
    assert steps[0]["step"]["action"] == "launch_app"  # the onFlowStart hook
    assert steps[-1]["step"]["action"] == "assert_visible"  # the flow ran to its last command


def test_continue_on_failure_false_stops_the_sequence(tmp_path: Path) -> None:
    config = CONFIG.replace("flowsOrder: [sign-in page, signed in]", "flowsOrder: [wip, signed in]")
    config = config.replace('  - "!flows/wip/*"\n', "")
    space = _workspace(tmp_path, config)
    out = tmp_path / "runs"
    result = amc("run", space, "--device", SPECS[0], "--out", out, "--json")
    assert result.code == 1, result.out + result.err
    events = [json.loads(line) for line in result.out.splitlines() if line.startswith("{")]
    ends = {e["flow"]: e for e in events if e.get("event") in ("flow_end", "flow_skipped", "skipped")}
    assert ends["wip"]["status"] == "failed"
    assert ends["signed in"]["status"] == "skipped"
    assert "continueOnFailure is false" in json.dumps(ends["signed in"])
    assert ends["sign-in page"]["status"] == "succeeded"  # not in the sequence: it still runs
    assert not (space / "results").exists()  # --out wins over testOutputDir


def test_continue_on_failure_true_runs_the_whole_sequence(tmp_path: Path) -> None:
    config = CONFIG.replace("flowsOrder: [sign-in page, signed in]", "flowsOrder: [wip, signed in]")
    config = config.replace('  - "!flows/wip/*"\n', "").replace(
        "continueOnFailure: false", "continueOnFailure: true"
    )
    space = _workspace(tmp_path, config)
    result = amc("run", space, "--device", SPECS[0], "--out", tmp_path / "runs")
    assert result.code == 1
    assert _started(result.out) == ["wip", "signed in", "sign-in page"]
    assert "continueOnFailure is false" not in result.out + result.err


def test_an_order_whose_first_flow_is_missing_is_refused_as_maestro_does(tmp_path: Path) -> None:
    space = _workspace(tmp_path, CONFIG.replace("[sign-in page, signed in]", "[nowhere, signed in]"))
    result = amc("run", space, "--device", SPECS[0], "--out", tmp_path / "runs")
    assert result.code == 2
    assert "Could not find flows needed for execution in order: nowhere" in result.err


def test_an_additional_config_file_is_no_flow(tmp_path: Path) -> None:
    space = _workspace(tmp_path, CONFIG)
    write_flow(space, "platform:\n  android:\n    disableAnimations: true\n", "flows/regression_config.yaml")
    result = amc("check", space)
    assert result.code == 0, result.out
    assert "regression_config.yaml" not in result.out


def test_a_known_key_of_the_wrong_type_is_a_problem_at_its_line(tmp_path: Path) -> None:
    space = _workspace(tmp_path, CONFIG.replace("testOutputDir: results", "testOutputDir: [a, b]"))
    result = amc("check", space)
    assert result.code == 2
    assert "config.yaml:18:16: testOutputDir must be" in result.err, result.err


def test_an_unknown_platform_setting_is_a_note(tmp_path: Path) -> None:
    space = _workspace(
        tmp_path, CONFIG.replace("android: {disableAnimations: true}", "android: {fastMode: 1}")
    )
    result = amc("check", space)
    assert result.code == 0, result.out + result.err
    assert "platform.android: key 'fastMode' is not one" in result.out


IOS_ONLY_FAILS = (
    HEADER + "name: ios fails\ntags: [smoke, auth]\n---\n- launchApp\n"
    "- runFlow:\n    when:\n      platform: iOS\n    commands:\n"
    "      - extendedWaitUntil:\n          visible: nothing like this\n          timeout: 200\n"
)


def test_each_device_runs_its_own_sequence(tmp_path: Path) -> None:
    config = CONFIG.replace("flowsOrder: [sign-in page, signed in]", "flowsOrder: [ios fails, signed in]")
    space = _workspace(tmp_path, config)
    write_flow(space, IOS_ONLY_FAILS, "flows/ios_fails.yaml")
    result = amc(
        "run", space, "--device", SPECS[0], "--device", SPECS[1], "--each-device", "--out", tmp_path / "r"
    )
    assert result.code == 1, result.out + result.err
    # the iPhone's sequence stops at its failure; the Android phone's goes on
    assert result.out.count("flow signed in passed") == 1
    assert result.out.count("flow ios fails passed") == 1 and "flow ios fails FAILED" in result.out
    assert result.out.count("flow sign-in page passed") == 2


# Maestro's three answers when a folder chooses no flow (WorkspaceExecutionPlanner at dcd2f206),
# and its fixtures e001-e003: the folder and its config as given, what Maestro says.
NO_FLOW = [
    pytest.param({"notes.txt": "x"}, "Flow directories do not contain any Flow files", id="no-flow-at-all"),
    pytest.param(
        {"sub/one.yaml": HEADER + "---\n- launchApp\n"},
        "Top-level directories do not contain any Flows",
        id="flows-only-below",
    ),
    pytest.param(
        {"config.yaml": "flows: ['*']\n", "sub/one.yaml": HEADER + "---\n- launchApp\n"},
        "Top-level directories do not contain any Flows",
        id="the-default-pattern-written",
    ),
    pytest.param(
        {"config.yaml": "flows: [FlowA.yaml, FlowB.yaml]\n", "FlowC.yaml": HEADER + "---\n- launchApp\n"},
        "Flow inclusion pattern(s) did not match any Flow files: FlowA.yaml, FlowB.yaml",
        id="patterns-matching-none",
    ),
]


@pytest.mark.parametrize(("files", "said"), NO_FLOW)
def test_a_folder_that_chooses_no_flow_is_told_in_maestros_words(
    files: dict[str, str], said: str, tmp_path: Path
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = amc("check", tmp_path)
    assert result.code == 2
    assert said in result.err
    assert ("flows: ['**']" in result.err) is ("Top-level" in said)  # how to include subfolders
