"""A launch answered by the launched app's crash or ANR dialog fails as ``AppLaunchFailed`` quoting
the dialog, on every Android backend (issue 41): the verdict comes from the focused window and the
process (uiautomator2's ``dumpsys window``), the page source (Appium, whose getCurrentPackage names
the app behind the dialog), and the phone itself (in process). Another process's dialog over the
launched app ("System UI isn't responding") leaves the launch standing: it is the screen's cover."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import AppLaunchFailed
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.semantic.screen import cover_of
from amc.sim.device import SimDevice

SETTINGS = "com.android.settings"
Build = Callable[[SimDevice], Driver]
BACKENDS: dict[str, Build] = {
    "in-process": lambda device: SimDriver(device=device),
    "uiautomator2": lambda device: connect("sim+adb:android", device=device, launch_timeout=2),
    "appium": lambda device: connect("sim+appium:android", device=device, launch_timeout=2),
}


@pytest.fixture(params=sorted(BACKENDS))
def rig(request: pytest.FixtureRequest) -> Iterator[tuple[SimDevice, Driver]]:
    device = SimDevice("android")
    driver = BACKENDS[request.param](device)
    try:
        yield device, driver
    finally:
        driver.close()


@pytest.mark.parametrize(
    ("kind", "says"),
    [("keeps_stopping", 'crash dialog: "Settings keeps stopping"'), ("not_responding", "ANR dialog")],
)
def test_the_launched_apps_own_dialog_fails_the_launch(
    rig: tuple[SimDevice, Driver], kind: str, says: str
) -> None:
    device, driver = rig
    device.fail_launches(SETTINGS, kind)
    with pytest.raises(AppLaunchFailed) as failed:
        driver.launch_app(SETTINGS)
    assert says in failed.value.message and failed.value.app_id == SETTINGS
    assert failed.value.hint and (
        "logcat" in failed.value.hint if kind == "keeps_stopping" else "wait" in failed.value.hint
    )
    if kind == "not_responding":
        assert "Settings isn't responding" in failed.value.message
    device.dismiss_system_dialog()
    driver.launch_app(SETTINGS)  # only the next launch was set to fail: this one stands
    assert driver.current_app() == SETTINGS


def test_another_processs_dialog_over_the_launched_app_is_its_cover(rig: tuple[SimDevice, Driver]) -> None:
    device, driver = rig
    device.show_system_dialog("not_responding", "com.android.systemui")
    driver.launch_app(SETTINGS)
    assert cover_of(driver.observe()).kind == "anr"
