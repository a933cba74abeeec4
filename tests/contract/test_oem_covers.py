"""Every prompt of the covers catalogue, played on the simulated phone in each Android skin and on
iOS, is named by its kind on every backend (through ``connect()`` and the real client libraries,
each backend's page source format) and lands in the world state's overlay (issue 41)."""

from __future__ import annotations

import pytest
from amc.core.errors import StepArgumentError
from amc.core.models import PlannedStep, StepResult
from amc.drivers.connect import connect
from amc.semantic.enricher import enrich_scene
from amc.semantic.screen import cover_of
from amc.sim.device import SimDevice
from amc.sim.profiles import AndroidProfile
from amc.world.model import WorldModel

ANDROID_SPECS = ("sim:android", "sim+adb:android", "sim+appium:android")
IOS_SPECS = ("sim:ios", "sim+wda:ios", "sim+appium:ios")
SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
# (skin, what the app asks for, the cover kind, words of the overlay)
ANDROID_CASES = (
    ("aosp", "notifications", "permission", "send you notifications"),
    ("aosp", "battery", "battery", "Let app always run in background?"),
    ("aosp", "chooser", "chooser", "Open with"),
    ("oneui", "notifications", "permission", "send you notifications"),
    ("miui", "notifications", "permission", "send you notifications"),
    ("miui", "autostart", "autostart", "autostart"),
    ("coloros", "notifications", "permission", "send you notifications"),
    ("oxygenos", "notifications", "permission", "send you notifications"),
    ("originos", "notifications", "permission", "send you notifications"),
    ("emui", "chooser", "chooser", "Open with"),
    ("emui", "autostart", "autostart", "auto-start"),
    ("magicos", "chooser", "chooser", "使用以下方式打开"),
)
IOS_CASES = (
    ("notifications", "notifications", "Would Like to Send You Notifications"),
    ("location", "permission", "to use your location"),
    ("paste", "paste", "would like to paste from"),
    ("tracking", "tracking", "to track your activity"),
)


def _look(spec: str, device: SimDevice, ask: str) -> tuple[str | None, str | None, str | None]:
    """Launch Settings, let it ask, look once: (the cover's kind, the world's overlay and its kind)."""
    options = {} if spec.startswith("sim:") else {"device": device}
    driver = connect(spec, **options)
    try:
        target = driver.device if spec.startswith("sim:") else device  # type: ignore[attr-defined]
        driver.launch_app(SETTINGS[device.platform])
        target.ask(ask)
        scene = driver.observe()
    finally:
        driver.close()
    world = WorldModel()
    world.observe(scene, enrich_scene(scene), PlannedStep("press", {"key": "back"}), StepResult(True))
    state = world.state
    return cover_of(scene).kind, state.overlay, state.overlay_kind


@pytest.mark.parametrize("spec", ANDROID_SPECS)
@pytest.mark.parametrize(("oem", "ask", "kind", "says"), ANDROID_CASES)
def test_each_android_skins_prompt_is_named_on_every_backend(
    spec: str, oem: str, ask: str, kind: str, says: str
) -> None:
    device = SimDevice("android", profile=AndroidProfile(oem=oem))
    if spec == "sim:android":
        spec = f"sim:android?oem={oem}"
    found, overlay, overlay_kind = _look(spec, device, ask)
    assert (found, overlay_kind) == (kind, kind)
    assert overlay is not None and says in overlay


@pytest.mark.parametrize("spec", IOS_SPECS)
@pytest.mark.parametrize(("ask", "kind", "says"), IOS_CASES)
def test_each_springboard_prompt_is_named_on_every_backend(spec: str, ask: str, kind: str, says: str) -> None:
    found, overlay, overlay_kind = _look(spec, SimDevice("ios"), ask)
    assert (found, overlay_kind) == (kind, kind)
    assert overlay is not None and says in overlay


def test_a_skin_without_the_prompt_says_which_it_has() -> None:
    device = SimDevice("android", profile=AndroidProfile(oem="coloros"))
    device.launch(SETTINGS["android"])
    with pytest.raises(
        StepArgumentError, match="shows no 'autostart' prompt; it shows: battery, chooser, notifications"
    ):
        device.ask("autostart")


@pytest.mark.parametrize("spec", ANDROID_SPECS)
def test_the_home_app_chooser_is_a_cover_until_a_home_app_is_chosen(spec: str) -> None:
    """No default home app (two installed, the default cleared): Home shows "Select a Home app",
    which no backend names as the app in front; "Always" makes the launcher the home screen."""
    device = SimDevice("android")
    driver = connect(spec, **({} if spec == "sim:android" else {"device": device}))
    try:
        phone = driver.device if spec == "sim:android" else device  # type: ignore[attr-defined]
        driver.launch_app(SETTINGS["android"])
        phone.unset_home()
        driver.press("home")
        scene = driver.observe()
        semantic = enrich_scene(scene)
        assert cover_of(scene).kind == "chooser"
        assert semantic is not None and semantic.alert == "Select a Home app"
        assert driver.current_app() is None
        always = next(el for el in scene.root.iter() if el.text == "Always")
        driver.tap(*always.bounds.center)
        assert cover_of(driver.observe()).kind is None
        driver.press("home")  # the default is set now: no chooser
        assert cover_of(driver.observe()).kind is None
    finally:
        driver.close()
