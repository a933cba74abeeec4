"""Every face serves the drawn screen, in the format its real server sends, to the real client."""

from __future__ import annotations

import base64
import io
import json
import urllib.request

import adbutils
import pytest
import uiautomator2
from amc.drivers.connect import connect
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace
from PIL import Image, ImageChops

APPS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}


def _pixels(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def _mean_difference(a: Image.Image, b: Image.Image) -> float:
    small = (a.width // 8, a.height // 8)
    diff = ImageChops.difference(a.resize(small), b.resize(small)).convert("L")
    return sum(diff.get_flattened_data()) / (small[0] * small[1])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("sim+wda:ios", "PNG"),
        ("sim+adb:android", "JPEG"),  # uiautomator2's takeScreenshot answers a JPEG
        ("sim+appium:android", "PNG"),
        ("sim+appium:ios", "PNG"),
    ],
)
def test_the_adapter_gets_the_drawn_screen_over_the_wire(spec: str, kind: str) -> None:
    platform = spec.rsplit(":", 1)[1]
    device = SimDevice("android" if platform == "android" else "ios")
    driver = connect(spec, device=device)
    try:
        driver.launch_app(APPS[platform])
        data = driver.screenshot()
    finally:
        driver.close()
    image = Image.open(io.BytesIO(data))
    assert image.format == kind
    drawn = _pixels(device.screenshot_png())
    assert image.size == drawn.size == ((1080, 2400) if platform == "android" else (1170, 2532))
    if kind == "PNG":
        assert image.convert("RGB").tobytes() == drawn.tobytes()
    else:
        assert _mean_difference(image.convert("RGB"), drawn) < 3


def test_wda_answers_base64_png_in_pixels_while_the_window_is_in_points() -> None:
    device = SimDevice("ios")
    with WdaFace(device) as face:
        with urllib.request.urlopen(f"{face.url}/screenshot", timeout=5) as reply:
            body = json.loads(reply.read())
        with urllib.request.urlopen(f"{face.url}/window/size", timeout=5) as reply:
            size = json.loads(reply.read())["value"]
    picture = Image.open(io.BytesIO(base64.b64decode(body["value"])))
    assert picture.format == "PNG" and picture.size == (size["width"] * 3, size["height"] * 3)


def test_adb_screencap_is_an_rgba_png_and_uiautomator2_reads_the_jpeg() -> None:
    device = SimDevice("android")
    device.launch(APPS["android"])
    with AdbFace([device]) as face:
        adb = adbutils.AdbClient(host=face.host, port=face.port).device(serial=device.device_id)
        raw = adb.shell(["screencap", "-p"], encoding=None)
        via_adbutils = adb.screenshot()  # adbutils' own path: screencap -p, RGBA converted to RGB
        u2 = uiautomator2.Device(adb)
        try:
            via_u2 = u2.screenshot()  # takeScreenshot(1, 80): a base64 JPEG
        finally:
            u2.stop_uiautomator(wait=False)
    assert isinstance(raw, bytes)
    png = Image.open(io.BytesIO(raw))
    assert png.format == "PNG" and png.mode == "RGBA"
    drawn = _pixels(device.screenshot_png())
    assert via_adbutils.tobytes() == drawn.tobytes()
    assert via_u2.size == drawn.size and _mean_difference(via_u2.convert("RGB"), drawn) < 3
