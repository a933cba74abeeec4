"""Issue 41, item 1: the WebDriverAgent and Appium adapters against every version the faces play.

Each WebDriverAgent generation of :data:`amc.sim.profiles.WDA_GENERATIONS` answers ``/status`` with
the fields that generation has (:func:`amc.sim.versions.wda_status_fields`: ``device`` from 5.9,
``build.version`` from 8.3.0), and the adapter reads what is there: the version when ``/status``
tells it, none before 8.3.0 (it then asks nothing it cannot know). Appium is played as 3, whose
``/status`` has the shape 2 has too.
"""

from __future__ import annotations

import pytest
from amc.drivers.appium import AppiumDriver
from amc.drivers.connect import connect
from amc.drivers.wda import WdaDriver
from amc.sim.profiles import WDA_GENERATIONS, IosProfile
from amc.sim.versions import APPIUM_SERVERS, wda_status_fields

APP = "com.apple.Preferences"


@pytest.mark.parametrize("wda", list(WDA_GENERATIONS))
def test_the_adapter_drives_every_webdriveragent_generation(wda: str) -> None:
    profile = IosProfile(wda=wda)
    driver = connect(f"sim+wda:ios?wda={wda}", timing="instant")
    assert isinstance(driver, WdaDriver)
    try:
        status = driver.status()
        keys = set(status) | {f"build.{k}" for k in status.get("build", {})}
        expected = set(wda_status_fields(profile))
        assert expected <= keys, expected - keys
        assert ("device" in status) == ("device" in expected)
        assert ("version" in status["build"]) == ("build.version" in expected)
        driver.launch_app(APP)
        assert driver.current_app() == APP
        assert "General" in driver.observe().texts()
        driver.tap(100, 300)
    finally:
        driver.close()


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_appium_adapter_drives_the_played_appium(platform: str) -> None:
    played = [a for a in APPIUM_SERVERS if a.played]
    assert [a.major for a in played] == ["3"]
    driver = connect(f"sim+appium:{platform}", timing="instant")
    assert isinstance(driver, AppiumDriver)
    try:
        app = APP if platform == "ios" else "com.android.settings"
        driver.launch_app(app)
        assert driver.current_app() == app
    finally:
        driver.close()
