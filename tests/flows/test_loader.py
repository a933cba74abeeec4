"""Flow files: every command, ${VAR} substitution, and every kind of problem with its exact position."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from amc.core.errors import FlowError
from amc.flows import COMMANDS, MAX_FLOW_BYTES, FlowValidationError, load_flow, parse_flow

from .helpers import write_flow

ALL_COMMANDS = """
name: everything
steps:
  - launch_app: {android: com.android.settings, ios: com.apple.Preferences}
  - terminate_app: com.example.amc.demo
  - tap: Sign in
  - tap: {x: 10, y: 20}
  - long_press: {id: greeting, duration: 0.5}
  - type_text: {text: qa, target: {id: username}}
  - type_text: {text: hunter2, target: username, secret: true}
  - swipe: up
  - swipe: {x1: 1, y1: 2, x2: 3, y2: 4, duration: 0.2}
  - press: back
  - wait_for: {text_contains: Welcome, timeout: 5}
  - assert_visible: {label: Add alarm, index: 0}
  - assert_not_visible: {text_regex: "^Sign-in failed$", timeout: 0.5}
  - assert_app: {android: com.android.settings, ios: com.apple.Preferences, timeout: 1}
  - remember: {user: qa, attempts: 3, admin: false}
  - screenshot:
  - screenshot: after
  - scroll_until_visible: {target: {text: About}, direction: down, max_swipes: 4}
  - hide_keyboard
  - open_link: amcdemo://login
  - clear_state: {android: com.example.amc.demo, ios: com.example.amc.demo}
  - wait_for_animation_to_end
  - wait_for_animation_to_end: 2
  - back
  - double_tap: Trip
  - erase_text: 3
  - copy_text_from: {id: greeting}
  - paste_text
  - set_clipboard: qa
  - input_random: email
  - set_location: {latitude: 38.7, longitude: -9.1}
  - set_orientation: landscape_left
  - set_airplane_mode: enabled
  - toggle_airplane_mode
  - set_dark_mode: disabled
  - toggle_dark_mode
  - assert_dark_mode: {dark: false}
  - start_recording: sign-in
  - stop_recording
  - add_media: {files: [/tmp/a.png]}
  - travel: {points: ["0,0", "0.1,0"], speed: 10}
  - assert_screenshot: {path: /tmp/ref.png, threshold: 90}
  - set_permissions: {app_id: com.example.amc.notes, permissions: {notifications: allow}}
  - clear_keychain
