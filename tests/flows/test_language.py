"""The flow language beyond single commands, as the loader reads it: optional / when, conditions,
run_flow, repeat, retry, tags, defaults, bare commands, and every problem listed at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amc.core.errors import FlowError
from amc.flows import FlowStep, FlowValidationError, Repeat, Retry, RunFlow, load_flow, parse_flow
from amc.flows.conditions import AppIs, Combined, PlatformIs, Seen

from .helpers import write_flow


def _problems(path: Path, environ: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(FlowError) as info:
        load_flow(path, environ=environ or {})
    error = info.value
    problems = error.problems if isinstance(error, FlowValidationError) else (error,)
    return [str(p) for p in problems]


def test_optional_and_when_beside_the_command_or_inside_its_mapping() -> None:
    flow = parse_flow(
        """
steps:
  - tap: OK
    optional: true
  - tap: {text: OK, optional: true, when: {platform: ios}}
  - hide_keyboard
  - hide_keyboard: {when: {visible: {id: username}}}
  - press: back
    when: {all: [{platform: android}, {not_visible: Done}, {app: com.android.settings}]}
""",
        environ={},
    )
    first, second, third, fourth, fifth = flow.steps
    assert isinstance(first, FlowStep) and first.optional and first.when is None
    assert isinstance(second, FlowStep) and second.optional and second.when == PlatformIs("ios")
    assert second.args == {"target": {"text": "OK", "visible": True}, "timeout": 10.0}
    assert isinstance(third, FlowStep) and third.command == "hide_keyboard" and third.args == {}
    assert isinstance(fourth, FlowStep) and fourth.when == Seen({"id": "username", "visible": True})
    assert isinstance(fifth, FlowStep) and isinstance(fifth.when, Combined) and fifth.when.every
    assert fifth.when.parts[1] == Seen({"text": "Done", "visible": True}, present=False)
    assert fifth.when.parts[2] == AppIs({"android": "com.android.settings", "ios": "com.android.settings"})


def test_a_condition_with_several_keys_means_all_of_them() -> None:
    flow = parse_flow("steps:\n  - press: back\n    when: {platform: android, visible: Back}\n", environ={})
    (step,) = flow.steps
    assert step.when == Combined(
        (Seen({"text": "Back", "visible": True}), PlatformIs("android")), every=True
    ) or (isinstance(step.when, Combined) and {type(p) for p in step.when.parts} == {Seen, PlatformIs})
    assert step.when is not None and step.when.describe() in (
        "(visible text='Back' and platform android)",
        "(platform android and visible text='Back')",
    )


def test_defaults_timeout_is_the_wait_of_every_step_that_looks_for_an_element() -> None:
    flow = parse_flow(
        """
defaults: {timeout: 4}
steps:
  - tap: OK
  - assert_visible: OK
  - assert_not_visible: {text: Gone, timeout: 1}
  - type_text: {text: x, target: {id: name}}
  - scroll_until_visible: About
  - assert_app: com.android.settings
""",
        environ={},
    )
    timeouts = [step.args.get("timeout") for step in flow.steps if isinstance(step, FlowStep)]
    assert timeouts == [4.0, 4.0, 1.0, 4.0, 4.0, 3.0]  # assert_app looks for no element: its own 3 s
    assert flow.default_timeout == 4.0


def test_tags_name_and_description() -> None:
    flow = parse_flow("name: x\ntags: [smoke, login, smoke]\nsteps:\n  - press: home\n", environ={})
    assert flow.tags == ("smoke", "login")
    assert parse_flow("tags: smoke\nsteps:\n  - press: home\n", environ={}).tags == ("smoke",)


def test_repeat_and_retry_blocks_hold_steps() -> None:
    flow = parse_flow(
        """
steps:
  - repeat:
      times: 3
      steps:
        - swipe: up
  - repeat: {while: {visible: Loading}, max: 5, steps: [{press: back}]}
  - repeat: {while: {visible: Loading}, steps: [{press: back}]}
  - retry:
      times: 2
      steps:
        - tap: Sign in
        - assert_visible: Welcome
    optional: true
