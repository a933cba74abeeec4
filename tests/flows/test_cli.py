"""`amc run / report / devices / inspect`: what a user sees, and the exit codes 0, 1, 2, 3."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.connect.simulated import SimDriver
from amc.core.errors import DeviceOffline, DriverUnavailable
from amc.drivers.base import DeviceInfo
from amc.storage.timeline import read_timeline

from tests.unit.fakes import FakeDriver, scene

from .helpers import EXAMPLES, amc, amc_command, write_flow


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _runs(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []


def test_run_prints_a_live_line_per_step_and_a_summary(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "settings_android.yaml", "--out", tmp_path)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == f"flow settings-android ({EXAMPLES / 'settings_android.yaml'}): 16 steps"
    assert (
        lines[1]
        == "device: sim:android = android emulator-5554 via sim (the simulated device: no device is attached)"
    )
    step = next(line for line in lines if line.startswith("[ 4/16]"))
    assert step.split()[:6] == ["[", "4/16]", "tap", "text='Network", "&", "internet'"]
    assert " passed " in step and " ms  app=com.android.settings page=" in step
    assert "flow settings-android passed: 16 of 16 steps run (16 passed, 0 failed, 0 skipped)" in result.out
    assert lines[-1] == "1 flow(s): 1 passed, 0 did not (exit code 0)"
    (run_dir,) = _runs(tmp_path)
    assert f"report:   {run_dir / 'report.html'}" in result.out
    assert read_timeline(run_dir).status == "succeeded"
    assert (run_dir / "report.html").is_file()


def test_a_failing_flow_exits_1_with_the_failure_shown(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login_fails.yaml", "--out", tmp_path)
    assert result.code == 1
    assert "[5/6] assert_visible" in result.out and " failed " in result.out
    assert "AssertionFailed: expected text='Signed in as qa' on screen" in result.out
    assert "'Sign-in failed'" in result.out  # what the screen showed instead
    assert "flow demo-login-fails FAILED: 5 of 6 steps run (4 passed, 1 failed, 0 skipped)" in result.out
    (run_dir,) = _runs(tmp_path)
    timeline = read_timeline(run_dir)
    assert timeline.status == "failed" and len(timeline.steps) == 5
    assert timeline.steps[-1]["files"]["screenshot"] == "step-005.png"


def test_the_skipped_launch_shows_as_skipped_with_its_reason(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", tmp_path)
    assert result.code == 0, result.out + result.err
    line = next(line for line in result.out.splitlines() if line.startswith("[10/13]"))
    assert line.split()[1] == "launch_app" and " skipped " in line
    assert "com.example.amc.demo is already in fr" in line
    assert "(12 passed, 0 failed, 1 skipped)" in result.out


def test_several_flows_run_in_order_each_in_its_own_run_folder(tmp_path: Path) -> None:
    result = amc(
        "run",
        EXAMPLES / "settings_ios.yaml",
        EXAMPLES / "demo_login_fails.yaml",
        EXAMPLES / "demo_login.yaml",
        "--out",
        tmp_path,
    )
    assert result.code == 1
    assert "device: sim:ios = ios" in result.out  # settings_ios says platform: ios
    assert "3 flow(s): 2 passed, 1 did not (exit code 1)" in result.out
    assert sorted(read_timeline(d).status for d in _runs(tmp_path)) == ["failed", "succeeded", "succeeded"]


def test_platform_option_picks_the_simulated_iphone(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login.yaml", "--platform", "ios", "--out", tmp_path)
    assert result.code == 0
    assert "device: sim:ios = ios SIM-IPHONE-15 via sim" in result.out


def test_json_lines_describe_every_event(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login_fails.yaml", "--out", tmp_path, "--json")
    assert result.code == 1
    events = [json.loads(line) for line in result.out.splitlines()]
    assert [e["event"] for e in events] == ["flow_start"] + ["step"] * 5 + ["flow_end", "summary"]
    assert events[0]["device"]["spec"] == "sim:android" and events[0]["steps"] == 6
    assert events[5]["status"] == "failed" and events[5]["error_kind"] == "AssertionFailed"
    assert events[6]["status"] == "failed" and Path(events[6]["report"]).is_file()
    assert events[-1] == {
        "event": "summary",
        "flows": 1,
        "passed": 0,
        "failed": 1,
        "not_run": 0,
        "exit_code": 1,
    }


def test_the_one_attached_device_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    attached = [DeviceInfo("sim:ios", "ios", "sim", description="test iPhone")]
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: attached)
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", tmp_path)
    assert result.code == 0
    assert (
        "device: sim:ios = ios SIM-IPHONE-15 via sim (the one attached device (ios via sim: test iPhone))"
        in result.out
    )


def test_with_several_attached_devices_the_simulated_one_is_used_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attached = [DeviceInfo("android:A", "android", "u2"), DeviceInfo("android:B", "android", "u2")]
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: attached)
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", tmp_path)
    assert result.code == 0
    assert "2 devices are attached (android:A, android:B); pass --device to use one of them" in result.out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run"], "the following arguments are required: PATH"),
        (["run", "x.yaml", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["run", "x.yaml", "--sim-latency", "-1"], "must be between 0 and 10 seconds"),
        (["run", "x.yaml", "--platform", "windows"], "invalid choice: 'windows'"),
        (["inspect", "--format", "yaml"], "invalid choice: 'yaml'"),
        (["report"], "the following arguments are required: RUN_DIR"),
        (["launch"], "invalid choice: 'launch'"),
    ],
)
def test_bad_arguments_exit_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = amc(*argv)
    assert result.code == 2
    assert message in capsys.readouterr().err


def test_a_bad_flow_exits_2_and_runs_nothing(tmp_path: Path) -> None:
    good = EXAMPLES / "settings_android.yaml"
    bad = write_flow(tmp_path, "steps:\n  - tap: OK\n  - tapp: OK\n  - press: bakc\n", "bad.yaml")
    out = tmp_path / "runs"
    result = amc("run", good, bad, "--out", out)
    assert result.code == 2
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(
        f"amc: bad flow: {bad}:3:5: unknown command 'tapp' (hint: did you mean 'tap'? "
    )
    assert lines[1].startswith(f"amc: bad flow: {bad}:4:12: unknown key 'bakc' (hint: did you mean 'back'? ")
    assert lines[2] == "amc: nothing was run"
    assert not out.exists()  # not even the run folder of the good flow


def test_a_flow_without_an_app_for_the_devices_platform_exits_2(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, "steps:\n  - launch_app: {android: com.android.settings}\n")
    result = amc("run", flow, "--device", "sim:ios", "--out", tmp_path / "runs")
    assert result.code == 2
    assert f"{flow}:2:5: launch_app names no app for ios" in result.err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--device", "nonsense"], "bad device spec 'nonsense'"),
        (["--device", "sim:windows"], "the simulated device is 'sim:android' or 'sim:ios'"),
        (["--device", "appium:http://127.0.0.1:1", "--sim-latency", "0.1"], "--sim-latency only applies"),
    ],
)
def test_bad_device_specs_exit_2(argv: list[str], message: str, tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login.yaml", *argv, "--out", tmp_path / "runs")
    assert result.code == 2 and message in result.err
    assert not (tmp_path / "runs").exists()


def test_missing_flow_file_and_out_being_a_file_exit_2(tmp_path: Path) -> None:
    missing = amc("run", tmp_path / "nope.yaml", "--out", tmp_path / "runs")
    assert missing.code == 2 and "cannot read the flow file" in missing.err
    a_file = tmp_path / "file"
    a_file.write_text("x")
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", a_file)
    assert result.code == 2 and "is a file, not a folder" in result.err


def test_a_device_that_cannot_be_reached_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(spec: str, **options: object) -> object:
        raise DriverUnavailable(f"nothing answers for {spec}", hint="is the phone plugged in?")

    monkeypatch.setattr(connect_module, "connect", unreachable)
    result = amc(
        "run", EXAMPLES / "demo_login.yaml", "--device", "android:SERIAL1", "--out", tmp_path / "runs"
    )
    assert result.code == 3
    assert (
        result.err
        == "amc: device error: nothing answers for android:SERIAL1 (hint: is the phone plugged in?)\n"
    )
    assert not (tmp_path / "runs").exists()


class _DyingDriver(SimDriver):
    def tap(self, x: int, y: int) -> None:
        raise DeviceOffline("the phone went offline", state="offline")


def test_a_device_error_during_the_run_exits_3_and_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: _DyingDriver("android"))
    result = amc("run", EXAMPLES / "settings_android.yaml", "--device", "android:SERIAL1", "--out", tmp_path)
    assert result.code == 3
    assert "DeviceOffline: the phone went offline" in result.out
    assert "flow settings-android DEVICE_ERROR" in result.out
    (run_dir,) = _runs(tmp_path)
    timeline = read_timeline(run_dir)
    assert timeline.status == "device_error" and timeline.steps[-1]["action"] == "tap"


def test_report_renders_a_run_folder_again(tmp_path: Path) -> None:
    assert amc("run", EXAMPLES / "demo_login_fails.yaml", "--out", tmp_path).code == 1
    (run_dir,) = _runs(tmp_path)
    (run_dir / "report.html").unlink()
    result = amc("report", run_dir)
    assert result.code == 0
    assert result.out == f"report: {run_dir / 'report.html'}\n"
    assert result.err == "run failed, 5 step(s) recorded\n"
    assert (run_dir / "report.html").is_file()
    other = amc("report", run_dir, "--out", tmp_path / "elsewhere.html")
    assert other.code == 0 and (tmp_path / "elsewhere.html").is_file()


def test_report_of_a_folder_that_is_not_a_run_exits_2(tmp_path: Path) -> None:
    result = amc("report", tmp_path)
    assert result.code == 2 and "is not a run folder" in result.err


def test_devices_table_and_json(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [
        DeviceInfo("android:emulator-5554", "android", "u2", "device", "sdk_gphone64"),
        DeviceInfo("android:R58M", "android", "u2", "unauthorized"),
    ]
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: found)
    table = amc("devices")
    assert table.code == 0
    assert table.out.splitlines() == [
        "SPEC                   PLATFORM  BACKEND  STATE         DESCRIPTION",
        "android:emulator-5554  android   u2       device        sdk_gphone64",
        "android:R58M           android   u2       unauthorized  ",
    ]
    assert "android:R58M is unauthorized; run `amc doctor`" in table.err
    listed = amc("devices", "--json")
    assert json.loads(listed.out)[0] == found[0].to_dict()


def test_devices_without_any_device_points_at_the_simulated_ones() -> None:
    result = amc("devices")
    assert result.code == 0 and "sim:android, sim:ios" in result.out


def test_inspect_tree_and_json_on_the_simulated_device() -> None:
    tree = amc("inspect", "--device", "sim:android")
    assert tree.code == 0
    assert tree.out.startswith("android emulator-5554  app=com.android.launcher3")
    assert tree.err == "device: sim:android (as given with --device)\n"
    as_json = amc("inspect", "--platform", "ios", "--format", "json")
    assert as_json.code == 0 and as_json.err == "device: sim:ios (no device is attached)\n"
    data = json.loads(as_json.out)
    assert data["platform"] == "ios" and "root" in data


def test_inspect_xml_prints_the_raw_source_or_says_there_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    xml = '<hierarchy><node text="Hi"/></hierarchy>'
    with_source = FakeDriver(scenes=[dataclasses.replace(scene("Hi"), source=xml)])
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: with_source)
    result = amc("inspect", "--device", "android:X", "--format", "xml")
    assert (result.code, result.out) == (0, xml + "\n")
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: FakeDriver())
    none = amc("inspect", "--device", "android:X", "--format", "xml")
    assert none.code == 2 and "keeps no raw page source" in none.err and "--format json" in none.err


def test_the_installed_command_runs_the_readme_example_from_any_folder(tmp_path: Path) -> None:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": "1", "ANDROID_ADB_SERVER_HOST": "127.0.0.1"}
    done = subprocess.run(
        [*amc_command(), "run", str(EXAMPLES / "settings_android.yaml")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "flow settings-android passed" in done.stdout
    (run_dir,) = _runs(tmp_path / "runs")  # the default --out is ./runs
    assert read_timeline(run_dir).status == "succeeded"
    bad = subprocess.run(
        [*amc_command(), "run", str(tmp_path / "missing.yaml")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "cannot read the flow file" in bad.stderr


def test_an_unauthorized_phone_is_not_used_and_the_reason_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        connect_module,
        "discover",
        lambda environ=None: [DeviceInfo("android:R58M", "android", "u2", "unauthorized")],
    )
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", tmp_path)
    assert result.code == 0
    assert (
        "(the simulated device: no device is attached; android:R58M is unauthorized (see `amc doctor`))"
        in result.out
    )