"""


def _problem(text: str, tmp_path: Path) -> FlowError:
    path = write_flow(tmp_path, text)
    with pytest.raises(FlowError) as info:
        load_flow(path, environ={})
    return info.value


def test_every_command_becomes_an_executor_step_with_its_reasons(tmp_path: Path) -> None:
    flow = load_flow(write_flow(tmp_path, ALL_COMMANDS), environ={})
    assert {step.command for step in flow.steps} == set(COMMANDS)
    steps = flow.planned_steps("android")
    actions = [s.action for s in steps]
    assert actions[:4] == ["launch_app", "terminate_app", "tap", "tap"]
    assert steps[0].args == {"app_id": "com.android.settings"}
    assert flow.planned_steps("ios")[0].args == {"app_id": "com.apple.Preferences"}
    # Every step that looks for an element waits for it: 10 s unless the step or `defaults:` says.
    assert steps[2].args == {"target": {"text": "Sign in", "visible": True}, "timeout": 10.0}
    assert steps[3].args == {"x": 10.0, "y": 20.0}
    assert steps[4].args == {"target": {"id": "greeting", "visible": True}, "duration": 0.5, "timeout": 10.0}
    assert steps[6].args == {
        "text": "hunter2",
        "target": {"text": "username", "visible": True},
        "timeout": 10.0,
        "secret": True,
    }
    assert steps[7].args == {"direction": "up"}
    assert steps[8].args == {"x1": 1.0, "y1": 2.0, "x2": 3.0, "y2": 4.0, "duration": 0.2}
    assert steps[9].args == {"key": "back"}
    assert steps[10].args == {"target": {"text_contains": "Welcome", "visible": True}, "timeout": 5.0}
    assert steps[11].args["timeout"] == 10.0  # the default bound for asserts too
    assert steps[12].args["target"] == {"text_regex": "^Sign-in failed$", "visible": True}
    assert steps[13].args == {"app_id": "com.android.settings", "timeout": 1.0}
    assert steps[14].args == {"remember": {"user": "qa", "attempts": 3, "admin": False}}
    assert steps[15].args == {} and steps[16].args == {"name": "after"}
    assert steps[17].args == {
        "target": {"text": "About", "visible": True},
        "timeout": 10.0,
        "direction": "down",
        "max_swipes": 4,
    }
    assert steps[18].args == {} and steps[19].args == {"url": "amcdemo://login"}
    assert steps[20].args == {"app_id": "com.example.amc.demo"}
    assert steps[21].args == {} and steps[22].args == {"timeout": 2}
    # Each planned step says where it came from and what should happen.
    assert steps[2].purpose == "flow everything step 3"
    assert steps[2].rationale is not None and steps[2].rationale.endswith(
        "flow.yaml:5:5: `tap` as written in the flow"
    )
    assert steps[0].expected_outcome == "com.android.settings is in the foreground"
    assert steps[12].expected_outcome == "text_regex='^Sign-in failed$' is not on screen"
    # The secret typed text is known to the flow, and never in its repr or the step's outcome text.
    assert flow.secrets == {"hunter2"}
    assert "hunter2" not in repr(flow) and "hunter2" not in (steps[6].expected_outcome or "")


def test_name_defaults_to_the_file_name_and_numbers_stay_text_where_text_is_expected(tmp_path: Path) -> None:
    flow = load_flow(
        write_flow(tmp_path, "steps:\n  - type_text: 0012\n  - tap: 2024-01-01\n", "pin-entry.yaml"),
        environ={},
    )
    assert flow.name == "pin-entry"
    assert flow.planned_steps("android")[0].args == {"text": "0012"}
    assert flow.planned_steps("android")[1].args["target"]["text"] == "2024-01-01"


@pytest.mark.parametrize(
    ("text", "line", "column", "message", "hint"),
    [
        ("steps:\n  - tap: OK\n  - tapp: OK\n", 3, 5, "unknown command 'tapp'", "did you mean 'tap'?"),
        ("steps:\n  - tap: {txt: OK}\n", 2, 11, "tap: unknown key 'txt'", "did you mean 'text'?"),
        (
            "steps:\n  - wait_for: {text: X, timeout: fast}\n",
            2,
            34,
            "wait_for's timeout must be a number",
            None,
        ),
        (
            'steps:\n  - type_text: "${NOPE}"\n',
            2,
            16,
            "undefined variable ${NOPE}",
            "set NOPE in the environment",
        ),
        ("steps:\n  - tap\n", 2, 5, "step 1 must be a mapping with exactly one command", "one command per"),
        ("steps:\n  - tap: OK\n    press: back\n", 2, 5, "got 'tap', 'press'", None),
        ("stpes:\n  - tap: OK\n", 1, 1, "unknown key 'stpes'", "did you mean 'steps'?"),
        ("name: x\n", 1, 1, "the flow has no `steps:`", None),
        ("steps: []\n", 1, 8, "steps is empty", None),
        ("steps:\n  - tap: {text: A, index: -1}\n", 2, 27, "index must be at least 0", None),
        ("steps:\n  - tap: {text: A, index: 1.5}\n", 2, 27, "index must be a whole number", None),
        ('steps:\n  - tap: {text_regex: "("}\n', 2, 10, "is not a valid regex", None),
        ("steps:\n  - tap: {}\n", 2, 10, "tap needs a selector", None),
        ("steps:\n  - tap: {x: 1, text: A}\n", 2, 10, "either a point (both x and y) or a selector", None),
        ("steps:\n  - press: bakc\n", 2, 12, "unknown key 'bakc'", "did you mean 'back'?"),
        ("steps:\n  - swipe: sideways\n", 2, 12, "swipe direction must be one of", None),
        ("steps:\n  - swipe: {x1: 1}\n", 2, 12, "swipe needs a direction", None),
        ("steps:\n  - type_text: {text: a, secret: maybe}\n", 2, 34, "secret must be true or false", None),
        ("steps:\n  - type_text: {target: {id: a}}\n", 2, 16, "type_text needs `text:`", None),
        ("steps:\n  - launch_app: {windows: x}\n", 2, 18, "unknown key 'windows'", "accepted: android, ios"),
        ("steps:\n  - launch_app: [a]\n", 2, 17, "launch_app needs an app ID", None),
        ("steps:\n  - launch_app:\n", 2, 16, "launch_app's app ID must be a string", None),
        ("steps:\n  - remember: {}\n", 2, 15, "remember needs at least one", None),
        (
            "steps:\n  - assert_app: {ios: x, timeout: 999}\n",
            2,
            35,
            "timeout must be at least 0 and at most 300",
            None,
        ),
        ("steps:\n  - tap: {text: OK, text: No}\n", 2, 21, "key 'text' is given twice", None),
        ("steps:\n  - tap: !!python/object:os.system OK\n", 2, 10, "the YAML tag", None),
        ("platform: windows\nsteps:\n  - tap: OK\n", 1, 11, "platform must be android or ios", None),
        ("env: {1BAD: x}\nsteps:\n  - tap: OK\n", 1, 6, "'1BAD' is not a variable name", None),
        ("steps: {tap: OK}\n", 1, 8, "steps must be a list", "`- command: value`"),
        ("- tap: OK\n", 1, 1, "the flow must be a mapping", None),
        ("steps:\n  - tap: [OK\n", 3, 1, "not valid YAML", None),
        ("", 1, 1, "the flow file is empty", None),
    ],
)
def test_problems_name_file_line_column_and_a_hint(
    tmp_path: Path, text: str, line: int, column: int, message: str, hint: str | None
) -> None:
    problem = _problem(text, tmp_path)
    assert (problem.file, problem.line, problem.column) == (str(tmp_path / "flow.yaml"), line, column)
    assert message in str(problem)
    assert str(problem).startswith(f"{tmp_path / 'flow.yaml'}:{line}:{column}: ")
    if hint is not None:
        assert problem.hint is not None and hint in problem.hint


def test_every_bad_step_is_reported_not_only_the_first(tmp_path: Path) -> None:
    problem = _problem("steps:\n  - tapp: OK\n  - tap: OK\n  - press: bakc\n  - swipe: 7\n", tmp_path)
    assert isinstance(problem, FlowValidationError)
    assert [(p.line, p.column) for p in problem.problems] == [(2, 5), (4, 12), (5, 12)]
    assert "and 2 more problem(s)" in str(problem)


def test_a_step_for_the_wrong_platform_is_a_flow_error_at_its_line(tmp_path: Path) -> None:
    flow = load_flow(
        write_flow(tmp_path, "steps:\n  - tap: OK\n  - launch_app: {ios: com.apple.Preferences}\n"),
        environ={},
    )
    assert flow.default_platform == "ios"
    with pytest.raises(FlowError) as info:
        flow.planned_steps("android")
    assert (info.value.line, info.value.column) == (3, 5)
    assert "launch_app names no app for android" in str(info.value)
    assert info.value.hint is not None and "android: APP_ID" in info.value.hint


def test_env_substitution_process_environment_first_then_the_flows_env(tmp_path: Path) -> None:
    path = write_flow(
        tmp_path,
        """
        env:
          USER_NAME: from-flow
          PASSWORD: flow-default
          WAIT: 2
        steps:
          - type_text: "${USER_NAME}/${PASSWORD}"
          - wait_for: {text: "Hello ${USER_NAME}", timeout: "${WAIT}"}
          - type_text: "costs $${PRICE} and $$5"
        """,
    )
    flow = load_flow(path, environ={"PASSWORD": "from-env"})
    steps = flow.planned_steps("android")
    assert steps[0].args["text"] == "from-flow/from-env"
    assert steps[1].args == {"target": {"text": "Hello from-flow", "visible": True}, "timeout": 2.0}
    assert steps[2].args["text"] == "costs ${PRICE} and $$5"
    assert flow.env == {"USER_NAME": "from-flow", "PASSWORD": "flow-default", "WAIT": "2"}


def test_process_environment_is_the_default_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMC_TEST_APP", "com.android.settings")
    flow = load_flow(write_flow(tmp_path, "steps:\n  - launch_app: ${AMC_TEST_APP}\n"))
    assert flow.planned_steps("android")[0].args == {"app_id": "com.android.settings"}


@pytest.mark.parametrize("ref", ["${1ABC}", "${NAME", "${}"])
def test_malformed_variable_references_are_problems(tmp_path: Path, ref: str) -> None:
    problem = _problem(f'steps:\n  - type_text: "{ref}"\n', tmp_path)
    assert (problem.line, problem.column) == (2, 16)
    assert "bad variable reference" in str(problem)


def test_secrets_come_from_secret_typing_and_secret_remembering(tmp_path: Path) -> None:
    path = write_flow(
        tmp_path,
        """
        env: {PIN: "4711"}
        steps:
          - type_text: {text: "${PIN}", secret: true}
          - remember: {token: abc-123, user: qa, secret: true}
          - remember: {plain: visible}
        """,
    )
    flow = load_flow(path, environ={})
    assert flow.secrets == {"4711", "abc-123", "qa"}
    assert flow.planned_steps("android")[1].args == {
        "remember": {"token": "abc-123", "user": "qa"},
        "secret": True,
    }


def test_a_billion_laughs_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("steps:\n  - tap: *i")
    path = write_flow(tmp_path, "\n".join(lines) + "\n")
    tracemalloc.start()
    try:
        with pytest.raises(FlowError) as info:
            load_flow(path, environ={})
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "anchors and aliases" in str(info.value)
    assert (info.value.line, info.value.column) == (1, 4)
    assert peak < 5_000_000  # 9**9 strings would be gigabytes


def test_a_lone_alias_is_refused_too(tmp_path: Path) -> None:
    problem = _problem("steps:\n  - tap: &ok OK\n  - tap: *ok\n", tmp_path)
    assert "anchors and aliases" in str(problem) and (problem.line, problem.column) == (2, 10)


def test_an_oversized_file_is_refused_without_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"steps:\n  - tap: OK\n" + b"#" * MAX_FLOW_BYTES)
    with pytest.raises(FlowError) as info:
        load_flow(path, environ={})
    assert "the limit is 1048576" in str(info.value)
    with pytest.raises(FlowError, match="larger than 1048576 bytes"):
        parse_flow("steps:\n  - tap: OK\n" + "#" * MAX_FLOW_BYTES, environ={})


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    problem = _problem("steps: " + "[" * 200 + "]" * 200 + "\n", tmp_path)
    assert "nested more than 32 levels" in str(problem)


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(FlowError, match="cannot read the flow file"):
        load_flow(tmp_path / "missing.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"steps:\n  - tap: caf\xe9\n")
    with pytest.raises(FlowError, match="not UTF-8"):
        load_flow(bad)


def test_xpath_selectors_are_accepted_and_bad_ones_are_placed(tmp_path: Path) -> None:
    flow = parse_flow(
        "steps:\n  - tap: {xpath: \"//*[@text='Sign in']\"}\n  - wait_for: {xpath: '//Button', timeout: 1}\n",
        environ={},
    )
    assert flow.steps[0].args == {
        "target": {"xpath": "//*[@text='Sign in']", "visible": True},
        "timeout": 10.0,
    }
    problem = _problem("steps:\n  - tap: {xpath: '//*[@text='}\n", tmp_path)
    assert problem.line == 2 and "xpath" in str(problem)
