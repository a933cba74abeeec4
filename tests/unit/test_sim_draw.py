"""The simulated device draws its screen from its layout: the picture and the Scene agree.

Every check reads pixels of the PNG a driver returns and compares them with the Scene the same
driver observed (through the platform's real dump format), never with the painter's own numbers.
"""

from __future__ import annotations

import io

import pytest
from amc.connect.simulated import SimDriver
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector, tap_point
from amc.sim import DEMO_APP, DEMO_PASSWORD, SimDevice
from amc.sim.draw_canvas import printable
from PIL import Image, ImageChops

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SCALE = {"android": 1, "ios": 3}
SYSTEMUI = "com.android.systemui"


def _picture(driver: SimDriver) -> Image.Image:
    data = driver.screenshot()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return Image.open(io.BytesIO(data)).convert("RGB")


def _crop(image: Image.Image, b: Bounds, scale: int) -> Image.Image:
    return image.crop((b.left * scale, b.top * scale, b.right * scale, b.bottom * scale))


def _ink(region: Image.Image) -> Bounds | None:
    """Where the pixels that differ from the region's most common colour are (region pixels)."""
    colours = region.getcolors(region.width * region.height) or []
    background = max(colours)[1]
    diff = ImageChops.difference(region, Image.new("RGB", region.size, background)).convert("L")
    box = diff.point(lambda v: 255 if v > 24 else 0).getbbox()
    return None if box is None else Bounds(*box)


def _text_elements(scene: Scene) -> list[UIElement]:
    out = []
    for el in scene:
        if el.type.endswith("Switch"):
            continue  # drawn as a switch: its text is the state (Android) or the row's label (iOS)
        drawn = el.visible and not el.children and el.display_text and not el.bounds.is_empty()
        if drawn and scene.window.intersection(el.bounds) == el.bounds:
            out.append(el)
    return out


def _settings(platform: str) -> tuple[SimDriver, Scene, Image.Image]:
    driver = SimDriver("android" if platform == "android" else "ios")
    driver.launch_app(SETTINGS[platform])
    return driver, driver.observe(), _picture(driver)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_settings_screenshot_is_the_screen_size_and_shows_every_text_where_the_scene_puts_it(
    platform: str,
) -> None:
    _driver, scene, image = _settings(platform)
    scale = SCALE[platform]
    width, height = scene.window_size
    assert image.size == (width * scale, height * scale)
    checked = 0
    for el in _text_elements(scene):
        b = el.bounds
        if b.height < 20:  # a sliver at the list's edge
            continue
        ink = _ink(_crop(image, b, scale))
        assert ink is not None, f"nothing drawn for {el.display_text!r} at {b}"
        # One line of text: its ink is wider than tall, and wider for longer texts.
        text = el.display_text or ""
        if len(text) >= 4:
            assert ink.width > ink.height, (text, ink)
            assert ink.width >= len(text) * b.height * scale * 0.12, (text, ink, b)
        checked += 1
    assert checked >= 12
    # Recognisably Settings: the title bar says so, and the rows are drawn top to bottom.
    title = scene.find(Selector(text="Settings"))
    assert title is not None and title.bounds.top < 150
    assert _ink(_crop(image, title.bounds, scale)) is not None


