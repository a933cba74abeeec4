"""The run timeline: one synced JSON line per step, files beside it, read back even after a crash."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import ConfigError, DeviceTimeout
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.flows import FlowPlanner, parse_flow
from amc.runtime.context import TaskContext
from amc.runtime.planner import ScriptedPlanner
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import TaskRunner
from amc.sim import DEMO_APP
from amc.storage.timeline import TIMELINE_FILE, RunInfo, TimelineWriter, new_run_dir, read_timeline

from tests.unit.fakes import FakeDriver, scene

FLOW = f"""
name: timeline
steps:
  - launch_app: {DEMO_APP}
  - screenshot: login
  - launch_app: {DEMO_APP}
  - assert_visible: {{text: Signed in as qa, timeout: 0}}
  - terminate_app: {DEMO_APP}
"""


def _info(driver: SimDriver | FakeDriver, planned: int | None = None) -> RunInfo:
    return RunInfo(
        "timeline",
        "goal",
        driver.device_id,
        driver.platform,
        driver.backend,
        "sim:android",
        "f.yaml",
        planned,
    )


def _run_flow(run_dir: Path) -> TimelineWriter:
    driver = SimDriver("android")
    writer = TimelineWriter(run_dir)
    writer.start(_info(driver, 5))
    runner = TaskRunner(
        driver,
        FlowPlanner(parse_flow(FLOW, environ={}), "android"),
        listeners=[TimelineRecorder(writer, driver)],
    )
    result = runner.run("flow")
    writer.finish(
        result.status.value, duration=result.duration, error=result.error, error_kind=result.error_kind
    )
    return writer


def test_a_run_folder_holds_header_steps_footer_and_the_files_of_each_step(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    _run_flow(run_dir)
    timeline = read_timeline(run_dir)
    assert timeline.finished and not timeline.truncated and timeline.problems == ()
    assert timeline.header is not None and timeline.header["flow"] == "timeline"
    assert timeline.header["device"] == {
        "id": "emulator-5554",
        "platform": "android",
        "backend": "sim",
        "spec": "sim:android",
    }
    assert timeline.status == "failed"
    assert [s["status"] for s in timeline.steps] == ["passed", "passed", "skipped", "failed"]
    assert [s["action"] for s in timeline.steps] == ["launch_app", "screenshot", "skip", "assert_visible"]
    first = timeline.steps[0]
    assert first["step"]["args"] == {"app_id": DEMO_APP}
    assert first["step"]["purpose"] == "flow timeline step 1"
    assert first["result"]["success"] is True
    assert first["scene"]["foreground_app"] == DEMO_APP and "Sign in" in first["scene"]["texts"]
    assert first["world"]["current_app"] == DEMO_APP and "history" not in first["world"]
    assert "already in front" in timeline.steps[2]["target"]
    failed = timeline.steps[3]
    assert failed["result"]["error_kind"] == "AssertionFailed"
    assert timeline.footer is not None and timeline.footer["steps"] == 4
    assert timeline.footer["error_kind"] == "AssertionFailed"
    # Files: a source per step, the screenshot step's image and one taken at the failure.
    names = sorted(p.name for p in run_dir.iterdir())
    assert names == [
        "login.png",  # the screenshot step's picture, under its name
        "step-001-source.xml",
        "step-002-source.xml",
        "step-003-source.xml",
        "step-004-source.xml",
        "step-004.png",
        TIMELINE_FILE,
    ]
    assert timeline.steps[1]["files"] == {"source": "step-002-source.xml", "screenshot": "login.png"}
    assert (run_dir / "step-004.png").read_bytes().startswith(b"\x89PNG")
    source = (run_dir / "step-001-source.xml").read_text()  # the device's own dump, byte for byte
    assert source.startswith("<?xml") and 'text="Sign in"' in source


def test_each_record_is_on_disk_before_the_next_step_starts(tmp_path: Path) -> None:
    seen: list[int] = []

    def after_write(record: StepRecord, context: TaskContext) -> None:
        # Runs right after the writer's listener, before the loop plans the next step.
        seen.append(len(read_timeline(tmp_path).steps))

    driver = SimDriver("android")
    writer = TimelineWriter(tmp_path)
    writer.start(_info(driver))
    steps = [PlannedStep("press", {"key": "home"}) for _ in range(4)]
    TaskRunner(driver, ScriptedPlanner(steps), listeners=[TimelineRecorder(writer, driver), after_write]).run(
        "g"
    )
    assert seen == [1, 2, 3, 4]
    assert not read_timeline(tmp_path).finished  # no end record until finish()


def test_a_truncated_last_line_is_left_out_and_reported(tmp_path: Path) -> None:
    _run_flow(tmp_path)
    lines = (tmp_path / TIMELINE_FILE).read_bytes().splitlines(keepends=True)
    # The process died half way through writing the fourth step's line.
    (tmp_path / TIMELINE_FILE).write_bytes(b"".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    timeline = read_timeline(tmp_path)
    assert len(timeline.steps) == 3 and timeline.truncated
    assert not timeline.finished and timeline.status == "unfinished"
    assert timeline.problems == (f"line 5 was cut off mid-write ({len(lines[4]) // 2} bytes) and is ignored",)


def test_a_corrupt_line_in_the_middle_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    _run_flow(tmp_path)
    path = tmp_path / TIMELINE_FILE
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b"{not json\n"
    path.write_bytes(b"".join(lines))
    timeline = read_timeline(tmp_path)
    assert len(timeline.steps) == 3 and timeline.finished and not timeline.truncated
    assert timeline.problems[0].startswith("line 3 is not a JSON record")


def test_a_folder_without_a_timeline_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a run folder"):
        read_timeline(tmp_path)


def test_the_raw_page_source_is_kept_when_the_scene_has_one(tmp_path: Path) -> None:
    xml = '<?xml version="1.0"?><hierarchy><node text="hi"/></hierarchy>'
    driver = FakeDriver(scenes=[dataclasses.replace(scene("hi"), source=xml)])
    writer = TimelineWriter(tmp_path)
    writer.start(_info(driver))
    TaskRunner(
        driver,
        ScriptedPlanner([PlannedStep("press", {"key": "back"})]),
        listeners=[TimelineRecorder(writer, driver)],
    ).run("g")
    assert (tmp_path / "step-001-source.xml").read_text() == xml


def test_no_failure_screenshot_after_a_device_error(tmp_path: Path) -> None:
    driver = FakeDriver(errors={"press": [DeviceTimeout("no answer"), DeviceTimeout("no answer")]})
    writer = TimelineWriter(tmp_path)
    writer.start(_info(driver))
    TaskRunner(
        driver,
        ScriptedPlanner([PlannedStep("press", {"key": "back"})]),
        listeners=[TimelineRecorder(writer, driver)],
    ).run("g")
    (step,) = read_timeline(tmp_path).steps
    assert step["status"] == "failed" and step["files"] == {}
    assert driver.count("screenshot") == 0


def test_writing_before_start_is_an_error(tmp_path: Path) -> None:
    writer = TimelineWriter(tmp_path / "never")
    with pytest.raises(ConfigError, match="not open"):
        writer.finish("failed")
    assert not (tmp_path / "never").exists()  # the constructor touched nothing


def test_new_run_dirs_never_collide(tmp_path: Path) -> None:
    made = {new_run_dir(tmp_path, "same name/../x") for _ in range(3)}
    assert len(made) == 3
    assert all(p.parent == tmp_path and p.is_dir() and "/" not in p.name for p in made)
