"""The two Driver calls the Maestro commands added, on every backend over its real protocol:
`erase_text` (eraseText, pressKey Backspace) and `set_location` (setLocation), and what a flow
that needs a call a backend lacks is told before it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.core.errors import Unsupported
from amc.drivers.connect import connect
from amc.sim.catalog import DEMO_APP
from amc.sim.device import INSTANT, SimDevice

from ..helpers import amc, write_flow

SPECS = ["sim:android", "sim:ios", "sim+adb:android", "sim+wda:ios", "sim+appium:android", "sim+appium:ios"]


@pytest.mark.parametrize("spec", SPECS)
def test_erase_text_and_set_location_reach_the_device(spec: str) -> None:
    platform = "ios" if spec.endswith("ios") else "android"
    device = SimDevice(platform, timing=INSTANT)
    options = {} if spec.startswith("sim:") else {"device": device}
    driver = connect(spec, **options)
    if spec.startswith("sim:"):
        device = driver.device  # type: ignore[attr-defined]
    try:
        driver.launch_app(DEMO_APP)
        field = next(el for el in driver.observe() if (el.identifier or "").endswith("username"))
        driver.tap(*field.bounds.center)
        driver.type_text("qa-user")
        driver.erase_text(5)
        run = device.current_run()
        assert run is not None and run.values["username"] == "qa"
        if spec == "sim+adb:android":
            with pytest.raises(Unsupported, match="uiautomator2 cannot set the phone's position"):
                driver.set_location(38.72, -9.14)
            assert device.location is None
        else:
            driver.set_location(38.72, -9.14)
            assert device.location == (38.72, -9.14)
    finally:
        driver.close()


def test_a_flow_needing_what_a_backend_lacks_is_refused_before_it_runs(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        """
        appId: com.example.amc.demo
        ---
        - launchApp
        - setLocation: {latitude: 38.72, longitude: -9.14}
        - travel: {points: ["0.0,0.0", "0.1,0.0"], speed: 7900}
        """,
    )
    result = amc("run", flow, "--device", "sim+adb:android?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 2 and not (tmp_path / "runs").exists()
    assert (
        f"{flow}:4:3: `setLocation: {{latitude: 38.72, longitude: -9.14}}` cannot run on u2 (android)"
        in result.err
    )
    travel = '`travel: {points: ["0.0,0.0", "0.1,0.0"], speed: 7900}`'
    assert f"{flow}:5:3: {travel} cannot run on" in result.err
