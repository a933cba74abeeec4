"""`amc run` on a locked phone, over every face: the flow fails at its first launch with a device
error that says the phone is locked and to unlock it (exit 3), never as a passed flow. Over
WebDriverAgent the driver refuses to connect to a locked iPhone at all, as it does to a real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from amc import connect as connect_module

from .helpers import EXAMPLES, amc

CASES = [
    ("sim:android?locked=true&timing=instant", "settings_android.yaml"),
    ("sim+adb:android?locked=true&timing=instant", "settings_android.yaml"),
    ("sim+appium:android?locked=true&timing=instant", "settings_android.yaml"),
    ("sim:ios?locked=true&timing=instant", "settings_ios.yaml"),
    ("sim+appium:ios?locked=true&timing=instant", "settings_ios.yaml"),
]


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


@pytest.mark.parametrize(("spec", "flow"), CASES, ids=[spec.split("?")[0] for spec, _ in CASES])
def test_a_flow_on_a_locked_phone_fails_at_its_launch_saying_to_unlock_it(
    tmp_path: Path, spec: str, flow: str
) -> None:
    result = amc("run", EXAMPLES / flow, "--device", spec, "--out", tmp_path / "runs", "--json")
    assert result.code == 3, result.out + result.err  # a device error: not passed, not a crash
    assert "Traceback" not in result.err
    (end,) = [e for e in map(json.loads, result.out.splitlines()) if e.get("event") == "flow_end"]
    assert (end["status"], end["error_kind"], end["steps"]) == ("device_error", "DeviceOffline", 1)
    assert "the phone is locked" in end["error"] and "unlock the phone" in end["error"]


def test_webdriveragent_will_not_drive_a_locked_iphone(tmp_path: Path) -> None:
    spec = "sim+wda:ios?locked=true&timing=instant"
    result = amc("run", EXAMPLES / "settings_ios.yaml", "--device", spec, "--out", tmp_path / "runs")
    assert result.code == 3, result.out + result.err
    assert "Traceback" not in result.err
    assert "is locked" in result.err and "unlock the phone" in result.err
