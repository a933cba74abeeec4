"""Maestro flows of our own, run with `amc run` against the simulated apps, in process and over each
backend's face (the real adapter on the real wire protocol), checking Maestro's semantics: the
text is a case-insensitive full-match regex, the id matches after its package, launchApp restarts
the app, eraseText deletes characters, copyTextFrom / pasteText carry a text, a failing optional
step is a warning, a `when: platform` keeps steps off the other platform, a label names its step,
a relative selector picks the right one of two identical switches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

# Every backend: in process, and over the adb (uiautomator2), WebDriverAgent and Appium faces.
SPECS = [
    "sim:android?timing=instant",
    "sim:ios?timing=instant",
    "sim+adb:android?timing=instant",
    "sim+wda:ios?timing=instant",
    "sim+appium:android?timing=instant",
]
ANDROID = [s for s in SPECS if "android" in s]

LOGIN = """
appId: com.example.amc.demo
name: maestro login
tags: [smoke]
env:
  USER: qa
---
- launchApp
- tapOn:
    id: "USER.*"                      # a regex, full match, ignoring case; the id after its package
- inputText: ${USER}
- tapOn: "password"                   # the field's hint, in another case
- inputText: secret12X
- eraseText: 1                        # the X
- inputText: "3"
- launchApp:                          # not stopped first: what was typed stays
    stopApp: false
- tapOn:
    text: "sign in"
    label: Sign in as qa
- extendedWaitUntil:
    visible: "Signed in as .*"
    timeout: 5000
- assertVisible: "SIGNED IN AS QA"
- assertNotVisible: "Signed in"       # a full match: "Signed in as qa" is not "Signed in"
- copyTextFrom:
    id: greeting
- launchApp:                          # fails at once: optional, so a warning
    appId: com.example.not.installed
    optional: true
"""


def _records(out: Path) -> list[dict[str, Any]]:
    run_dir = next(p for p in out.iterdir() if p.is_dir())
    return list(read_timeline(run_dir).steps)


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


@pytest.mark.parametrize("spec", SPECS)
def test_a_maestro_login_runs_with_maestros_semantics(spec: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, LOGIN, "login.yaml")
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    steps = _records(tmp_path / "runs")
    statuses = [s["status"] for s in steps]
    assert statuses[-1] == "warning" and statuses.count("warning") == 1, statuses
    assert "failed" not in statuses
    shown = [s["step"]["rationale"] for s in steps]
    assert any('`tapOn: text: "sign in" label: Sign in as qa`' in r and "(Sign in as qa)" in r for r in shown)
    copied = next(s for s in steps if s["action"] == "copy_text_from")
    assert copied["result"]["output"]["copied"] == "Signed in as qa"
    assert "passed" in result.out and "maestro login" in result.out


def test_launch_app_restarts_the_app_and_typed_text_is_gone(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        ---
        - launchApp
        - tapOn: {id: username}
        - inputText: somebody
        - launchApp
        - assertNotVisible: somebody
        - tapOn: {id: username}
        - inputText: qa
        - launchApp: {stopApp: false}
        - assertVisible: qa
        """,
    )
    result = amc("run", flow, "--device", "sim:android?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    actions = [s["action"] for s in _records(tmp_path / "runs")]
    # The two relaunches that stop the app ran although it was in front; the one that does not
    # stop it had nothing to do (the app was in front), as in Maestro.
    assert actions.count("launch_app") == 2 and actions.count("skip") == 1


@pytest.mark.parametrize("spec", ANDROID)
def test_a_relative_selector_picks_the_right_one_of_two_identical_switches(spec: str, tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        appId: com.android.deskclock
        ---
        - launchApp
        - tapOn:
            id: switch_widget
            rightOf: "9:00 AM"                # both switches are right of it: the nearest one
        - assertVisible:
            text: "ON"
            below: "Mon, Tue, Wed, Thu, Fri"  # the second row's switch, not the first
        - assertNotVisible:
            text: "ON"
            above: "9:00 AM"
        - tapOn:
            text: "off"
            childOf:
              containsChild: "7:30 AM"        # the first row's switch, through its row
        - assertVisible:
            text: "on"
            index: -1                         # in screen order, from the end: the second row's
        - assertVisible:
            text: "on"
            index: 0
        """,
    )
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err


@pytest.mark.parametrize("spec", ["sim:android?timing=instant", "sim:ios?timing=instant"])
def test_platform_conditions_keep_steps_off_the_other_platform(spec: str, tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        ---
        - launchApp
        - runFlow:
            when:
              platform: iOS
            commands:
              - tapOn: {id: username}
              - inputText: on-ios
        - runFlow:
            when:
              platform: Android
            commands:
              - tapOn: {id: username}
              - inputText: on-android
        - runFlow:
            when:
              visible: "Sign in to continue"
            commands:
              - hideKeyboard
        - assertVisible: "on-${PLATFORM}"
        """,
    )
    platform = "ios" if "ios" in spec else "android"
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs", "--env", f"PLATFORM={platform}")
    assert result.code == 0, result.out + result.err
    actions = [s["action"] for s in _records(tmp_path / "runs")]
    assert actions.count("skip") == 1 and actions.count("check_visible") == 1
    assert "hide_keyboard" in actions


def test_a_failing_step_fails_the_flow_and_the_hook_still_runs(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        onFlowStart:
          - launchApp
        onFlowComplete:
          - pressKey: Home
        ---
        - extendedWaitUntil:
            visible: Nowhere to be seen
            timeout: 300
        - tapOn: Sign in
        """,
    )
    result = amc("run", flow, "--device", "sim:android?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 1, result.out + result.err
    steps = _records(tmp_path / "runs")
    assert [s["action"] for s in steps] == ["launch_app", "assert_visible", "press"]
    assert [s["status"] for s in steps] == ["passed", "failed", "passed"]
    assert "Nowhere to be seen" in result.out


def test_the_projects_own_flows_use_maestros_selector_fields_too(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        steps:
          - launch_app: com.android.deskclock
          - tap: {id_matches: switch_widget, right_of: {text: "9:00 AM"}}
          - assert_visible: {text: "ON", below: {text_matches: "mon.*"}}
          - assert_not_visible: {text: "ON", above: {text: "9:00 AM"}, timeout: 0}
        """,
    )
    result = amc("run", flow, "--device", "sim:android?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err


def test_a_conditions_optional_and_label_are_read_and_change_nothing(tmp_path: Path) -> None:
    """Maestro's YamlCondition takes ``optional`` and ``label`` and its check uses neither."""
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        ---
        - launchApp
        - runFlow:
            when: {visible: "Sign in to continue", optional: true, label: on the sign-in page}
            commands:
              - tapOn: {id: username}
              - inputText: seen
        - runFlow:
            when: {visible: "Never shown", optional: true}
            commands:
              - inputText: not-seen
        - assertVisible: seen
        - assertNotVisible: not-seen
        """,
    )
    result = amc("run", flow, "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    bad = write_flow(
        tmp_path,
        "appId: a.b\n---\n- runFlow: {when: {visible: X, optional: maybe}, commands: [back]}\n",
        "bad.yaml",
    )
    refused = amc("check", bad)
    assert refused.code == 2 and "optional" in refused.out + refused.err
