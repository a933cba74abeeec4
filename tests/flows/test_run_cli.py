"""`amc run` on many flows and devices: folders, tags, --env, the platform check, several --device
(shared out through the pool, or --each-device), JUnit XML a CI system reads, index.html, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.cli import run as run_module
from amc.core.errors import DeviceOffline
from amc.storage.timeline import read_timeline
from lxml import etree

from .helpers import EXAMPLES, amc, amc_command, write_flow

SCHEMA = Path(__file__).parent / "schemas" / "junit-10-facts.xsd"
HOME = "steps:\n  - press: home\n"


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _junit(path: Path) -> etree._ElementTree:
    document = etree.parse(str(path))
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(document), schema.error_log
    return document


def test_a_folder_runs_its_flows_sorted_and_reads_subflows_from_anywhere(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    (flows / "parts").mkdir(parents=True)
    write_flow(flows / "parts", "steps:\n  - press: back\n", "back.yaml")
    write_flow(flows, "name: b\nsteps:\n  - run_flow: parts/back.yaml\n", "b.yml")
    write_flow(flows, "name: a\n" + HOME, "a.yaml")
    write_flow(flows, "not a flow", "notes.txt")
    result = amc("run", flows, "--out", tmp_path / "runs", "--json")
    assert result.code == 0, result.out + result.err
    started = [e["flow"] for e in _events(result.out) if e["event"] == "flow_start"]
    assert started == ["a", "b"]  # parts/back.yaml only runs through run_flow
    index = (tmp_path / "runs" / "index.html").read_text(encoding="utf-8")
    assert index.count("<tr>") == 3 and "a.yaml" in index and "b.yml" in index


def test_tags_select_flows_and_say_which_were_left_out(tmp_path: Path) -> None:
    write_flow(tmp_path, "name: smoke-login\ntags: [smoke, login]\n" + HOME, "1.yaml")
    write_flow(tmp_path, "name: slow\ntags: [slow, login]\n" + HOME, "2.yaml")
    write_flow(tmp_path, "name: untagged\n" + HOME, "3.yaml")
    result = amc(
        "run",
        tmp_path,
        "--include-tags",
        "login",
        "--exclude-tags",
        "slow",
        "--out",
        tmp_path / "r",
        "--json",
    )
    assert result.code == 0, result.err
    assert [e["flow"] for e in _events(result.out) if e["event"] == "flow_start"] == ["smoke-login"]
    assert "2 flow(s) left out by tags: slow, untagged" in result.err
    nothing = amc("run", tmp_path, "--include-tags", "nightly", "--out", tmp_path / "r")
    assert nothing.code == 2 and "no flow left to run: the tags leave out all 3" in nothing.err


def test_env_option_wins_over_the_environment_which_wins_over_the_flow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = write_flow(
        tmp_path,
        "env: {A: flow, B: flow, C: flow}\nsteps:\n  - remember: {a: '${A}', b: '${B}', c: '${C}'}\n",
    )
    monkeypatch.setenv("A", "process")
    monkeypatch.setenv("B", "process")
    result = amc("run", flow, "--env", "A=cli", "--env", "EXTRA=x=y", "--out", tmp_path / "r")
    assert result.code == 0, result.err
    (run_dir,) = (tmp_path / "r").iterdir()
    step = read_timeline(run_dir).steps[0]
    assert step["step"]["args"]["remember"] == {"a": "cli", "b": "process", "c": "flow"}
    bad = amc("run", flow, "--env", "1A=x", "--out", tmp_path / "r")
    assert bad.code == 2 and "--env '1A=x' is not KEY=VALUE" in bad.err


def test_a_named_flow_for_another_platform_is_refused_unless_forced(tmp_path: Path) -> None:
    ios = EXAMPLES / "settings_ios.yaml"
    refused = amc("run", ios, "--device", "sim:android", "--out", tmp_path / "r")
    assert refused.code == 2
    assert "the flow says platform: ios, the device(s) are android" in refused.err
    assert "--force-platform" in refused.err and not (tmp_path / "r").exists()
    other = amc("run", ios, "--platform", "android", "--out", tmp_path / "r")
    assert other.code == 2 and "--platform asks for android" in other.err
    flow = write_flow(tmp_path, "platform: ios\n" + HOME)
    forced = amc("run", flow, "--device", "sim:android", "--force-platform", "--out", tmp_path / "r")
    assert forced.code == 0, forced.err


def test_flows_of_a_folder_for_another_platform_are_skipped_in_the_junit(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    write_flow(flows, "name: droid\nplatform: android\n" + HOME, "a.yaml")
    write_flow(flows, "name: phone\nplatform: ios\n" + HOME, "b.yaml")
    junit = tmp_path / "ci" / "junit.xml"  # its folder is made
    result = amc("run", flows, "--device", "sim:android", "--out", tmp_path / "r", "--junit", junit)
    assert result.code == 0, result.err
    assert "flow phone" in result.out and "not run on sim:android: the flow says platform: ios" in result.out
    (suite,) = _junit(junit).getroot()
    assert suite.get("name") == "sim:android" and suite.get("tests") == "2" and suite.get("skipped") == "1"
    phone = suite.find("testcase[@name='phone']")
    assert phone is not None and phone.find("skipped") is not None
    assert "platform: ios" in (phone.find("skipped").get("message") or "")


def test_several_devices_share_the_flows_out_each_flow_once(tmp_path: Path) -> None:
    for n in range(4):
        write_flow(
            tmp_path,
            f"name: f{n}\nsteps:\n  - press: home\n"
            "  - wait_for: {text: nothing, timeout: 0.3}\n    optional: true\n",
            f"f{n}.yaml",
        )
    result = amc(
        "run",
        tmp_path,
        "--device",
        "sim:android",
        "--device",
        "sim:android",
        "--out",
        tmp_path / "r",
        "--json",
    )
    assert result.code == 0, result.err
    events = _events(result.out)
    ends = [e for e in events if e["event"] == "flow_end"]
    assert sorted(e["flow"] for e in ends) == ["f0", "f1", "f2", "f3"]  # each flow once
    # Each flow has its run folder, named with its device when several devices take part.
    assert {e["device"] for e in ends} == {"sim:android", "sim:android #2"}  # both worked
    assert len({e["run_dir"] for e in ends}) == 4 and all("sim-android" in e["run_dir"] for e in ends)
    summary = events[-1]
    assert summary["flows"] == 4 and summary["passed"] == 4


class _Offline:
    """A connected driver whose phone went offline: every look fails as adb says it."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)

    def observe(self) -> Any:
        raise DeviceOffline("device offline", state="offline", hint="reconnect the cable")


