"""Garbage in the environment: a clear ``ConfigError`` that names the variable, and nothing executed.

The readers themselves are unit-tested (tests/unit/test_world_config.py, tests/unit/test_semantic.py,
tests/drivers/u2); this file drives the user's entry points (``connect``, ``amc run``, ``amc devices``,
``amc doctor``) next to live faces and counts what reached them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.core.errors import ConfigError
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

from tests.flows.helpers import EXAMPLES, amc
from tests.hostile.conftest import GOOD_FLOW

pytestmark = pytest.mark.timeout(60)

SERIAL = "emulator-5554"
ANDROID_FLOW = EXAMPLES / "settings_android.yaml"

HARNESS_ENV: dict[str, tuple[str, str]] = {
    "history size not a number": ("AMC_WORLD_HISTORY_SIZE", "ten"),
    "history size negative": ("AMC_WORLD_HISTORY_SIZE", "-5"),
    "history size huge": ("AMC_WORLD_HISTORY_SIZE", "9" * 400),
    "history size hex": ("AMC_WORLD_HISTORY_SIZE", "0x10"),
    "world flag not a boolean": ("AMC_WORLD_ENABLED", "maybe"),
    "world flag with an escape": ("AMC_WORLD_ENABLED", "\x1b[2Jyes"),
    "semantic flag not a boolean": ("AMC_SEMANTIC", "2"),
}


@pytest.mark.parametrize("name", sorted(HARNESS_ENV))
def test_a_bad_harness_setting_stops_amc_run_with_its_name(
    name: str, wda: WdaFace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable, value = HARNESS_ENV[name]
    monkeypatch.setenv(variable, value)
    out = tmp_path / "runs"
    result = amc("run", GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", out)
    assert result.code == 2 and f"amc: error: {variable}=" in result.err
    assert not out.exists() and result.out == ""  # no run folder, no step


def test_a_bad_harness_setting_is_refused_before_the_device_is_contacted(
    wda: WdaFace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AMC_WORLD_HISTORY_SIZE", "ten")
    assert amc("run", GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs").code == 2
    assert wda.count() == 0


@pytest.fixture
def adb() -> Iterator[AdbFace]:
    with AdbFace([SimDevice("android", SERIAL)]) as running:
        yield running


def _bad_ports(port: int) -> list[str]:
    return [f"{port}.0", f"{port}abc", f"0x{port:x}", f"{port} {port}", " ", "-1", "0", "65536", "9" * 300]


def test_a_bad_adb_port_is_a_config_error_naming_the_variable(
    adb: AdbFace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for value in _bad_ports(adb.port):
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", value)
        with pytest.raises(ConfigError, match="adb server port") as caught:
            connect(f"android:{SERIAL}")
        assert "ANDROID_ADB_SERVER_PORT" in str(caught.value) or "1-65535" in str(caught.value)
        result = amc("run", ANDROID_FLOW, "--device", f"android:{SERIAL}", "--out", tmp_path / "runs")
        assert result.code == 2 and "adb server port" in result.err, value
    assert adb.requests() == 0 and not (tmp_path / "runs").exists()
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb.port))  # the same face, spelled right, works
    connect(f"android:{SERIAL}").close()
    assert adb.requests() > 0


@pytest.mark.parametrize("variable", ["ANDROID_ADB_SERVER_PORT", "WDA_URL"])
def test_discovery_does_not_fall_back_to_the_simulated_device_on_a_malformed_address(
    variable: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(variable, "127.0.0.1:8100abc")
    result = amc("run", ANDROID_FLOW, "--out", tmp_path / "runs")
    assert result.code == 2 and variable in result.err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", ["garbage", "{host}", "ftp://{host}", "http//{host}", "http://"])
def test_a_bad_wda_url_is_named_by_the_doctor_and_nothing_is_contacted(
    value: str, wda: WdaFace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WDA_URL", value.format(host=wda.url.removeprefix("http://")))
    doctor = amc("doctor")
    assert doctor.code == 3
    lines = doctor.out.splitlines()
    at = next(n for n, line in enumerate(lines) if "WebDriverAgent" in line)
    assert lines[at].startswith("FAIL") and "WDA_URL" in lines[at + 1]  # the line's fix names it
    devices = amc("devices")  # a malformed address is named, never taken for "no device attached"
    assert devices.code == 2 and "WDA_URL" in devices.err
    assert wda.count() == 0
