"""``amc test``: Maestro's ``maestro test`` command line run whole, as a CI runs it, asserting what
the CI sees: the exit code, Maestro's JUnit and HTML files, its debug folder, the run folders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.cli.maestro_options import OPTIONS, hoist, markdown_table
from lxml import etree

from ..helpers import REPO, amc, running, write_flow

HEADER = "appId: com.example.amc.demo\n"
PASSES = HEADER + "name: signs in\ntags: [smoke]\n---\n- launchApp\n- assertVisible: Sign in\n"
FAILS = (
    HEADER + "name: finds nothing\ntags: [smoke, wip]\n---\n- launchApp\n"
    "- extendedWaitUntil:\n    visible: No such text\n    timeout: 300\n"
)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _flows(tmp_path: Path, *texts: str) -> Path:
    folder = tmp_path / "flows"
    folder.mkdir(exist_ok=True)
    for n, text in enumerate(texts):
        write_flow(folder, text, f"{n}.yaml")
    return folder


def test_junit_report_is_maestros_shape_and_a_failed_flow_exits_1(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES, FAILS)
    result = amc("test", folder, "--format", "JUNIT", "--test-suite-name", "PR gate")
    assert result.code == 1, result.err
    root = etree.parse(str(tmp_path / "report.xml")).getroot()  # Maestro's default: report.xml
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "PR gate" and suite.get("device") == "emulator-5554"
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["signs in"].get("status") == "SUCCESS" and cases["signs in"].find("failure") is None
    failed = cases["finds nothing"]
    assert failed.get("status") == "ERROR" and failed.get("id") == failed.get("classname") == "finds nothing"
    assert "No such text" in (failed.findtext("failure") or "")
    assert (tmp_path / "runs" / "junit-amc.xml").is_file()  # amc's own, richer JUnit beside the runs


def test_all_passing_exits_0_and_output_names_the_report(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES)
    result = amc("test", folder, "--format", "junit", "--output", "out/maestro.xml", "--exclude-tags", "wip")
    assert result.code == 0, result.err
    assert etree.parse(str(tmp_path / "out" / "maestro.xml")).find(".//testcase").get("status") == "SUCCESS"
    assert not (tmp_path / "report.xml").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--host", "10.0.0.2"], "--host has no meaning for amc test"),
        (["-p", "web"], "-p web: amc drives no browser"),
        (["--shard-split", "2", "--shard-all", "2"], "--shard-split and --shard-all are mutually exclusive"),
        (["--device", "emulator-5570"], "Device emulator-5570 was requested, but it is not connected."),
        (["--config", "nope.yaml"], "The config file"),
        (["--screen-size", "big"], "Invalid screen size format"),
        (["-c", "--format", "junit"], "Continuous mode is not supported"),
        (["--device", "sim:android,sim:ios", "--shard-split", "3"], "Not enough devices connected (2)"),
    ],
)
def test_a_refused_or_wrong_option_exits_2_saying_why_and_runs_nothing(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    folder = _flows(tmp_path, PASSES)
    result = amc("test", folder, *argv)
    assert result.code == 2, result.out + result.err
    assert said in result.err and "Traceback" not in result.err
    assert not (tmp_path / "runs").exists()


def test_an_unknown_option_or_flow_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _flows(tmp_path, PASSES)
    assert amc("test", folder, "--no-such-option").code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    missing = amc("test", tmp_path / "missing.yaml")
    assert missing.code == 2 and "cannot read the flow file" in missing.err


def test_accepted_options_say_they_do_nothing_and_the_api_key_is_hidden(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES)
    result = amc(
        "test", folder, "--headless", "--no-reinstall-driver", "--analyze", "--api-key", "sk-abcdef123456",
        "--no-ansi", "--apple-team-id", "ABCDE12345",
    )  # fmt: skip
    assert result.code == 0, result.err
    for name in (
        "--headless",
        "--reinstall-driver",
        "--analyze",
        "--api-key",
        "--no-ansi",
        "--apple-team-id",
    ):
        assert f"amc: note: {name} is accepted and does nothing here" in result.err
    assert "sk-abcdef123456" not in result.out + result.err


def test_maestros_global_options_before_test_and_paths_anywhere(tmp_path: Path) -> None:
    write_flow(tmp_path, PASSES, "a.yaml")
    write_flow(tmp_path, PASSES.replace("signs in", "again"), "b.yaml")
    assert hoist(["--device", "X", "test", "a.yaml", "--format", "junit", "b.yaml"]) == [
        "test", "--device", "X", "--format", "junit", "a.yaml", "b.yaml",
    ]  # fmt: skip
    result = amc("--verbose", "--device", "sim:ios", "test", "a.yaml", "--format", "junit", "b.yaml")
    assert result.code == 0, result.err
    suite = etree.parse(str(tmp_path / "report.xml")).find("testsuite")
    assert suite.get("device") == "SIM-IPHONE-15" and suite.get("tests") == "2"


def test_an_attached_devices_id_is_its_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from amc.drivers.base import DeviceInfo

    attached = [DeviceInfo("android:192.168.1.5:5555", "android", "u2", description="Pixel 8")]
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: attached)
    asked: list[str] = []

    def connect(spec: str, **options: object) -> object:
        asked.append(spec)
        raise connect_module.ConfigError("stop here: no phone in a unit test")

    monkeypatch.setattr(connect_module, "connect", connect)
    result = amc("test", _flows(tmp_path, PASSES), "--device", "192.168.1.5:5555")
    assert "--device 192.168.1.5:5555 is the attached android:192.168.1.5:5555" in result.err
    assert asked == ["android:192.168.1.5:5555"] and result.code == 2


def test_the_simulated_devices_own_id_names_it_and_platform_picks_it(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES)
    by_id = amc("test", folder, "--udid", "SIM-IPHONE-15", "--format", "junit")
    assert by_id.code == 0 and "--device SIM-IPHONE-15 is the simulated ios device's id" in by_id.err
    by_platform = amc("test", folder, "-p", "iOS", "--format", "junit", "--output", "p.xml")
    assert by_platform.code == 0, by_platform.err
    assert etree.parse(str(tmp_path / "p.xml")).find("testsuite").get("device") == "SIM-IPHONE-15"


def test_shard_split_shares_flows_out_and_shard_all_runs_each_everywhere(tmp_path: Path) -> None:
    folder = _flows(
        tmp_path, PASSES, PASSES.replace("signs in", "second"), PASSES.replace("signs in", "third")
    )
    split = amc("test", folder, "--shard-split", "2", "--format", "junit", "--output", "split.xml")
    assert split.code == 0, split.err
    suites = etree.parse(str(tmp_path / "split.xml")).findall("testsuite")
    assert sorted(s.get("device") for s in suites) == ["emulator-5554", "emulator-5556"]
    assert sum(int(s.get("tests")) for s in suites) == 3
    every = amc("test", folder, "--shard-all", "2", "--format", "junit", "--output", "all.xml")
    assert every.code == 0, every.err
    assert [s.get("tests") for s in etree.parse(str(tmp_path / "all.xml")).findall("testsuite")] == ["3", "3"]
    legacy = amc("test", folder, "-s", "2", "--format", "junit", "--output", "legacy.xml")
    assert legacy.code == 0 and "--shards option is deprecated" in legacy.err


def test_debug_output_is_maestros_folder_layout(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES, FAILS)
    result = amc("test", folder, "--debug-output", "dbg")
    assert result.code == 1
    (dated,) = (tmp_path / "dbg" / ".maestro" / "tests").iterdir()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_\d{6}", dated.name)
    names = sorted(p.name for p in dated.iterdir())
    assert "maestro.log" in names
    assert "commands-(signs in).json" in names and "commands-(finds nothing).json" in names
    assert any(re.fullmatch(r"screenshot-❌-\d+-\(finds nothing\)\.png", n) for n in names), names
    commands = json.loads((dated / "commands-(finds nothing).json").read_text(encoding="utf-8"))
    assert [c["metadata"]["status"] for c in commands] == ["COMPLETED", "FAILED"]
    assert "No such text" in commands[1]["metadata"]["error"]["message"]
    assert list(commands[0]["command"]) == ["launch_app"]
    assert "finds nothing" in (dated / "maestro.log").read_text(encoding="utf-8")
    assert f"==== Debug output (logs & screenshots) ====\n{dated}" in result.err


def test_flattened_debug_output_and_the_home_default(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES)
    flat = amc("test", folder, "--debug-output", "flat", "--flatten-debug-output")
    assert flat.code == 0
    assert (tmp_path / "flat" / "maestro.log").is_file() and (
        tmp_path / "flat" / "commands-(signs in).json"
    ).is_file()
    assert amc("test", folder).code == 0  # no --debug-output: ~/.maestro/tests/<date_time>/, as Maestro
    assert len(list((tmp_path / "home" / ".maestro" / "tests").glob("*/maestro.log"))) == 1


def test_test_output_dir_and_config_choose_where_and_what(tmp_path: Path) -> None:
    space = tmp_path / "space"
    space.mkdir()
    write_flow(space, PASSES, "login.yaml")
    write_flow(space, FAILS, "wip.yaml")
    write_flow(tmp_path, 'flows:\n  - "login.yaml"\n', "ci-config.yaml")
    result = amc("test", space, "--config", "ci-config.yaml", "--test-output-dir", "artifacts")
    assert result.code == 0, result.out + result.err
    assert "1 flow(s): 1 passed" in result.out
    (run_dir,) = [p for p in (tmp_path / "artifacts").iterdir() if p.is_dir()]
    assert (run_dir / "timeline.jsonl").read_text(encoding="utf-8").count('"flow":"signs in"') == 1
    assert (tmp_path / "artifacts" / "junit-amc.xml").is_file()


def test_env_reaches_the_flows(tmp_path: Path) -> None:
    write_flow(tmp_path, HEADER + "---\n- launchApp\n- assertVisible: ${WANT}\n", "env.yaml")
    assert amc("test", "env.yaml", "-e", "WANT=Sign in").code == 0
    assert amc("test", "env.yaml", "--env=WANT=Nowhere to be seen").code == 1


def test_html_report_lists_every_flow_and_links_its_report_with_the_filmstrip(tmp_path: Path) -> None:
    folder = _flows(tmp_path, PASSES, FAILS)
    result = amc("test", folder, "--format", "html", "--screenshots", "always")
    assert result.code == 1
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Flow Execution Summary" in page and "Test Result: FAILED" in page
    assert "signs in : SUCCESS" in page and "finds nothing : ERROR" in page
    links = re.findall(r'href="([^"]+/report\.html)"', page)
    assert len(links) == 2
    run_page = (tmp_path / links[0]).read_text(encoding="utf-8")
    strip = run_page.split('<div class="filmstrip">', 1)[1].split("</div>", 1)[0]
    frames = re.findall(r'<a href="#step-(\d+)"><img src="(step-\d+\.png)"', strip)
    assert [n for n, _ in frames] == ["1", "2"]
    assert all((tmp_path / links[0]).parent.joinpath(f).is_file() for _, f in frames)


def test_continuous_runs_again_when_a_flow_changes_and_ctrl_c_ends_it_with_130(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, PASSES, "watched.yaml")
    env = {"HOME": str(tmp_path / "home"), "AMC_SIM_TIMING": "instant"}
    with running("test", "-c", flow, "--test-output-dir", tmp_path / "runs", env=env) as proc:
        proc.wait_until(lambda p: "waiting for flows to change" in p.err, "the first run to end")
        assert proc.out.count("flow signs in passed") == 1
        flow.write_text(PASSES.replace("signs in", "edited"), encoding="utf-8")
        proc.wait_until(lambda p: "flow edited passed" in p.out, "a second run of the changed flow")
        proc.wait_until(lambda p: p.err.count("waiting for flows to change") == 2, "the second wait")
        proc.interrupt()
        assert proc.finish() == 130
    assert "a flow file changed: running again" in proc.err


def test_docs_carry_the_option_table_from_the_code() -> None:
    docs = (REPO / "docs" / "maestro.md").read_text(encoding="utf-8")
    assert markdown_table() in docs, (
        "regenerate: python -c 'from amc.cli.maestro_options import markdown_table as t; print(t())'"
    )
    assert all(option.kind in ("mapped", "accepted", "refused") for option in OPTIONS)


def test_the_reports_recording_shows_what_start_and_stop_recording_kept(tmp_path: Path) -> None:
    write_flow(
        tmp_path,
        HEADER
        + "name: recorded\n---\n- launchApp\n- startRecording: demo\n- tapOn: Sign in\n- stopRecording\n",
        "rec.yaml",
    )
    assert amc("test", "rec.yaml", "--test-output-dir", "runs").code == 0
    (report,) = (tmp_path / "runs").glob("*/report.html")
    strip = report.read_text(encoding="utf-8").split('<div class="filmstrip">', 1)[1].split("</div>", 1)[0]
    (kept,) = [p.name for p in report.parent.iterdir() if p.stem == "demo"]  # the simulated device's capture
    assert f'src="{kept}"' in strip


def test_a_device_error_exits_1_as_maestro_and_junit_says_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from amc.cli import run as run_module
    from amc.core.errors import DeviceOffline

    real = run_module.connect_device

    class Offline:  # the connected simulated phone goes offline: every look fails as adb says
        def __init__(self, driver: object) -> None:
            self._driver = driver

        def __getattr__(self, name: str) -> object:
            return getattr(self._driver, name)

        def observe(self) -> object:
            raise DeviceOffline("device offline", state="offline", hint="reconnect the cable")

    monkeypatch.setattr(run_module, "connect_device", lambda spec, **kw: Offline(real(spec, **kw)))
    result = amc("test", _flows(tmp_path, PASSES), "--device", "sim:android", "--format", "junit")
    assert result.code == 1, result.err  # amc run says 3; Maestro counts it a failed flow
    case = etree.parse(str(tmp_path / "report.xml")).find(".//testcase")
    assert (
        case.get("status") == "ERROR"
        and "DeviceOffline" in etree.tostring(etree.parse(str(tmp_path / "runs" / "junit-amc.xml"))).decode()
    )