def _offline_devices(monkeypatch: pytest.MonkeyPatch, offline: set[int]) -> None:
    """Connect every --device as usual; the ones numbered in ``offline`` (0 first) go offline."""
    real = run_module.connect_device
    made: list[int] = []

    def connect(spec: str, **kwargs: Any) -> Any:
        driver = real(spec, **kwargs)
        made.append(len(made))
        return _Offline(driver) if made[-1] in offline else driver

    monkeypatch.setattr(run_module, "connect_device", connect)


def _four_flows(tmp_path: Path) -> Path:
    tmp_path.mkdir()
    for n in range(4):
        write_flow(tmp_path, f"name: f{n}\nsteps:\n  - press: home\n  - press: home\n", f"f{n}.yaml")
    return tmp_path


def test_a_device_that_goes_offline_takes_no_more_flows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_devices(monkeypatch, {1})
    flows = _four_flows(tmp_path / "flows")
    args = ("--device", "sim:android", "--device", "sim:android", "--out", tmp_path / "r", "--json")
    result = amc("run", flows, *args)
    assert result.code == 3, result.err  # a device error, not a crash
    assert "Traceback" not in result.err
    ends = [e for e in _events(result.out) if e["event"] == "flow_end"]
    assert sorted(e["flow"] for e in ends) == ["f0", "f1", "f2", "f3"]  # each flow once
    failed = [e for e in ends if e["status"] != "succeeded"]
    assert [(e["device"], e["status"], e["error_kind"]) for e in failed] == [
        ("sim:android #2", "device_error", "DeviceOffline")
    ]  # one flow lost to the offline phone, the other three on the phone that works
    assert {e["device"] for e in ends if e["status"] == "succeeded"} == {"sim:android"}


def test_flows_left_with_no_device_end_as_device_errors_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_devices(monkeypatch, {0, 1})
    flows = _four_flows(tmp_path / "flows")
    junit = tmp_path / "junit.xml"
    args = ("--device", "sim:android", "--device", "sim:android", "--out", tmp_path / "r", "--json")
    result = amc("run", flows, *args, "--junit", junit)
    assert result.code == 3, result.err
    assert "Traceback" not in result.err
    ends = [e for e in _events(result.out) if e["event"] == "flow_end"]
    assert sorted(e["flow"] for e in ends) == ["f0", "f1", "f2", "f3"]
    assert all(e["status"] == "device_error" for e in ends)
    ran = [e for e in ends if e["error_kind"] == "DeviceOffline"]
    left = [e for e in ends if e["error_kind"] == "PoolExhausted"]
    assert len(ran) == 2 and len(left) == 2  # one per phone, then nothing to run on
    assert all(e["device"] == "(no device)" and e["steps"] == 0 for e in left)
    for e in left:  # which devices were retired, and why: each by its own id
        assert f"no device can take {e['flow']!r}: emulator-5554: DeviceOffline" in e["error"]
        assert "; emulator-5556: DeviceOffline" in e["error"]
        assert "device offline" in e["error"]
    cases = _junit(junit).findall(".//testcase")
    assert len(cases) == 4 and all(c.find("error") is not None for c in cases)


