"""The measured tracebacks of issue 14, and their kin: every bad path, URL, port, option or
environment value is exit 2 with a message naming it, before any device request, and no traceback.

Each case runs `amc` in process next to a live WebDriverAgent face (so a request it counts means
something ran) and checks the user's view: the exit code, the message, no "Traceback", no run folder.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from amc.sim.wda_face import WdaFace

from tests.flows.helpers import EXAMPLES, amc, amc_command
from tests.hostile.conftest import GOOD_FLOW

pytestmark = pytest.mark.timeout(60)

URL = "{url}"  # replaced with the live face's URL
TMP = "{tmp}"  # replaced with the test's folder
CASES: dict[str, tuple[list[str], str]] = {
    "--out into /proc": (["--out", "/proc/amc-runs"], "--out /proc/amc-runs: cannot write in /proc"),
    "--out under a file": (["--out", f"{TMP}/a-file/runs"], "a-file is a file, not a folder"),
    "--out is a file": (["--out", f"{TMP}/a-file"], "is a file, not a folder"),
    "--out with a NUL byte": (["--out", "runs\x00x"], "is not a usable path"),
    "--junit is a folder": (["--junit", TMP], "--junit"),
    "--junit into /proc": (["--junit", "/proc/junit.xml"], "--junit /proc/junit.xml: cannot write in /proc"),
    "--junit under a file": (["--junit", f"{TMP}/a-file/junit.xml"], "a-file is a file, not a folder"),
    "IPv6 without its bracket": (["--device", "ios:http://[::1"], "Invalid IPv6 URL"),
    "Appium IPv6 without its bracket": (
        ["--device", "appium:http://[::1:4723?platform=ios"],
        "Invalid IPv6 URL",
    ),
    "port above 65535": (
        ["--device", "ios:http://127.0.0.1:70000"],
        "its port is not a number from 1 to 65535",
    ),
    "port 0": (["--device", "ios:http://127.0.0.1:0"], "has port 0: a port is a number from 1 to 65535"),
    "port not a number": (["--device", "ios:http://127.0.0.1:80x"], "its port is not a number"),
    "Appium port above 65535": (["--device", "appium:http://127.0.0.1:99999?platform=ios"], "1 to 65535"),
    "Appium over ftp": (["--device", "appium:ftp://127.0.0.1:4723?platform=ios"], "has the scheme 'ftp'"),
    "one of several devices bad": (["--device", f"ios:{URL}", "--device", "ios:http://[::1"], "Invalid IPv6"),
    "--each-device with one device": (
        ["--device", f"ios:{URL}", "--each-device"],
        "--each-device needs several",
    ),
    "--env without =": (["--device", f"ios:{URL}", "--env", "USER"], "--env 'USER' is not KEY=VALUE"),
    "--env with a bad name": (["--device", f"ios:{URL}", "--env", "A-B=1"], "--env 'A-B=1' is not KEY=VALUE"),
    "--include-tags empty": (["--device", f"ios:{URL}", "--include-tags", "smoke,"], "has an empty tag"),
    "--sim-latency on a real device": (
        ["--device", "sim:ios", "--device", f"ios:{URL}", "--sim-latency", "0.1"],
        "--sim-latency only applies",
    ),
}


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_argument_is_exit_2_naming_it_and_nothing_runs(
    name: str, wda: WdaFace, tmp_path: Path, a_file: Path
) -> None:
    args, message = CASES[name]
    argv = [a.replace(URL, wda.url).replace(TMP, str(tmp_path)) for a in args]
    if "--device" not in argv:
        argv += ["--device", f"ios:{wda.url}"]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "runs")]
    result = amc("run", GOOD_FLOW, *argv)
    assert result.code == 2, result.out + result.err
    assert message in result.err and "Traceback" not in result.err
    assert wda.count() == 0 and not (tmp_path / "runs").exists() and result.out == ""


def test_a_missing_parent_of_out_and_junit_is_made(wda: WdaFace, tmp_path: Path) -> None:
    out, junit = tmp_path / "new" / "deeper" / "runs", tmp_path / "ci" / "reports" / "junit.xml"
    result = amc("run", GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", out, "--junit", junit)
    assert result.code == 0, result.err
    assert len(list(out.iterdir())) == 1 and junit.read_bytes().startswith(b"<?xml")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("{run}", "is a folder, not a file"),
        ("/proc/report.html", "cannot write the report to /proc/report.html"),
        ("{tmp}/a-file/report.html", "cannot write the report to"),
    ],
)
def test_amc_report_out_that_cannot_be_written_is_exit_2(
    target: str, message: str, wda: WdaFace, tmp_path: Path, a_file: Path
) -> None:
    assert amc("run", GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs").code == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    result = amc("report", run_dir, "--out", target.format(run=run_dir, tmp=tmp_path))
    assert result.code == 2 and message in result.err and "Traceback" not in result.err


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("WDA_URL", "http://[::1", "WDA_URL='http://[::1' is not a usable WebDriverAgent address"),
        ("WDA_URL", "http://127.0.0.1:70000", "WDA_URL="),
        ("AMC_SIM_TIMING", "slow-motion", "AMC_SIM_TIMING='slow-motion' is not a timing"),
    ],
)
def test_a_bad_environment_value_is_exit_2_naming_it(
    variable: str, value: str, message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(variable, value)
    result = amc("run", EXAMPLES / "settings_android.yaml", "--out", tmp_path / "runs")
    assert result.code == 2 and message in result.err and "Traceback" not in result.err


def test_a_fifo_named_as_a_flow_is_refused_without_waiting_for_a_writer(wda: WdaFace, tmp_path: Path) -> None:
    fifo = tmp_path / "flow.yaml"
    os.mkfifo(fifo)
    result = amc("run", fifo, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs")
    assert result.code == 2 and "not a regular file" in result.err and wda.count() == 0


def test_the_installed_command_shows_no_traceback_for_a_bad_device_url(tmp_path: Path) -> None:
    done = subprocess.run(
        [*amc_command(), "run", str(GOOD_FLOW), "--device", "ios:http://[::1", "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and "Invalid IPv6 URL" in done.stderr


def test_a_symlink_in_a_folder_of_flows_is_refused_and_nothing_it_points_at_is_read(
    wda: WdaFace, tmp_path: Path
) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    secret = tmp_path / "private.txt"
    secret.write_text("root:x:0:0:do-not-print-me\n")
    (flows / "leak.yaml").symlink_to(secret)
    (flows / "good.yaml").write_text("steps:\n  - press: home\n")
    result = amc("run", flows, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs")
    assert result.code == 2 and "a flow in a folder may not be a symlink" in result.err
    assert "do-not-print-me" not in result.err + result.out and wda.count() == 0