""",
        environ={},
    )
    times, bounded, default, retry = flow.steps
    assert isinstance(times, Repeat) and times.limit == 3 and times.condition is None
    assert isinstance(bounded, Repeat) and bounded.limit == 5 and bounded.condition is not None
    assert isinstance(default, Repeat) and default.limit == 10  # a while without max stops after 10
    assert isinstance(retry, Retry) and retry.times == 2 and retry.optional and len(retry.steps) == 2
    assert flow.total is None and flow.most_steps == 3 + 5 + 10 + 2 * 3


def test_run_flow_reads_the_subflow_relative_to_the_including_file_with_its_env(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_flow(
        tmp_path / "sub",
        "env: {USER: nobody}\nsteps:\n  - type_text: '${USER}'\n  - run_flow: deeper.yaml\n",
        "login.yaml",
    )
    write_flow(tmp_path / "sub", "steps:\n  - type_text: {text: '${SECRET}', secret: true}\n", "deeper.yaml")
    main = write_flow(
        tmp_path,
        "env: {SECRET: s3cr3t-value}\nsteps:\n"
        "  - run_flow: {file: sub/login.yaml, env: {USER: qa}}\n  - run_flow: sub/login.yaml\n",
    )
    flow = load_flow(main, environ={})
    first, second = flow.steps
    assert isinstance(first, RunFlow) and isinstance(second, RunFlow)
    assert first.flow.path == os.fspath(tmp_path / "sub" / "login.yaml")
    typed = [s.args["text"] for s in (first.flow.steps[0], second.flow.steps[0]) if isinstance(s, FlowStep)]
    assert typed == ["qa", "nobody"]  # run_flow's env wins over the subflow's own env
    # The including flow's variables reach the subflows, and their secrets are the flow's secrets.
    assert flow.secrets == {"s3cr3t-value"}


def test_a_cycle_is_reported_at_the_run_flow_that_closes_it(tmp_path: Path) -> None:
    write_flow(tmp_path, "steps:\n  - run_flow: b.yaml\n", "a.yaml")
    write_flow(tmp_path, "steps:\n  - press: home\n  - run_flow: a.yaml\n", "b.yaml")
    problems = _problems(tmp_path / "a.yaml")
    assert any(
        f"{tmp_path / 'b.yaml'}:3:15:" in p and "run_flow makes a cycle: a.yaml -> b.yaml -> a.yaml" in p
        for p in problems
    ), problems


def test_a_subflows_own_problems_carry_its_own_file_line_column(tmp_path: Path) -> None:
    write_flow(tmp_path, "steps:\n  - press: home\n  - tapp: OK\n", "sub.yaml")
    main = write_flow(
        tmp_path,
        "steps:\n  - run_flow: sub.yaml\n  - run_flow: missing.yaml\n"
        "  - wait_for: {text: X, timeout: soon}\n",
    )
    problems = _problems(main)
    assert any(p.startswith(f"{tmp_path / 'sub.yaml'}:3:5: unknown command 'tapp'") for p in problems), (
        problems
    )
    assert any(f"{main}:3:15: run_flow 'missing.yaml': cannot read the flow file" in p for p in problems), (
        problems
    )
    assert any(f"{main}:4:" in p and "wait_for's timeout must be a number" in p for p in problems), problems


def test_a_run_flow_target_may_not_be_a_symlink_a_fifo_or_a_folder(tmp_path: Path) -> None:
    write_flow(tmp_path, "steps:\n  - press: home\n", "real.yaml")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "real.yaml")
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "folder.yaml").mkdir()
    main = write_flow(
        tmp_path,
        "steps:\n  - run_flow: link.yaml\n  - run_flow: pipe.yaml\n"
        "  - run_flow: folder.yaml\n  - run_flow: real.yaml\n",
    )
    problems = _problems(main)
    assert len(problems) == 3, problems
    assert "may not be a symlink" in problems[0]
    assert "not a regular file" in problems[1]  # opened without blocking, then refused
    assert "is a folder" in problems[2]


def test_an_unknown_top_level_key_does_not_hide_the_steps_problems(tmp_path: Path) -> None:
    path = write_flow(tmp_path, "nmae: typo\nappId: com.example\nsteps:\n  - tapp: OK\n  - swipe: sideways\n")
    problems = _problems(path)
    assert [p.split(": ", 1)[0] for p in problems] == [
        f"{path}:1:1",
        f"{path}:2:1",
        f"{path}:4:5",
        f"{path}:5:12",
    ]
    assert "unknown key 'nmae'" in problems[0] and "did you mean 'name'?" in problems[0]
    assert "unknown command 'tapp'" in problems[2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps:\n  - tap: OK\n    optional: yes please\n", "optional must be true or false"),
        ("steps:\n  - tap: OK\n    when: {visble: OK}\n", "when: unknown key 'visble'"),
        ("steps:\n  - tap: OK\n    when: {}\n", "when is empty"),
        ("steps:\n  - tap: OK\n    when: {platform: windows}\n", "platform must be android or ios"),
        ("steps:\n  - tap: OK\n    when: {any: []}\n", "any must be a non-empty list"),
        ("steps:\n  - tap: {text: OK, optional: true}\n    optional: true\n", "is given twice"),
        ("steps:\n  - remember: {a: 1, optional: true}\n", "remember takes variables"),
        ("steps:\n  - repeat: {steps: [{press: home}]}\n", "repeat needs `times: N` or `while: CONDITION`"),
        ("steps:\n  - repeat: {times: 0, steps: [{press: home}]}\n", "repeat's times must be at least 1"),
        ("steps:\n  - repeat: {times: 2.5, steps: [{press: home}]}\n", "must be a whole number"),
        ("steps:\n  - repeat: {times: 2, max: 3, steps: [{press: home}]}\n", "max bounds a `while:`"),
        ("steps:\n  - repeat: {times: 2}\n", "repeat needs `steps:`"),
        (
            "steps:\n  - retry: {times: 99, steps: [{press: home}]}\n",
            "retry's times must be at least 1 and at most 10",
        ),
        ("steps:\n  - retry: {times: 1, steps: []}\n", "retry's steps is empty"),
        ("steps:\n  - run_flow: {env: {A: b}}\n", "run_flow needs a file"),
        ("steps:\n  - scroll_until_visible: {direction: down}\n", "scroll_until_visible needs a target"),
        (
            "steps:\n  - scroll_until_visible: {target: X, direction: sideways}\n",
            "unknown direction 'sideways'",
        ),
        (
            "steps:\n  - scroll_until_visible: {target: X, max_swipes: 500}\n",
            "max_swipes must be at least 0 and at most 50",
        ),
        ("steps:\n  - open_link: not a link\n", "open_link needs a link with a scheme"),
        ("steps:\n  - hide_keyboard: now\n", "hide_keyboard takes no value"),
        ("steps:\n  - tap: {x: 1, y: 2, timeout: 3}\n", "at a point waits for nothing"),
        (
            "defaults: {timeout: 1000}\nsteps:\n  - press: home\n",
            "defaults' timeout must be at least 0 and at most 300",
        ),
        ("defaults: {wait: 3}\nsteps:\n  - press: home\n", "defaults: unknown key 'wait'"),
        ("tags: [smoke, 'bad tag']\nsteps:\n  - press: home\n", "tag 'bad tag' must be"),
        ("steps:\n  - optional: true\n", "exactly one command"),
    ],
)
def test_each_mistake_is_named_with_its_place(text: str, message: str, tmp_path: Path) -> None:
    problems = _problems(write_flow(tmp_path, text))
    assert any(message in p for p in problems), problems
    assert all(p.startswith(f"{tmp_path / 'flow.yaml'}:") for p in problems), problems
