"""A ``retry:`` block runs its commands again after the device fails one (Maestro's
``Orchestra.retryCommand`` catches any exception); outside one, a device error ends the run, and
a failed step is never sent again behind the flow's back."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.cli import main
from amc.core.errors import DeviceError

from .integration_cases import virtual_clock
from .layout_driver import LayoutDriver, build_layout


class _BrokenTaps(LayoutDriver):
    """Every tap fails on the device (as a lost connection mid-tap would); counts the attempts."""

    attempts = 0

    def tap(self, x: int, y: int) -> None:
        self.attempts += 1
        raise DeviceError("the device dropped the tap")


def _run(flow: str, tmp_path: Path, monkeypatch: Any) -> tuple[int, _BrokenTaps]:
    driver = _BrokenTaps(build_layout([{"text": "Button", "bounds": [0, 0, 100, 100]}]))
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: driver)
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])
    path = tmp_path / "flow.yaml"
    path.write_text("appId: com.other.app\n---\n" + flow, encoding="utf-8")
    out = str(tmp_path / "runs")
    argv = ["run", str(path), "--device", "sim:ios", "--out", out, "--screenshots", "never"]
    with virtual_clock():
        code = main(argv, out=io.StringIO(), err=io.StringIO())
    return code, driver


@pytest.mark.parametrize(
    ("flow", "attempts"),
    [
        ("- tapOn: Button\n", 1),  # no retry asked for: sent once, the run ends device_error
        ("- retry:\n    maxRetries: 2\n    commands:\n      - tapOn: Button\n", 3),  # 1 + 2 asked for
    ],
)
def test_a_failed_tap_is_sent_again_only_as_often_as_the_flow_asks(
    flow: str, attempts: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, driver = _run(flow, tmp_path, monkeypatch)
    assert code == 3  # a device error, once nothing is left to retry
    assert driver.attempts == attempts