def test_on_android_nothing_is_drawn_outside_the_bars_and_the_rows() -> None:
    _driver, scene, image = _settings("android")
    allowed = [
        el.bounds
        for el in scene
        if el.identifier
        in ("com.android.systemui:id/status_bar_container", "com.android.settings:id/toolbar")
        or (el.clickable and el.type == "android.widget.LinearLayout")
    ]
    assert len(allowed) >= 10
    background = image.getpixel((5, 1000))
    small = image.resize((image.width // 6, image.height // 6), Image.Resampling.NEAREST)
    for y in range(small.height):
        for x in range(small.width):
            if small.getpixel((x, y)) == background:
                continue
            px, py = x * 6, y * 6
            assert any(b.contains(px, py) for b in allowed), f"ink at {(px, py)} outside every row and bar"


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_secure_field_shows_one_dot_per_character_and_never_the_text(platform: str) -> None:
    driver = SimDriver("android" if platform == "android" else "ios")
    driver.launch_app(DEMO_APP)
    scene = driver.observe()
    field = scene.find(Selector(id="password"))
    assert field is not None
    driver.tap(*tap_point(field, scene.window))
    driver.type_text(DEMO_PASSWORD)
    driver.press("enter")  # leave the field: no caret, no keyboard
    scene = driver.observe()
    field = scene.find(Selector(id="password"))
    assert field is not None and (field.password or field.type.endswith("SecureTextField"))
    scale = SCALE[platform]
    region = _crop(_picture(driver), field.bounds, scale)
    row = region.height // 2
    dark = [sum(region.getpixel((x, row))) < 200 for x in range(region.width)]
    starts = [x for x in range(1, len(dark)) if dark[x] and not dark[x - 1]]
    assert len(starts) == len(DEMO_PASSWORD)
    widths = [next(i for i in range(x, len(dark)) if not dark[i]) - x for x in starts]
    # Dots, not characters: every mark is as tall as it is wide, and all are the same size.
    marks = region.convert("L").point(lambda v: 255 if v < 70 else 0).getbbox()
    assert marks is not None and marks[3] - marks[1] <= max(widths) * 1.3
    assert max(widths) - min(widths) <= 2 * scale


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_keyboard_and_an_alert_are_drawn_when_the_scene_has_them(platform: str) -> None:
    driver = SimDriver("android" if platform == "android" else "ios")
    driver.launch_app(DEMO_APP)
    scale = SCALE[platform]
    before = _picture(driver)
    scene = driver.observe()
    user = scene.find(Selector(id="username"))
    assert user is not None
    driver.tap(*tap_point(user, scene.window))
    typing = _picture(driver)
    width, height = scene.window_size
    bottom = Bounds(0, height * 3 // 4, width, height - 40)
    assert _ink(_crop(before, bottom, scale)) is None  # an empty screen below the form
    assert _ink(_crop(typing, bottom, scale)) is not None  # the keyboard's keys
    driver.type_text("qa")
    driver.press("enter")
    scene = driver.observe()
    sign_in = scene.find(Selector(text="Sign in"))
    assert sign_in is not None
    driver.tap(*tap_point(sign_in, scene.window))  # no password: the app shows an alert
    scene = driver.observe()
    alerted = _picture(driver)
    message = scene.find(Selector(text="Invalid username or password."))
    assert message is not None
    assert _ink(_crop(alerted, message.bounds, scale)) is not None
    # Around the alert the screen is dimmed.
    corner = (10 * scale, (height - 120) * scale)
    assert sum(alerted.getpixel(corner)) < sum(before.getpixel(corner)) - 60


def test_the_same_screen_gives_the_same_bytes_and_another_screen_other_pixels() -> None:
    device = SimDevice("android")
    home = device.screenshot_png()
    assert device.screenshot_png() is home  # drawn once while nothing changed
    device.launch("com.android.settings")
    settings = device.screenshot_png()
    assert settings != home
    other = SimDevice("android")
    other.launch("com.android.settings")
    assert other.screenshot_png() == settings  # deterministic: the same screen, the same picture


def test_jpeg_and_rgba_forms_are_the_same_picture() -> None:
    device = SimDevice("android")
    device.launch("com.android.settings")
    png = Image.open(io.BytesIO(device.screenshot_png())).convert("RGB")
    rgba = Image.open(io.BytesIO(device.screenshot_png(alpha=True)))
    jpeg = Image.open(io.BytesIO(device.screenshot_jpeg(80)))
    assert rgba.mode == "RGBA" and rgba.convert("RGB").tobytes() == png.tobytes()
    assert jpeg.format == "JPEG" and jpeg.size == png.size
    small_png, small_jpeg = png.resize((108, 240)), jpeg.convert("RGB").resize((108, 240))
    diff = sum(
        abs(a - b)
        for pa, pb in zip(small_png.get_flattened_data(), small_jpeg.get_flattened_data(), strict=True)
        for a, b in zip(pa, pb, strict=True)
    )
    assert diff / (108 * 240 * 3) < 6
    with pytest.raises(ValueError, match="quality"):
        device.screenshot_jpeg(0)


def test_characters_the_font_lacks_are_drawn_as_their_ascii_form() -> None:
    assert printable("Wi\u2011Fi Caf\u00e9 \u201cok\u201d") == "Wi-Fi Cafe \u201cok\u201d"
    assert printable("\U0001f600") == "?"
