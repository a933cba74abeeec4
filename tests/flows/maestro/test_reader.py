"""Reading Maestro flow files: the shape that tells the formats apart, each command's mapping onto
the actions with Maestro's defaults, Maestro's refusals at their line and column, JavaScript kept
and checked, the writer, and `amc check`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amc.actions import ACTIONS
from amc.core.errors import ConfigError, FlowError
from amc.core.models import PlannedStep
from amc.flows import FlowValidationError, load_flow
from amc.flows.capabilities import platform_problems
from amc.flows.maestro import to_maestro
from amc.flows.model import FlowStep, leaves

from ..helpers import amc, write_flow

HEADER = "appId: com.example.amc.demo\n---\n"


def _steps(tmp_path: Path, body: str, environ: dict[str, str] | None = None) -> list[FlowStep]:
    flow = load_flow(write_flow(tmp_path, HEADER + body), environ=environ or {})
    return list(leaves(flow.every_step))


def _one(tmp_path: Path, body: str) -> tuple[str, dict[str, Any]]:
    (step,) = _steps(tmp_path, body)
    return step.command, dict(step.args)


def _problem(tmp_path: Path, text: str) -> FlowError:
    with pytest.raises(FlowError) as info:
        load_flow(write_flow(tmp_path, text), environ={})
    error = info.value
    return error.problems[0] if isinstance(error, FlowValidationError) else error


MAESTRO = {"pick": "maestro", "visible": True}


@pytest.mark.parametrize(
    ("body", "action", "args"),
    [
        (
            "- launchApp\n",
            "launch_app",
            {"app_id": "com.example.amc.demo", "stop_first": True, "default_permissions": True},
        ),
        (
            "- launchApp: {stopApp: false, clearState: true}\n",
            "launch_app",
            {
                "app_id": "com.example.amc.demo",
                "stop_first": False,
                "clear_state": True,
                "default_permissions": True,
            },
        ),
        ("- stopApp\n", "terminate_app", {"app_id": "com.example.amc.demo"}),
        ("- killApp: com.other\n", "terminate_app", {"app_id": "com.other"}),
        ("- clearState\n", "clear_state", {"app_id": "com.example.amc.demo"}),
        ("- tapOn: Sign in\n", "tap", {"target": {"text_matches": "Sign in", **MAESTRO}, "timeout": 17.0}),
        (
            "- tapOn: {id: user, optional: true}\n",
            "tap",
            {"target": {"id_matches": "user", **MAESTRO}, "timeout": 7.0},
        ),
        ("- tapOn: {point: '50%,90%'}\n", "tap", {"at": "50%,90%", "timeout": 17.0}),
        (
            "- tapOn: {text: OK, retryTapIfNoChange: true, repeat: 3, delay: 200}\n",
            "tap",
            {
                "target": {"text_matches": "OK", **MAESTRO},
                "retry_if_no_change": True,
                "repeat": 3,
                "delay": 0.2,
                "timeout": 17.0,
            },
        ),
        ("- doubleTapOn: OK\n", "double_tap", {"target": {"text_matches": "OK", **MAESTRO}, "timeout": 17.0}),
        (
            "- longPressOn: {text: OK, index: '1.0'}\n",
            "long_press",
            {"target": {"text_matches": "OK", "index": 1, **MAESTRO}, "timeout": 17.0},
        ),
        (
            "- assertVisible: {text: OK, optional: true}\n",
            "assert_visible",
            {"target": {"text_matches": "OK", **MAESTRO}, "timeout": 17.0},
        ),
        (
            "- assertNotVisible: OK\n",
            "assert_not_visible",
            {"target": {"text_matches": "OK", **MAESTRO}, "timeout": 17.0},
        ),
        (
            "- extendedWaitUntil: {notVisible: OK, timeout: '2_500'}\n",
            "assert_not_visible",
            {"target": {"text_matches": "OK", **MAESTRO}, "timeout": 2.5},
        ),
        ("- inputText: 42\n", "type_text", {"text": "42"}),
        ("- inputText: {text: qa, id: ignored}\n", "type_text", {"text": "qa"}),
        ("- eraseText\n", "erase_text", {}),  # the action's default: 50, as Maestro's
        ("- eraseText: 3\n", "erase_text", {"count": 3}),
        ("- eraseText: {charactersToErase: 4}\n", "erase_text", {"count": 4}),
        ("- pressKey: Enter\n", "press", {"key": "enter"}),
        ("- pressKey: volume UP\n", "press", {"key": "volume_up"}),
        ("- pressKey: Backspace\n", "erase_text", {"count": 1}),
        ("- back\n", "back", {}),
        ("- action: back\n", "back", {}),
        ("- hide keyboard\n", "hide_keyboard", {}),
        ("- swipe: {direction: UP}\n", "swipe", {"start": "50%,50%", "end": "50%,10%", "duration": 0.4}),
        (
            "- swipe: {start: '10%, 50%', end: '90%, 50%', duration: 1000}\n",
            "swipe",
            {"start": "10%,50%", "end": "90%,50%", "duration": 1.0},
        ),
        (
            "- swipe: {from: {id: list}, direction: left}\n",
            "swipe",
            {
                "from": {"id_matches": "list", **MAESTRO},
                "direction": "left",
                "duration": 0.4,
                "timeout": 17.0,
            },
        ),
        ("- scroll\n", "swipe", {"start": "50%,50%", "end": "50%,10%", "duration": 0.4}),
        (
            "- scrollUntilVisible: {element: About}\n",
            "scroll_until_visible",
            {
                "target": {"text_matches": "About", **MAESTRO},
                "timeout": 20.0,
                "max_swipes": 50,
                "visibility": 1.0,
                "swipe_duration": 0.601,
            },
        ),
        (
            "- scrollUntilVisible: {element: About, speed: 100, visibilityPercentage: 50, direction: UP,"
            " timeout: -200, centerElement: true}\n",
            "scroll_until_visible",
            {
                "target": {"text_matches": "About", **MAESTRO},
                "timeout": 20.0,
                "max_swipes": 50,
                "visibility": 0.0,
                "swipe_duration": 0.001,
                "direction": "up",
                "center": True,
            },
        ),
        (
            "- copyTextFrom: {id: greeting}\n",
            "copy_text_from",
            {"target": {"id_matches": "greeting", **MAESTRO}, "timeout": 17.0},
        ),
        ("- pasteText\n", "paste_text", {}),
        ("- setClipboard: qa\n", "set_clipboard", {"text": "qa"}),
        ("- inputRandomEmail\n", "input_random", {"kind": "email"}),
        ("- inputRandomNumber: {length: 4}\n", "input_random", {"kind": "number", "length": 4}),
        (
            "- setLocation: {latitude: '38.7', longitude: -9.1}\n",
            "set_location",
            {"latitude": 38.7, "longitude": -9.1},
        ),
        ("- openLink: amcdemo://login\n", "open_link", {"url": "amcdemo://login"}),
        (
            "- openLink: {link: 'https://x.org', autoVerify: true, browser: true}\n",
            "open_link",
            {"url": "https://x.org"},
        ),
        ("- takeScreenshot: home\n", "screenshot", {"name": "home"}),
        ("- waitForAnimationToEnd\n", "wait_for_animation_to_end", {"timeout": 15.0}),
        ("- waitForAnimationToEnd: {timeout: 2000}\n", "wait_for_animation_to_end", {"timeout": 2.0}),
        (
            "- tapOn: {text: Save, waitToSettleTimeoutMs: 500}\n",
            "tap",
            {"target": {"text_matches": "Save", **MAESTRO}, "settle": 0.5, "timeout": 17.0},
        ),
    ],
)
def test_each_command_becomes_its_action_with_maestros_defaults(
    tmp_path: Path, body: str, action: str, args: dict[str, Any]
) -> None:
    assert _one(tmp_path, body) == (action, args)


def test_relative_selectors_become_nested_selectors(tmp_path: Path) -> None:
    _, args = _one(
        tmp_path,
        "- tapOn:\n    text: Delete\n    below: {id: trip}\n    leftOf: Edit\n    childOf: {id: row}\n"
        "    containsDescendants: [A, {text: B}]\n    checked: false\n    width: 40\n    tolerance: 2\n",
    )
    target = args["target"]
    assert target["below"] == {"id_matches": "trip", **MAESTRO}
    assert target["left_of"] == {"text_matches": "Edit", "pick": "maestro", "visible": True}
    assert target["child_of"]["id_matches"] == "row"
    assert [d["text_matches"] for d in target["contains_descendants"]] == ["A", "B"]
    assert (target["checked"], target["width"], target["tolerance"]) == (False, 40, 2)


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        (HEADER + "- tapOn\n", (3, 3), "Missing Command Options"),
        (HEADER + "- tapOnn: OK\n", (3, 3), "`tapOnn` is not a valid command"),
        (HEADER + "- launchApp:\n", (3, 13), "requires additional options"),
        (HEADER + "- tapOn: foo\n  optional: true\n", (4, 3), "unexpected top-level field `optional`"),
        (HEADER + "- - tapOn: OK\n", (3, 3), 'expected "<commandName>: <options>"'),
        (HEADER + "- launchApp: {invalidOption: x}\n", (3, 30), "Unknown Property: invalidOption"),
        (HEADER + "- swipe: {direction: diagonal}\n", (3, 22), "Invalid swipe direction"),
        (HEADER + "- swipe: {direction: Up}\n", (3, 22), "Invalid swipe direction"),
        (HEADER + "- pressKey: Shift\n", (3, 13), "Unknown key name"),
        (HEADER + "- evalScript: ${output.x = }\n", (3, 15), "JavaScript syntax error"),
        (HEADER + "- runFlow: missing.yaml\n", (3, 12), "cannot read the flow file"),
        (HEADER + "- runScript: missing.js\n", (3, 14), "cannot read the script"),
        ("appId: x\ntags: smoke\n---\n- back\n", (2, 7), "tags must be a list"),
        ("name: x\n---\n- back\n", (1, 1), "either 'url' or 'appId'"),
        ("appId: x\n---\n", (3, 1), "Commands Section Required"),
        ("appId: x\n---\nback\n", (3, 1), "Commands Section Required"),
        ("appId: x\njsEngine: rhino\n---\n- back\n", (2, 11), "rhino"),
    ],
)
def test_maestros_refusals_at_their_line_and_column(
    tmp_path: Path, text: str, where: tuple[int, int], words: str
) -> None:
    problem = _problem(tmp_path, text)
    assert (problem.line, problem.column) == where, str(problem)
    assert words in problem.message
    if "is not a valid command" in words:
        assert "did you mean 'tapOn'" in (problem.hint or "")


def test_erase_text_erases_fifty_characters_by_default() -> None:
    assert ACTIONS["erase_text"].validate({})["count"] == 50


def test_variables_follow_maestros_order_and_an_unset_one_reads_undefined(tmp_path: Path) -> None:
    flow = load_flow(
        write_flow(
            tmp_path,
            "appId: x\nenv:\n  USER: alice\n  NEXT: ${USER}\n---\n- inputText: ${USER}-${PASS}\n"
            "- inputText: ${NEXT}\n- inputText: '\\${USER}'\n- inputText: ${USER.toUpperCase()}\n",
        ),
        environ={"USER": "bob"},
    )
    typed = [s.args["text"] for s in leaves(flow.steps)]
    # the header's env is bound after -e (Maestro runs the definitions in that order), all at once
    assert typed[:3] == ["alice-undefined", "bob", "${USER}"]
    # a ${...} JavaScript computes: read again, evaluated, when the step runs
    assert typed[3] == "${USER.toUpperCase()}" and flow.steps[3].template is not None
    assert any("PASS" in note.message for note in flow.notes)


def test_subflows_scope_their_env_and_conditions_wait(tmp_path: Path) -> None:
    write_flow(tmp_path, "appId: x\n---\n- inputText: ${WHO}\n", "sub.yaml")
    flow = load_flow(
        write_flow(
            tmp_path,
            "appId: x\n---\n- runFlow: {file: sub.yaml, env: {WHO: qa}}\n"
            "- runFlow:\n    when: {visible: OK, platform: iOS}\n    env: {WHO: inline}\n"
            "    commands: [{inputText: '${WHO}'}]\n- inputText: ${WHO}\n"
            "- retry: {maxRetries: 9, commands: [back]}\n- repeat: {times: '2', commands: [back]}\n",
        ),
        environ={},
    )
    typed = [s.args.get("text") for s in leaves(flow.steps) if s.command == "type_text"]
    assert typed == ["qa", "inline", "undefined"]
    when = flow.steps[1].when
    assert when is not None and "visible" in when.describe() and "platform ios" in when.describe()
    assert flow.steps[3].times == 3 and flow.steps[4].limit == 2  # maxRetries is capped at 3


def test_a_command_no_backend_runs_is_kept_and_refused_before_a_run(tmp_path: Path) -> None:
    flow = load_flow(
        write_flow(
            tmp_path,
            HEADER + "- assertWithAI: the sign-in screen shows\n- setLocation: {latitude: 1, longitude: 2}\n"
            "- runFlow:\n    when: {platform: iOS}\n    commands: [clearKeychain]\n"
            "- assertNoDefectsWithAI:\n    optional: true\n",
        ),
        environ={},
    )
    problems, notes = platform_problems(flow, "android", "u2")
    assert [(p.line, "assertWithAI" in p.message or "uiautomator2" in p.message) for p in problems] == [
        (3, True),
        (4, True),
    ]
    assert "u2 (android)" in problems[1].message and [n.line for n in notes] == [8]
    problems, _ = platform_problems(flow, "ios", "wda")
    assert [p.line for p in problems] == [3, 7]  # the keychain only on iOS; setLocation over WDA works


def test_the_writer_writes_steps_maestro_reads_back(tmp_path: Path) -> None:
    steps = [
        PlannedStep("launch_app", {"app_id": "com.example.amc.demo", "stop_first": True}),
        PlannedStep("tap", {"target": {"id": "username"}, "timeout": 10.0}),
        PlannedStep("type_text", {"text": "qa (1)"}),
        PlannedStep("tap", {"target": {"text": "Sign in"}}),
        PlannedStep("swipe", {"direction": "up", "duration": 0.5}),
        PlannedStep("press", {"key": "back"}),
        PlannedStep(
            "assert_visible", {"target": {"text_matches": "Signed in.*", "below": {"text": "Welcome"}}}
        ),
    ]
    text = to_maestro(steps, app_id="com.example.amc.demo", name="recorded")
    path = tmp_path / "recorded.yaml"
    path.write_text(text)
    read = list(leaves(load_flow(path, environ={}).steps))
    assert [s.command for s in read] == [
        "launch_app",
        "tap",
        "type_text",
        "tap",
        "swipe",
        "back",  # press back is Maestro's own command
        "assert_visible",
    ]
    assert read[1].args["target"]["id_matches"] == "username" and read[2].args["text"] == "qa (1)"
    assert read[3].args["target"]["text_matches"] == "Sign in" and read[4].args["duration"] == 0.5
    assert read[6].args["target"]["below"]["text_matches"] == "Welcome"
    assert "# remember a (the project's flows only)" in to_maestro(
        [PlannedStep("remember", {"remember": {"a": 1}})], app_id="x"
    )
    with pytest.raises(ConfigError, match="no Maestro command"):
        to_maestro([PlannedStep("describe_screen", {})], app_id="x")
    with pytest.raises(ConfigError, match="no selector for 'xpath'"):
        to_maestro([PlannedStep("tap", {"target": {"xpath": "//a"}})], app_id="x")


def test_amc_check_reports_every_file_with_a_line_each(tmp_path: Path) -> None:
    write_flow(tmp_path, HEADER + "- tapOn: OK\n- evalScript: ${output.n = 1}\n", "good.yaml")
    write_flow(tmp_path, HEADER + "- tapOn\n- inputTxt: x\n", "bad.yaml")
    write_flow(tmp_path, "steps:\n  - press: home\n", "ours.yaml")
    result = amc("check", tmp_path)
    assert result.code == 2
    lines = result.out.splitlines()
    assert lines[0] == f"FAIL {tmp_path / 'bad.yaml'}: 2 problem(s)"
    assert f"{tmp_path / 'bad.yaml'}:3:3:" in lines[1] and f"{tmp_path / 'bad.yaml'}:4:3:" in lines[2]
    assert lines[3].startswith(f"ok   {tmp_path / 'good.yaml'} (Maestro flow 'good'")
    assert any(line.startswith(f"ok   {tmp_path / 'ours.yaml'} (amc flow") for line in lines)
    assert amc("check", tmp_path / "good.yaml", "--device", "sim+adb:android").code == 0  # JavaScript runs
    assert amc("check", tmp_path / "ours.yaml", "--device", "sim+wda:ios").code == 0


def test_a_workspace_config_selects_flows_by_glob_tag_and_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_flow(
        tmp_path,
        "flows: ['**', '!sub/skip.yaml']\nincludeTags: [smoke]\nexecutionOrder:\n"
        "  flowsOrder: [second, first]\n",
        "config.yaml",
    )
    write_flow(tmp_path, "appId: x\nname: first\ntags: [smoke]\n---\n- back\n", "a.yaml")
    write_flow(tmp_path, "appId: x\nname: second\ntags: [smoke]\n---\n- back\n", "sub/b.yaml")
    write_flow(tmp_path, "appId: x\ntags: [smoke]\n---\n- back\n", "sub/skip.yaml")
    write_flow(tmp_path, "appId: x\ntags: [slow]\n---\n- back\n", "c.yaml")
    result = amc("check", tmp_path)
    assert result.code == 0 and "skip.yaml" not in result.out and "config.yaml" not in result.out
    result = amc("run", tmp_path, "--device", "sim:android?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    started = [
        line for line in result.out.splitlines() if line.startswith("flow ") and f" ({tmp_path}" in line
    ]
    assert [line.split()[1] for line in started[:2]] == ["second", "first"]
    assert "left out by tags: c" in result.err


def test_docs_maestro_compatibility_table_is_current() -> None:
    from amc.flows.maestro.reference import main

    docs = Path(__file__).resolve().parents[3] / "docs" / "maestro.md"
    assert main(["--check", str(docs)]) == 0


def test_traits_are_read_as_maestro_names_them_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    _, args = _one(tmp_path, "- tapOn:\n    traits: TEXT long-text\n")
    assert args["target"]["traits"] == ["text", "long_text"]
    problem = _problem(tmp_path, HEADER + "- tapOn:\n    traits: round\n")
    assert "'round' is not a trait" in problem.message and problem.line == 4


def test_a_square_trait_is_maestros_three_percent() -> None:
    from amc.core.models import Bounds, UIElement
    from amc.core.selectors import Selector

    square = Selector.from_mapping({"traits": ["square"], "pick": "maestro"})
    near = UIElement(type="View", text=None, bounds=Bounds(0, 0, 102, 100))
    off = UIElement(type="View", text=None, bounds=Bounds(0, 0, 104, 100))
    flat = UIElement(type="View", text=None, bounds=Bounds(0, 0, 100, 0))
    assert [square.matches(e) for e in (near, off, flat)] == [True, False, False]
