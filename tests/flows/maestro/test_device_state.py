"""The device-state commands (orientation, airplane mode, dark mode, recording, media) on the
simulated device and over each face with the real client libraries (uiautomator2 + adbutils,
facebook-wda, Appium-Python-Client): what the phone did, what a look at it shows, and the refusal
where the backend has no means, which `amc check --device` says before a run."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.core.errors import Unsupported
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.catalog import DEMO_APP
from amc.sim.device import INSTANT, SimDevice
from PIL import Image

SPECS = ["sim:android", "sim:ios", "sim+adb:android", "sim+wda:ios", "sim+appium:android", "sim+appium:ios"]
# Where the backend has no means (the actions' Unsupported rules say the same before a run).
NO_AIRPLANE = {"sim:ios", "sim+wda:ios", "sim+appium:ios"}
NO_RECORDING = {"sim+wda:ios"}
NO_MEDIA = {"sim+wda:ios"}


@pytest.fixture(params=SPECS)
def phone(request: pytest.FixtureRequest) -> Iterator[tuple[str, Driver, SimDevice]]:
    spec: str = request.param
    platform = "ios" if spec.endswith("ios") else "android"
    if spec.startswith("sim:"):
        driver = connect(spec + "?timing=instant")
        device = driver.device  # type: ignore[attr-defined]
    else:
        device = SimDevice(platform, timing=INSTANT)
        driver = connect(spec, device=device)
    try:
        driver.launch_app(DEMO_APP)
        yield spec, driver, device
    finally:
        driver.close()


def test_the_screen_turns_and_every_look_shows_it_turned(phone: tuple[str, Driver, SimDevice]) -> None:
    _, driver, device = phone
    width, height = device.window_size
    for orientation in ("landscape_left", "upside_down", "landscape_right", "portrait", "landscape_right"):
        driver.set_orientation(orientation)
        assert device.orientation == orientation
    scene = driver.observe()
    assert scene.window_size == (height, width)  # the page source reports the turned window
    picture = Image.open(io.BytesIO(driver.screenshot()))
    assert picture.width > picture.height  # a landscape screenshot
    assert any("username" in (el.identifier or "") for el in scene)  # the app is still laid out
    driver.set_orientation("portrait")
    assert driver.observe().window_size == (width, height)


def test_airplane_mode_switches_where_the_backend_can(phone: tuple[str, Driver, SimDevice]) -> None:
    spec, driver, device = phone
    if spec in NO_AIRPLANE:
        with pytest.raises(Unsupported, match="airplane mode"):
            driver.set_airplane_mode(True)
        assert device.airplane is False
        return
    assert driver.airplane_mode() is False
    driver.set_airplane_mode(True)
    assert device.airplane is True and driver.airplane_mode() is True
    driver.set_airplane_mode(False)
    assert device.airplane is False and driver.airplane_mode() is False


def _corner(driver: Driver) -> tuple[int, ...]:
    picture = Image.open(io.BytesIO(driver.screenshot())).convert("RGB")
    return tuple(picture.getpixel((picture.width // 2, picture.height - 40)))  # type: ignore[arg-type]


def test_dark_mode_switches_and_the_pictures_change_colour(phone: tuple[str, Driver, SimDevice]) -> None:
    _, driver, device = phone
    light = _corner(driver)
    assert driver.dark_mode() is False
    driver.set_dark_mode(True)
    assert device.dark is True and driver.dark_mode() is True
    dark = _corner(driver)
    assert sum(dark) < sum(light)  # the light ground is drawn dark
    driver.set_dark_mode(False)
    assert driver.dark_mode() is False and _corner(driver) == light


def test_a_recording_is_an_animated_picture_of_the_frames_shown(phone: tuple[str, Driver, SimDevice]) -> None:
    spec, driver, device = phone
    if spec in NO_RECORDING:
        with pytest.raises(Unsupported, match="recording"):
            driver.start_recording()
        return
    driver.start_recording()
    field = next(el for el in driver.observe() if (el.identifier or "").endswith("username"))
    driver.tap(*field.bounds.center)
    driver.type_text("qa")
    driver.observe()
    video = driver.stop_recording()
    movie = Image.open(io.BytesIO(video))
    assert movie.format == "PNG" and getattr(movie, "is_animated", False) and movie.n_frames >= 2
    assert device.recording is False


def test_media_lands_in_the_gallery(phone: tuple[str, Driver, SimDevice]) -> None:
    spec, driver, device = phone
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(picture, format="PNG")
    if spec in NO_MEDIA:
        with pytest.raises(Unsupported, match="photo library"):
            driver.add_media("cat.png", picture.getvalue())
        return
    driver.add_media("cat.png", picture.getvalue())
    assert device.gallery() == {"cat.png": picture.getvalue()}


def test_uiautomator2_turns_the_phone_as_maestro_does() -> None:
    """Through adb: accelerometer_rotation off, then user_rotation; the dump's `rotation`."""
    device = SimDevice("android", timing=INSTANT)
    driver = connect("sim+adb:android", device=device)
    try:
        driver.set_orientation("landscape_right")
        assert driver.observe().source is not None
        assert '<hierarchy rotation="3">' in (driver.observe().source or "")
    finally:
        driver.close()


def test_a_path_outside_the_flows_project_is_refused(tmp_path: Path) -> None:
    from ..helpers import amc, write_flow

    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    flow = write_flow(project, "appId: com.example.amc.demo\n---\n- assertScreenshot: ../secret.png\n")
    result = amc("check", flow)
    assert result.code == 2
    assert "assertScreenshot '../secret.png' lies outside the flow's project" in result.out
    flow = write_flow(project, "appId: com.example.amc.demo\n---\n- addMedia: [../secret.png]\n")
    result = amc("check", flow)
    assert result.code == 2 and "addMedia '../secret.png' lies outside the flow's project" in result.out
