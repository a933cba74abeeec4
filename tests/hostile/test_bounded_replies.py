"""Issue 34, part 4: every reply from a device server or a model server is bounded in total time
and in size, with a typed error that names the limit.

Before the fix a WebDriverAgent whose ``/source`` trickled a byte a second, or sent chunks forever,
kept the harness busy past 100 s with a 30 s timeout (the timeout was per socket read, the body read
without a bound), and a 200 MB body was read whole; a model server trickling its reply kept ``amc
agent --llm-timeout 5`` busy past 60 s, and a 300 MB reply was read whole. Here each hostile server
stands in front of the simulated device's real face (or alone, for the model), each client is the
real library (facebook-wda's connection, uiautomator2 over adbutils, Appium-Python-Client over
urllib3, the openai client over httpx), and the timeouts are 2 s: a test that hung would be stopped
by its pytest timeout. ``sent`` counts what the hostile server managed to write: the client stopped
reading near the size limit, not at 200 MB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.core.errors import DeviceTimeout, ReplyTooLarge
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.bounded import MAX_REPLY_BYTES
from amc.drivers.connect import connect
from amc.drivers.u2 import U2Config, U2Driver
from amc.sim.adb_face import AdbFace
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace
from amc.storage.timeline import read_timeline

from tests.flows.helpers import amc
from tests.hostile.servers import HOW, HUGE, AdbProxy, HttpProxy

pytestmark = pytest.mark.timeout(60)

SERIAL = "emulator-5554"


def _check(caught: pytest.ExceptionInfo[BaseException], how: str, sent: int) -> None:
    if how == "huge":
        assert isinstance(caught.value, ReplyTooLarge), caught.value
        assert f"more than {MAX_REPLY_BYTES} bytes" in str(caught.value)
        assert caught.value.limit == MAX_REPLY_BYTES
        assert sent < HUGE // 2  # the client stopped reading at the limit, not at 200 MB
    else:
        assert isinstance(caught.value, DeviceTimeout), caught.value
        assert "within 2 s" in str(caught.value)


@pytest.mark.parametrize("how", HOW)
def test_a_webdriveragent_source_that_never_ends_is_bounded(how: str) -> None:
    with WdaFace(SimDevice("ios")) as face, HttpProxy(how, r"/source", face.url) as proxy:
        driver = connect(f"ios:{proxy.url}", timeout=2)
        try:
            with pytest.raises((DeviceTimeout, ReplyTooLarge)) as caught:
                driver.observe()
        finally:
            driver.close()
        assert proxy.hit >= 1
        _check(caught, how, proxy.sent)


@pytest.mark.parametrize("how", HOW)
def test_an_appium_source_that_never_ends_is_bounded(how: str) -> None:
    with AppiumFace(SimDevice("android")) as face, HttpProxy(how, r"/source", face.url) as proxy:
        driver = AppiumDriver(proxy.url, options_for("android", udid=SERIAL), timeout=2, launch_timeout=2)
        driver.connect()
        try:
            with pytest.raises((DeviceTimeout, ReplyTooLarge)) as caught:
                driver.observe()
        finally:
            driver.close()
        assert proxy.hit >= 1
        _check(caught, how, proxy.sent)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    ("trigger", "http"),
    [(b"dumpWindowHierarchy", True), (b"shell:dumpsys window", False)],
    ids=["uiautomator2 RPC", "adb shell"],
)
def test_a_uiautomator2_dump_or_an_adb_shell_output_that_never_ends_is_bounded(
    how: str, trigger: bytes, http: bool
) -> None:
    with (
        AdbFace([SimDevice("android", SERIAL)]) as face,
        AdbProxy(how, trigger, face.port, http=http) as proxy,
    ):
        driver = U2Driver(SERIAL, U2Config(adb_port=proxy.port, timeout=2.0))
        try:
            with pytest.raises((DeviceTimeout, ReplyTooLarge)) as caught:
                driver.observe() if http else driver.current_app()  # the dump; the focus (dumpsys)
        finally:
            driver.close()
        assert proxy.hit >= 1
        if how == "huge" and not http:
            # adbutils gathers a shell's output by concatenating 4 KiB reads, so its time runs out
            # before 64 MiB have come in: bounded either way
            assert isinstance(caught.value, DeviceTimeout | ReplyTooLarge), caught.value
            assert proxy.sent < HUGE // 2
        else:
            _check(caught, how, proxy.sent)


@pytest.mark.parametrize("how", HOW)
def test_a_model_server_that_never_ends_is_an_infrastructure_error_within_its_bound(
    how: str, tmp_path: Path
) -> None:
    with HttpProxy(how) as server:
        result = amc(
            "agent", "look", "--device", "sim:android", "--llm-url", server.url + "/v1", "--model", "m",
            "--llm-timeout", "2", "--max-steps", "2", "--out", tmp_path / "runs",
        )  # fmt: skip
    # the model server failed, not the model: exit 3, nothing recorded against the model
    assert result.code == 3 and "Traceback" not in result.out + result.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert not read_timeline(run_dir).steps
    said = result.out + result.err
    assert f"the model server at {server.url}/v1 did not answer" in said, said
    if how == "huge":
        assert "more than" in said and "bytes" in said, said
        assert server.sent < HUGE // 2
    else:
        assert "in time" in said and "2 s" in said, said


@pytest.mark.parametrize("how", HOW)
def test_amc_doctor_reads_a_status_reply_within_its_bounds(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from amc.cli import doctor

    monkeypatch.setattr(doctor, "NET_TIMEOUT", 1.0)
    with HttpProxy(how) as server:
        check = doctor.check_wda({"WDA_URL": server.url})
    assert check.status == "fail"
    if how == "huge":
        assert "more than 1048576 bytes" in check.detail and server.sent < HUGE // 2
    else:
        assert "within 1 s" in check.detail


def test_amc_report_reads_only_a_regular_timeline_of_bounded_size(tmp_path: Path) -> None:
    import os

    from amc.storage.timeline import MAX_TIMELINE_BYTES

    runs = {name: tmp_path / name for name in ("zero", "fifo", "sparse")}
    for folder in runs.values():
        folder.mkdir()
    (runs["zero"] / "timeline.jsonl").symlink_to("/dev/zero")
    os.mkfifo(runs["fifo"] / "timeline.jsonl")  # a reader of a FIFO waits for a writer forever
    with open(runs["sparse"] / "timeline.jsonl", "wb") as sparse:
        sparse.truncate(MAX_TIMELINE_BYTES + 1)  # sparse: no disk used
    for name, folder in runs.items():
        result = amc("report", folder)
        assert result.code == 2 and "Traceback" not in result.err, (name, result.err)
        expected = (
            f"is {MAX_TIMELINE_BYTES + 1} bytes; the limit is"
            if name == "sparse"
            else "is not a regular file"
        )
        assert expected in result.err, (name, result.err)
