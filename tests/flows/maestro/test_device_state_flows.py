"""Whole Maestro flows using the device-state commands, run end to end through `amc run` on the
simulated device and over the faces: what the phone ends up as, what the run folder and report keep,
Maestro's pass and fail of `assertScreenshot`, `travel` at Maestro's pace (and stopped by Ctrl-C),
and `amc check --device` refusing before a run what a backend cannot do."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from amc.actions import ACTIONS
from amc.core.errors import Interrupted
from amc.drivers.connect import connect
from amc.runtime.cancel import Cancel
from amc.sim.device import INSTANT, SimDevice
from amc.storage.timeline import read_timeline
from PIL import Image

from ..helpers import amc, write_flow

HEADER = "appId: com.example.amc.demo\n---\n- launchApp\n"
STATE_FLOW = (
    HEADER
    + """\
- startRecording: sign-in
- setOrientation: landscapeLeft
- assertVisible: {id: ".*username"}
- setOrientation: PORTRAIT
- setDarkMode: enabled
- assertDarkMode
- toggleDarkMode
- assertLightMode
- addMedia:
    - avatar.png
- takeScreenshot:
    path: field
    cropOn:
      id: ".*username"
- stopRecording
"""
)


def _run(flow: Path, spec: str, out: Path) -> tuple[int, str, Path]:
    result = amc("run", flow, "--device", spec, "--out", out)
    folders = sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []
    return result.code, result.out + result.err, folders[-1] if folders else out


def _files(run: Path, action: str, key: str) -> list[Path]:
    steps = read_timeline(run).steps
    return [run / s["files"][key] for s in steps if s.get("action") == action and key in s.get("files", {})]


@pytest.mark.parametrize("spec", ["sim:android", "sim:ios", "sim+adb:android", "sim+appium:ios"])
def test_a_flow_of_device_state_commands_runs_to_its_end(tmp_path: Path, spec: str) -> None:
    Image.new("RGB", (16, 16), (10, 120, 200)).save(tmp_path / "avatar.png")
    flow = write_flow(tmp_path, STATE_FLOW)
    code, said, run = _run(flow, spec + "?timing=instant", tmp_path / "runs")
    assert code == 0, said
    assert "12 of 12 steps run (12 passed" in said
    (video,) = _files(run, "stop_recording", "recording")
    movie = Image.open(video)
    assert video.suffix == ".png" and movie.is_animated and movie.n_frames >= 3
    assert video.name in (run / "report.html").read_text(encoding="utf-8")  # the report shows it
    (crop,) = _files(run, "screenshot", "screenshot")
    cropped = Image.open(crop)
    assert cropped.height < 400 < cropped.width  # the username field (a wide, low box), not the screen


def _reference(tmp_path: Path, spec: str) -> Path:
    """The username field's picture, as a first run of the flow keeps it."""
    make = HEADER + "- takeScreenshot: {path: ref, cropOn: {id: '.*username'}}\n"
    flow = write_flow(tmp_path, make, "make.yaml")
    code, said, run = _run(flow, spec, tmp_path / "first")
    assert code == 0, said
    (picture,) = _files(run, "screenshot", "screenshot")
    return Path(shutil.copy(picture, tmp_path / "reference.png"))


