"""hide_keyboard, open_link and clear_state on every backend: what crossed the wire, and what the
device shows after. An iPhone playing a Simulator is cleared as simctl clears one; a physical
iPhone cannot be: a typed ``Unsupported`` saying so, the app's data kept."""

from __future__ import annotations

import pytest
from amc.core.errors import AppLaunchFailed, Unsupported
from amc.core.selectors import Selector, tap_point

from tests.contract.rigs import Rig

# The request each backend's adapter sends for each command, as the face counts it.
WIRE: dict[str, dict[str, tuple[str, ...]]] = {
    "u2": {
        "hide_keyboard": ("adb:shell:dumpsys", "adb:shell:input"),
        "open_link": ("adb:shell:am",),
        "clear_state": ("adb:shell:pm",),
    },
    "wda": {"hide_keyboard": ("keyboard.dismiss",), "open_link": ("url",), "clear_state": ()},
    "appium": {
        "hide_keyboard": ("mobile: hideKeyboard",),
        "open_link": ("mobile: deepLink",),
        "clear_state": ("mobile: clearApp",),
    },
    # the real Appium UiAutomator2 driver does these over adb (appium-adb), not on its server
    "appium_u2": {
        "hide_keyboard": ("adb:shell,v2:dumpsys", "adb:shell,v2:input"),
        "open_link": ("adb:shell,v2:am",),
        "clear_state": ("adb:shell,v2:pm",),
    },
    "sim": {"hide_keyboard": (), "open_link": (), "clear_state": ()},
}


def _counted(rig: Rig, command: str) -> None:
    if rig.faults is None:
        return
    for route in WIRE[rig.name][command]:
        assert rig.faults.count(route) >= 1, (rig.name, command, route)


def _sign_in(rig: Rig) -> None:
    run = rig.device.current_run()
    assert run is not None
    run.values.update({"username": "qa", "password": "secret123"})
    scene = rig.driver.observe()
    button = scene.find(Selector(text="Sign in"))
    assert button is not None
    rig.driver.tap(*tap_point(button, scene.window))
    assert "Signed in as qa" in rig.driver.observe().texts()


def test_hide_keyboard_hides_the_keyboard_a_field_brought_up(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["demo"])
    scene = rig.driver.observe()
    field = scene.find(Selector(id="username"))
    assert field is not None
    rig.driver.tap(*tap_point(field, scene.window))
    assert rig.device.keyboard_shown()
    rig.driver.hide_keyboard()
    assert not rig.device.keyboard_shown()
    _counted(rig, "hide_keyboard")
    rig.driver.hide_keyboard()  # none shows now: nothing happens, no error


def test_open_link_opens_the_app_that_takes_the_link(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.open_link("amcdemo://login")
    assert rig.device.foreground() == apps["demo"]
    assert "Sign in" in rig.driver.observe().texts()
    _counted(rig, "open_link")
    with pytest.raises(AppLaunchFailed) as caught:
        rig.driver.open_link("nosuchscheme://anything")
    assert "nosuchscheme://anything" in str(caught.value)


def test_clear_state_deletes_the_apps_data_or_says_it_cannot(rig: Rig, apps: dict[str, str]) -> None:
    rig.driver.launch_app(apps["demo"])
    _sign_in(rig)
    rig.driver.clear_state(apps["demo"])
    _counted(rig, "clear_state")
    assert apps["demo"] not in rig.device.running_apps()  # cleared apps are stopped, as pm clear does
    rig.driver.launch_app(apps["demo"])
    texts = rig.driver.observe().texts()
    assert "Sign in" in texts and "Signed in as qa" not in texts


@pytest.mark.parametrize(
    "spec", ["sim:ios?kind=device", "sim+wda:ios?kind=device", "sim+appium:ios?kind=device"]
)
def test_a_physical_iphone_refuses_to_clear_an_app_and_keeps_its_data(spec: str) -> None:
    from amc.drivers.connect import connect
    from amc.sim.device import INSTANT, SimDevice
    from amc.sim.profiles import ios_profile

    device = SimDevice("ios", timing=INSTANT, profile=ios_profile(kind="device"))
    driver = (
        connect(spec, device=device) if not spec.startswith("sim:") else connect(spec + "&timing=instant")
    )
    rig = Rig(spec, driver, getattr(driver, "device", device))
    try:
        rig.driver.launch_app("com.example.amc.demo")
        _sign_in(rig)
        with pytest.raises(Unsupported) as caught:
            rig.driver.clear_state("com.example.amc.demo")
        assert "physical iPhone" in str(caught.value) or "XCTest has no API" in str(caught.value)
        rig.driver.terminate_app("com.example.amc.demo")
        rig.driver.launch_app("com.example.amc.demo")
        assert "Signed in as qa" in rig.driver.observe().texts()  # the session is still kept
    finally:
        driver.close()
