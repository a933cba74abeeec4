"""What uiautomator2's own device tests check (``demo_tests`` at uiautomator2 3.7.0, written for a
phone running ``com.example.u2testdemo``; they do not ship on the package index), checked here
through the real uiautomator2 client against the adb face, the demo app played by its stand-in
(:func:`amc.sim.catalog_peers.u2_demo_app`). Each test names the one it follows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import adbutils
import pytest
import uiautomator2 as u2
from amc.sim.adb_face import AdbFace
from amc.sim.catalog import catalog
from amc.sim.catalog_peers import U2_DEMO, u2_demo_app
from amc.sim.device import SimDevice
from PIL import Image

SERIAL = "emulator-5554"


@pytest.fixture
def face() -> Iterator[AdbFace]:
    demo = u2_demo_app()
    device = SimDevice("android", SERIAL, apps={**catalog("android"), demo.app_id: demo})
    with AdbFace([device]) as running:
        yield running


@pytest.fixture
def d(face: AdbFace) -> Iterator[u2.Device]:
    dev = u2.Device(adbutils.AdbClient(host=face.host, port=face.port).device(serial=SERIAL))
    dev.press("home")
    yield dev
    dev.stop_uiautomator(wait=False)


@pytest.fixture
def app(d: u2.Device) -> u2.Device:
    d.app_start(U2_DEMO, stop=True)
    assert d(text="Addition").wait(timeout=5)
    return d


def _server_pid(d: u2.Device) -> int | None:
    """test_core.get_app_process_pid: the pid of app_process in ``ps -u shell``."""
    for line in d.shell("ps -u shell").output.splitlines():
        fields = line.split()
        if fields and fields[-1] == "app_process":
            return int(fields[1])
    return None


# --- demo_tests/test_app.py -----------------------------------------------------------------


def test_wait_activity(d: u2.Device) -> None:
    d.app_start(U2_DEMO, activity=".AdditionActivity", wait=True)
    assert d.wait_activity(".AdditionActivity", timeout=3)
    assert not d.wait_activity(".NotExistActivity", timeout=1)


def test_app_wait_start_stop_clear_info(app: u2.Device) -> None:
    assert app.app_wait(U2_DEMO, front=True)
    assert U2_DEMO in app.app_list()
    app.app_stop(U2_DEMO)
    assert U2_DEMO not in app.app_list_running()
    app.app_start(U2_DEMO, wait=True)
    assert U2_DEMO in app.app_list_running()
    app.app_clear(U2_DEMO)
    assert app.app_info(U2_DEMO)
    with pytest.raises(u2.AppNotFoundError):
        app.app_info("not.exist.package")


def test_session_restart_gets_a_new_pid(d: u2.Device) -> None:
    session = d.session(U2_DEMO)
    assert session.running() is True
    old_pid = session.pid
    assert old_pid > 0
    session.restart()
    assert session.pid != old_pid
    with session:
        assert session(text="Addition").info["text"] == "Addition"


# --- demo_tests/test_core.py ----------------------------------------------------------------


def test_uiautomator_keeper(d: u2.Device) -> None:
    d.info  # noqa: B018 - starts the server
    pid = _server_pid(d)
    assert pid is not None
    d.shell(f"kill {pid}")
    time.sleep(0.2)
    assert _server_pid(d) is None
    d.start_uiautomator()
    assert (_server_pid(d) or 0) > 0
    d.stop_uiautomator()
    assert _server_pid(d) is None


# --- demo_tests/test_device.py --------------------------------------------------------------


def test_info_and_hierarchy(d: u2.Device, tmp_path: Path) -> None:
    assert d.info["screenOn"] is True and d.device_info["serial"] == SERIAL
    assert d.wlan_ip == "10.0.2.16"
    w, h = d.window_size()
    assert (w, h) == (1080, 2400)
    assert d.dump_hierarchy().startswith("<?xml")
    assert d.dump_hierarchy(compressed=True, pretty=True).startswith("<?xml")
    assert isinstance(d.screenshot(), Image.Image)
    d.screenshot(tmp_path / "screenshot.png")
    assert (tmp_path / "screenshot.png").exists()


def test_click_long_click_double_click(app: u2.Device) -> None:
    app.click(1, 1)
    app.long_click(1, 1)
    app.click(0.5, 0.5)
    app.double_click(1, 1)
    app(text="Addition").long_click()  # a long press on a button is a press: it opens the screen
    assert app(text="Add").wait(timeout=2)


def test_swipe_and_drag(app: u2.Device) -> None:
    app.swipe(1, 1, 2, 2, steps=20)
    app.swipe(1, 1, 2, 2, duration=0.1)
    app.swipe(1, 1, 2, 2)
    with pytest.warns(UserWarning):
        app.swipe(1, 1, 2, 2, 0.1, 20)
    app.swipe_points([(1, 1), (2, 2)], duration=0.1)
    app.drag(1, 1, 2, 2, duration=0.1)
    for direction in ("up", "down", "left", "right"):
        app.swipe_ext(direction)
    bounds = app.xpath("@android:id/content").get().bounds
    app.swipe_ext("up", box=bounds)


def test_press_screen_and_orientation(d: u2.Device) -> None:
    d.press("volume_down")
    d.press(3)
    d.long_press("volume_down")
    d.long_press(25)
    d.keyevent("volume_down")
    d.screen_off()
    assert d.info["screenOn"] is False
    d.screen_on()
    assert d.info["screenOn"] is True
    with pytest.raises(ValueError):
        d.orientation = "unknown"
    d.orientation = "l"
    assert d.orientation == "left"
    d.orientation = "n"
    assert d.orientation == "natural"
    d.freeze_rotation(True)
    d.freeze_rotation(False)
    assert d.last_traversed_text is None
    d.clear_traversed_text()


def test_notification_shade_and_url(d: u2.Device) -> None:
    d.open_notification()
    assert d(resourceId="com.android.systemui:id/notification_panel").exists
    d.press("back")
    assert not d(resourceId="com.android.systemui:id/notification_panel").exists
    d.open_quick_settings()
    assert d(resourceId="com.android.systemui:id/quick_settings_panel").exists
    d.press("home")
    d.open_url("amcdemo://login")
    assert d.app_current()["package"] == "com.example.amc.demo"


def test_toast(app: u2.Device) -> None:
    app.clear_toast()
    assert app.last_toast is None
    app(text="Toast").click()
    app(text="Show Toast").click()
    app.sleep(0.2)
    assert app.last_toast == "Button Clicked!"
    app.clear_toast()
    assert app.last_toast is None


def test_clipboard_and_push_pull(d: u2.Device, tmp_path: Path) -> None:
    d.set_input_ime()
    d.clipboard = "n123"
    assert d.clipboard == "n123"
    src = tmp_path / "test_push.txt"
    src.write_text("12345")
    d.push(src, "/data/local/tmp/test_push.txt")
    dst = tmp_path / "test_pull.txt"
    d.pull("/data/local/tmp/test_push.txt", dst)
    assert dst.read_text() == "12345"


# --- demo_tests/test_input.py ---------------------------------------------------------------


def test_send_keys_adds_two_numbers(app: u2.Device) -> None:
    app.set_input_ime(True)
    app(text="Addition").click()
    num1 = app(className="android.widget.EditText", instance=0)
    num2 = app(className="android.widget.EditText", instance=1)
    num1.set_text("5")
    assert num1.get_text() == "5"
    num1.clear_text()
    assert num1.get_text() in ("", "Enter first number")  # an empty EditText shows its hint
    num1.set_text("1")
    num2.click()
    for chars in ("1", "123abcDEF +-*/_", "你好\uff0c世界!"):  # the test's own string, its comma full-width
        app.send_keys(chars, clear=True)
        assert num2.get_text() == chars
    app.clear_text()
    app.send_keys("2")
    app(text="Add").click()
    assert app(className="android.widget.EditText", instance=2).get_text() == "3"


# --- demo_tests/test_selector.py ------------------------------------------------------------


def test_selector_exists_info_center_screenshot(app: u2.Device) -> None:
    assert app(text="Addition").exists
    assert app(text="Addition").exists(timeout=0.1)
    assert not app(text="should-not-exists").exists
    assert not app(text="should-not-exists").exists(timeout=0.1)
    assert app(text="Addition").info["text"] == "Addition"
    lx, ly, rx, ry = app(text="Addition").bounds()
    assert app(text="Addition").screenshot().size == (rx - lx, ry - ly)
    x, y = app(text="Addition").center()
    assert x > 0 and y > 0


def test_click_exists_and_wait_gone(app: u2.Device) -> None:
    assert app(text="Addition").click_exists()
    assert app(text="Addition").wait_gone()
    assert not app(text="should-not-exists").click_exists()


def test_child_selectors(app: u2.Device) -> None:
    content = app(resourceId="android:id/content")
    assert content.child_selector(text="Toast").exists
    assert content.child_by_text("Pinch", className="android.widget.Button").info["text"] == "Pinch"
    assert content.child_by_instance(0).exists
    with pytest.raises(u2.UiObjectNotFoundError):
        content.child_by_description("should-not-exists")


@pytest.mark.parametrize("direction", ["up", "down", "left", "right"])
def test_swipe_an_object(app: u2.Device, direction: str) -> None:
    app(resourceId="android:id/content").swipe(direction)


def test_pinch_and_gesture_are_performed(app: u2.Device) -> None:
    app(text="Pinch").click()
    image: Any = app(description="pinch image")
    assert image.wait(timeout=2)
    image.pinch_in(80)
    image.pinch_out()
    app().gesture((0.1, 0.5), (0.9, 0.5), (0.5, 0.5), (0.5, 0.5), steps=20)
    assert app(textStartsWith="Scale").get_text() == "Scale: 1.00"  # the stand-in does not zoom


# --- every JSON-RPC method the client calls ------------------------------------------------


def _client_methods() -> set[str]:
    """The JSON-RPC methods the installed uiautomator2 client calls: ``jsonrpc.NAME`` and
    ``jsonrpc_call("NAME"`` in every module of its source."""
    import re
    from importlib.resources import files

    called: set[str] = set()
    for path in files("uiautomator2").iterdir():
        if path.name.endswith(".py"):
            text = path.read_text(encoding="utf-8")
            called |= set(re.findall(r"\bjsonrpc\.([A-Za-z_]+)", text))
            called |= set(re.findall(r"jsonrpc_call\(['\"]([A-Za-z_]+)", text))
    return called


def test_the_face_serves_every_method_uiautomator2_calls(face: AdbFace) -> None:
    called = _client_methods()
    assert len(called) >= 50  # uiautomator2 3.7.1 calls 52
    server = face.phone(SERIAL).u2
    unknown = sorted(m for m in called if m not in server.methods())
    assert unknown == []