@pytest.mark.parametrize("spec", ["sim:android?timing=instant", "sim+wda:ios?timing=instant"])
def test_assert_screenshot_passes_on_the_same_picture_and_fails_past_its_threshold(
    tmp_path: Path, spec: str
) -> None:
    reference = _reference(tmp_path, spec)
    check = HEADER + "- assertScreenshot: {path: reference, cropOn: {id: '.*username'}}\n"
    code, said, _ = _run(write_flow(tmp_path, check), spec, tmp_path / "same")
    assert code == 0, said
    picture = Image.open(reference).convert("RGB")
    half = picture.copy()
    half.paste((255, 0, 255), (0, 0, picture.width, picture.height // 2))  # half the pixels differ
    half.save(reference)
    code, said, _ = _run(write_flow(tmp_path, check), spec, tmp_path / "half")
    assert code == 1 and "Comparison error: reference.png - threshold not met, current: " in said
    lenient = HEADER + "- assertScreenshot:\n    path: reference.png\n    thresholdPercentage: 40\n"
    lenient += "    cropOn: {id: '.*username'}\n"
    code, said, _ = _run(write_flow(tmp_path, lenient), spec, tmp_path / "lenient")
    assert code == 0, said
    Image.new("RGB", (5, 5)).save(reference)
    code, said, _ = _run(write_flow(tmp_path, check), spec, tmp_path / "size")
    assert code == 1 and "Screenshot size mismatch: expected 5x5" in said


class _Recorder:
    """A driver's set_location calls, with when each came."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float, float]] = []

    def set_location(self, latitude: float, longitude: float) -> None:
        self.calls.append((time.monotonic(), latitude, longitude))


class _Screen:
    def __init__(self, cancel: Cancel) -> None:
        self.cancel = cancel

    def pause(self, seconds: float) -> None:
        self.cancel.pause(seconds, "while travelling")


def _travel(args: Mapping[str, Any], cancel: Cancel) -> _Recorder:
    driver = _Recorder()
    action = ACTIONS["travel"]
    action.handler(driver, action.validate(args), _Screen(cancel))  # type: ignore[arg-type]
    return driver


def test_travel_walks_each_leg_in_fifty_positions_at_maestros_pace() -> None:
    # Maestro's 0.1 degree leg is 194 m by its own rule (getDistanceInMeters); at 485 m/s, 0.4 s a leg
    driver = _travel({"points": ["0.0,0.0", "0.1,0.0", "0.1,0.1"], "speed": 485}, Cancel())
    assert len(driver.calls) == 1 + 2 * 50
    assert driver.calls[0][1:] == (0.0, 0.0) and driver.calls[50][1:] == pytest.approx((0.1, 0.0))
    assert driver.calls[-1][1:] == pytest.approx((0.1, 0.1))
    took = driver.calls[-1][0] - driver.calls[0][0]
    assert 0.7 <= took <= 2.0  # two legs of 50 pauses of 8 ms


def test_travel_stops_at_once_when_the_run_is_interrupted() -> None:
    cancel = Cancel()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Interrupted, match="while travelling"):
        _travel({"points": ["0.0,0.0", "5.0,0.0"], "speed": 4}, cancel)  # Maestro: ~40 min
    assert time.monotonic() - started < 2


def test_a_travel_longer_than_an_hour_is_refused_before_it_runs(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, HEADER + "- travel: {points: ['0.0,0.0', '80.0,0.0'], speed: 1}\n")
    result = amc("check", flow)
    assert result.code == 2 and "travel would take" in result.out


REFUSED = (
    HEADER
    + """\
- setAirplaneMode: enabled
- toggleAirplaneMode
- startRecording: x
- stopRecording
- addMedia: [avatar.png]
- travel: {points: ["0.0,0.0", "0.1,0.0"]}
- setOrientation: LANDSCAPE_LEFT
- setDarkMode: enabled
"""
)


@pytest.mark.parametrize(
    ("spec", "lines"),
    [
        ("sim+wda:ios", {4, 5, 6, 7, 8}),  # airplane mode, recording, media
        ("sim:ios", {4, 5}),  # airplane mode
        ("sim+appium:ios", {4, 5}),
        ("sim+adb:android", {9}),  # travel: uiautomator2 sets no position
        ("sim:android", set()),
        ("sim+appium:android", set()),
    ],
)
def test_amc_check_refuses_before_a_run_what_the_backend_cannot_do(
    tmp_path: Path, spec: str, lines: set[int]
) -> None:
    Image.new("RGB", (4, 4)).save(tmp_path / "avatar.png")
    flow = write_flow(tmp_path, REFUSED)
    result = amc("check", flow, "--device", spec)
    refused = {int(line.split(":")[1]) for line in result.out.splitlines() if "cannot run on" in line}
    assert refused == lines, result.out
    assert result.code == (2 if lines else 0)
    if lines:
        run = amc("run", flow, "--device", spec + "?timing=instant", "--out", tmp_path / "runs")
        assert run.code == 2 and not (tmp_path / "runs").exists()  # nothing ran


def test_the_projects_own_flow_format_writes_them_too(tmp_path: Path) -> None:
    Image.new("RGB", (16, 16), (10, 120, 200)).save(tmp_path / "avatar.png")
    flow = write_flow(
        tmp_path,
        f"""
        name: device state
        steps:
          - launch_app: com.example.amc.demo
          - set_orientation: landscape_right
          - set_airplane_mode: enabled
          - toggle_airplane_mode
          - set_dark_mode: enabled
          - assert_dark_mode
          - add_media: [{tmp_path / "avatar.png"}]
          - travel: {{points: ["38.7223,-9.1393", "38.7250,-9.1500"], speed: 100000}}
          - screenshot: {{name: field, crop_on: {{id: username}}}}
          - set_orientation: portrait
        """,
    )
    code, said, run = _run(flow, "sim:android?timing=instant", tmp_path / "runs")
    assert code == 0, said
    assert "10 of 10 steps run (10 passed" in said
    (crop,) = _files(run, "screenshot", "screenshot")
    assert Image.open(crop).height < 400


@pytest.mark.parametrize(
    "spec", ["sim:android", "sim:ios", "sim+wda:ios", "sim+appium:android", "sim+appium:ios"]
)
def test_travel_moves_the_device_to_its_last_point_over_every_backend_that_sets_a_position(spec: str) -> None:
    platform = "ios" if spec.endswith("ios") else "android"
    if spec.startswith("sim:"):
        driver = connect(spec + "?timing=instant")
        device = driver.device  # type: ignore[attr-defined]
    else:
        device = SimDevice(platform, timing=INSTANT)
        driver = connect(spec, device=device)
    seen: list[tuple[float, float] | None] = []
    real = device.set_location

    def spy(latitude: float, longitude: float) -> None:
        real(latitude, longitude)
        seen.append(device.location)

    device.set_location = spy  # type: ignore[method-assign]
    try:
        action = ACTIONS["travel"]
        args = action.validate({"points": ["38.7223,-9.1393", "38.7250,-9.1500"], "speed": 100000})
        assert action.handler(driver, args, _Screen(Cancel())) == {"points": 2, "speed": 100000}
    finally:
        driver.close()
    assert len(seen) == 51 and seen[0] == (38.7223, -9.1393)
    assert seen[-1] == pytest.approx((38.7250, -9.1500)) and device.location == pytest.approx((38.725, -9.15))


def test_a_reference_that_is_no_picture_fails_the_step_saying_so(tmp_path: Path) -> None:
    (tmp_path / "reference.png").write_bytes(b"not a picture at all")
    flow = write_flow(tmp_path, HEADER + "- assertScreenshot: reference.png\n")
    code, said, _ = _run(flow, "sim:android?timing=instant", tmp_path / "runs")
    assert code == 1 and "the reference" in said and "is not a picture Pillow can read" in said
    assert "AssertionFailed" in said