def test_simulated_devices_given_no_id_get_distinct_ids(tmp_path: Path) -> None:
    specs = ["sim:android", "sim:android?id=emulator-5556", "sim:android?api=31", "sim:ios", "sim+wda:ios"]
    devices = run_module._connect_all(specs, 0.0)
    try:
        assert [d.driver.device_id for d in devices] == [
            "emulator-5554",
            "emulator-5556",  # named by its spec
            "emulator-5558",  # the next serial adb would give an emulator
            "SIM-IPHONE-15",
            "SIM-IPHONE-15-2",
        ]
    finally:
        for d in devices:
            d.driver.close()


def test_each_device_runs_every_flow_on_every_device_with_one_suite_each(tmp_path: Path) -> None:
    failing = write_flow(
        tmp_path, "name: failing\nsteps:\n  - assert_visible: {text: Nowhere, timeout: 0}\n", "x.yaml"
    )
    passing = write_flow(tmp_path, "name: passing\n" + HOME, "y.yaml")
    junit = tmp_path / "junit.xml"
    result = amc(
        "run", passing, failing, "--device", "sim:android", "--device", "sim:ios", "--each-device",
        "--out", tmp_path / "r", "--junit", junit,
    )  # fmt: skip
    assert result.code == 1
    assert "[sim:ios] flow passing passed" in result.out and "[sim:android] flow failing FAILED" in result.out
    root = _junit(junit).getroot()
    assert root.get("tests") == "4" and root.get("failures") == "2"
    assert [s.get("name") for s in root] == ["sim:android", "sim:ios"]
    for suite in root:
        props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        assert props["device"] == suite.get("name") and props["runs"] == str(tmp_path / "r")
        assert Path(props["run_folder:passing"]).parent == tmp_path / "r"
        assert (Path(props["run_folder:failing"]) / "timeline.jsonl").is_file()
        failure = suite.find("testcase[@name='failing']/failure")
        assert failure is not None and failure.get("type") == "AssertionFailed"
        message = failure.get("message") or ""
        assert message.startswith(
            f"step 1 assert_visible at {failing}:3:5: AssertionFailed: expected text='Nowhere'"
        )
        out = suite.find("testcase[@name='passing']/system-out").text or ""
        assert "run folder: " in out and "[[ATTACHMENT|" in out
        assert float(suite.get("time") or "x") >= 0 and suite.get("timestamp")
    index = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert index.count('<span class="badge failed">') == 2 and "step 1 assert_visible" in index


def test_the_schema_refuses_what_ci_tools_would_not_read(tmp_path: Path) -> None:
    # The check above can fail: a testcase with properties, or a testsuite without its counts, is refused.
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    bad_case = (
        b'<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
        b'<testcase name="x"><properties/></testcase></testsuite></testsuites>'
    )
    no_counts = b'<testsuites><testsuite name="a"><testcase name="x"/></testsuite></testsuites>'
    assert not schema.validate(etree.fromstring(bad_case))
    assert not schema.validate(etree.fromstring(no_counts))


def test_ctrl_c_exits_130_and_the_run_folder_keeps_every_executed_step(tmp_path: Path) -> None:
    steps = "".join("  - wait_for: {text: never, timeout: 0.2}\n    optional: true\n" for _ in range(40))
    flow = write_flow(tmp_path, "name: long\nsteps:\n" + steps)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [*amc_command(), "run", str(flow), "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    seen = 0
    deadline = time.monotonic() + 30
    while seen < 3 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        seen += line.startswith("[")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    (run_dir,) = (tmp_path / "r").iterdir()
    timeline = read_timeline(run_dir)
    assert timeline.status == "interrupted" and 3 <= len(timeline.steps) < 40
    assert (run_dir / "report.html").is_file()


def test_version_and_doctor_for_one_platform(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    assert amc("--version").code == 0
    assert capsys.readouterr().out.strip() == f"amc {metadata.version('agentic-mobile-control')}"
    result = amc("doctor", "--platform", "ios", "--json")
    names = [check["name"] for check in json.loads(result.out)]
    assert names == ["WebDriverAgent", "Appium"]
