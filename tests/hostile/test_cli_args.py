"""Bad ``amc`` arguments next to a live device: a usage error (exit 2) before any device request.

tests/flows/test_cli.py checks the messages of most of these; this file proves nothing reached the
device and no run folder was made, whatever the argument.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.core.errors import FlowError
from amc.flows import load_flow
from amc.sim.wda_face import WdaFace

from tests.flows.helpers import amc
from tests.hostile.conftest import GOOD_FLOW

pytestmark = pytest.mark.timeout(60)

URL = "{url}"  # replaced with the live face's URL
BAD_ARGS: dict[str, tuple[list[str], str]] = {
    "latency not a number": (["--device", f"ios:{URL}", "--sim-latency", "abc"], "not a number of seconds"),
    "latency NaN": (["--device", f"ios:{URL}", "--sim-latency", "nan"], "between 0 and 10 seconds"),
    "latency infinite": (["--device", f"ios:{URL}", "--sim-latency", "1e400"], "between 0 and 10 seconds"),
    "latency on a real device": (["--device", f"ios:{URL}", "--sim-latency", "0.5"], "only applies"),
    "unknown option": (["--device", f"ios:{URL}", "--frobnicate"], "unrecognized arguments"),
    "unknown platform": (["--device", f"ios:{URL}", "--platform", "windows"], "invalid choice"),
    "empty device": (["--device", ""], "--device is empty"),
    "blank device": (["--device", "   "], "--device is empty"),
    "control character in the spec": (["--device", f"ios:{URL}\x07"], "control characters"),
    "huge spec": (["--device", "ios:http://127.0.0.1:1/" + "a" * 5000], "too long"),
    "unknown scheme": (["--device", f"wda:{URL}"], "unknown scheme 'wda'"),
    "no target": (["--device", "ios:"], "expected SCHEME:TARGET"),
    "not a URL": (["--device", "ios:javascript:alert(1)"], "bad iOS target"),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGS))
def test_a_bad_argument_is_a_usage_error_and_nothing_runs(
    name: str, wda: WdaFace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, message = BAD_ARGS[name]
    argv = [a.replace(URL, wda.url) for a in args]
    out = tmp_path / "runs"
    result = amc("run", GOOD_FLOW, *argv, "--out", out)
    assert result.code == 2
    assert wda.count() == 0
    assert not out.exists()
    # argparse writes its usage errors to the process's stderr; amc's own go to the given stream.
    assert message in result.err + capsys.readouterr().err


def test_out_being_a_file_stops_the_run_before_the_device(wda: WdaFace, tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    result = amc("run", GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", a_file)
    assert result.code == 2 and "is a file, not a folder" in result.err
    assert wda.count() == 0


def test_a_report_of_a_hostile_folder_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "timeline.jsonl").write_bytes(b"\x00\xff{not json\n" * 3)
    result = amc("report", tmp_path / "missing")
    assert result.code == 2 and "is not a run folder" in result.err


def test_a_path_with_a_nul_byte_is_a_flow_error() -> None:
    with pytest.raises(FlowError):
        load_flow("flow\x00.yaml")
