"""The adb and uiautomator2 faces speak the real protocols: driven by adbutils and uiautomator2 themselves."""

from __future__ import annotations

import io

import adbutils
import pytest
import uiautomator2
from amc.core.models import Bounds, Scene
from amc.drivers.hierarchy import parse_source
from amc.sim.adb_face import U2_JAR, AdbFace
from amc.sim.device import SimDevice
from amc.sim.render_android import render_hierarchy
from amc.sim.scene import to_scene
from lxml import etree
from PIL import Image

from tests.drivers.u2.conftest import SERIAL

DEMO = "com.example.amc.demo"
SETTINGS = "com.android.settings"


# --- adb ------------------------------------------------------------------------------------


def test_version_and_listing_with_states(face: AdbFace, adb: adbutils.AdbClient) -> None:
    face.add_device(SimDevice("android", "R5CT20ABCDE"), state="unauthorized")
    face.add_device(SimDevice("android", "192.168.1.20:5555"), state="offline")
    assert adb.server_version() == 41
    assert [(d.serial, d.state) for d in adb.list()] == [
        (SERIAL, "device"),
        ("R5CT20ABCDE", "unauthorized"),
        ("192.168.1.20:5555", "offline"),
    ]
    extended = {d.serial: d.tags for d in adb.list(extended=True)}
    assert extended[SERIAL]["model"] == "sdk_gphone64_x86_64"
    assert extended[SERIAL]["transport_id"] == "1"
    assert extended["R5CT20ABCDE"] == {"transport_id": "2"}  # no product details until authorized
    assert [d.serial for d in adb.device_list()] == [SERIAL]
    assert face.faults.count("adb:host:devices") == 2 and face.faults.count("adb:host:devices-l") == 1


def test_transport_refusals_say_what_adb_says(face: AdbFace, adb: adbutils.AdbClient) -> None:
    face.add_device(SimDevice("android", "locked-1"), state="unauthorized")
    face.add_device(SimDevice("android", "cable-1"), state="offline")
    with pytest.raises(adbutils.AdbError, match="device unauthorized"):
        adb.device(serial="locked-1").shell("true")
    with pytest.raises(adbutils.AdbError, match="device offline"):
        adb.device(serial="cable-1").shell("true")
    with pytest.raises(adbutils.AdbError, match="device 'nope' not found"):
        adb.device(serial="nope").shell("true")
    # get-state picks its transport as a shell does (adb.cpp handle_host_request, transport.cpp
    # acquire_one_transport without accept_any_state): an offline phone is refused, not named
    with pytest.raises(adbutils.AdbError, match="device offline"):
        adb.device(serial="cable-1").get_state()
    face.set_state("cable-1", "device")
    assert adb.device(serial="cable-1").shell(["getprop", "ro.serialno"]) == "cable-1"


def test_shell_output_exit_codes_and_shell_v2(adb: adbutils.AdbClient, face: AdbFace) -> None:
    dev = adb.device(serial=SERIAL)
    assert dev.shell("echo hello") == "hello"
    assert dev.getprop("ro.build.version.sdk") == "34"
    ok = dev.shell2(["pm", "path", SETTINGS])
    assert ok.returncode == 0 and ok.output.startswith("package:/data/app/")
    missing = dev.shell2(["pm", "path", "com.example.missing"])
    assert (missing.returncode, missing.output) == (1, "")
    unknown = dev.shell2("frobnicate --now")
    assert unknown.returncode == 127 and "frobnicate: inaccessible or not found" in unknown.output
    v2 = dev.shell2("toybox md5sum /data/local/tmp/nothing", v2=True)
    assert v2.returncode == 1 and "No such file or directory" in v2.stdout
    assert "shell_v2" in dev.get_features()
    assert dev.window_size() == (1080, 2400)
    assert face.faults.count("adb:shell,v2:md5sum") == 1
    assert face.phone(SERIAL).shell.history[-2:] == ["wm size", "dumpsys display"]


def test_app_lifecycle_through_the_clients(u2: uiautomator2.Device, device: SimDevice, face: AdbFace) -> None:
    assert SETTINGS in u2.app_list() and "com.android.launcher3" in u2.app_list()
    face.faults.reset_counts()
    u2.app_start(SETTINGS)
    assert device.foreground() == SETTINGS
    current = u2.app_current()
    # Android 10+ prints no mCurrentFocus in `dumpsys window windows` and Android 12+ no
    # mResumedActivity: adbutils' app_current falls through to `dumpsys activity top` (3 dumps)
    assert (current["package"], current["activity"]) == (SETTINGS, ".Settings") and current["pid"] > 0
    assert face.faults.count("adb:shell:monkey") == 1 and face.faults.count("adb:shell:dumpsys") == 3
    assert face.phone(SERIAL).shell.history[-3:] == [
        "dumpsys window windows",
        "dumpsys activity activities",
        "dumpsys activity top",
    ]
    u2.app_start(DEMO, activity=".LoginActivity")  # am start -n PKG/ACT
    assert device.foreground() == DEMO
    u2.app_stop(DEMO)
    assert u2.app_current()["package"] == "com.android.launcher3"
    assert device.app_state(DEMO) == 1
    info = u2.app_info(SETTINGS)
    assert info == {"versionName": "14", "versionCode": 34}
    u2.app_start("com.example.missing")  # monkey aborts; nothing changes
    assert device.foreground() == "com.android.launcher3"


def test_app_current_falls_back_to_activity_dumps(adb: adbutils.AdbClient, face: AdbFace) -> None:
    dev = adb.device(serial=SERIAL)
    face.phone(SERIAL).device.launch(DEMO)
    top = dev.shell(["dumpsys", "activity", "top"])
    assert f"ACTIVITY {DEMO}/.LoginActivity" in top
    activities = dev.shell(["dumpsys", "activity", "activities"])
    assert "mResumedActivity:" not in activities  # gone from Android 12 on (the default is 14)
    assert "ResumedActivity: ActivityRecord{" in activities and "topResumedActivity=" in activities


def test_the_server_jar_is_pushed_when_missing_and_started_when_down(device: SimDevice) -> None:
    with AdbFace([device], u2_running=False, u2_installed=False) as face:
        client = adbutils.AdbClient(host=face.host, port=face.port)
        dev = uiautomator2.Device(client.device(serial=SERIAL))
        try:
            phone = face.phone(SERIAL)
            assert phone.shell.files[U2_JAR].size > 1_000_000  # pushed over sync:
            assert face.faults.count("adb:sync") >= 2  # stat, then send
            assert phone.u2.launches == 1 and phone.u2.running
            assert dev.info["displayWidth"] == 1080
        finally:
            dev.stop_uiautomator(wait=False)
        assert not phone.u2.running  # the server lived as long as the stream that started it


# --- uiautomator2 ---------------------------------------------------------------------------


def test_connecting_checks_the_jar_and_pings(face: AdbFace, u2: uiautomator2.Device) -> None:
    assert face.faults.count("adb:shell:md5sum") == 1
    assert face.faults.count("rpc:ping") == 1
    assert face.faults.count("adb:sync") == 0  # the md5 matched: no push
    assert face.phone(SERIAL).u2.launches == 0  # the server was already running


def test_dump_is_uiautomator2_xml(u2: uiautomator2.Device, device: SimDevice, face: AdbFace) -> None:
    device.launch(DEMO)
    face.faults.reset_counts()
    xml = u2.dump_hierarchy()
    assert face.requests("rpc:") == 1 and face.faults.count("rpc:dumpWindowHierarchy") == 1
    assert xml.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\">"
    )
    root = etree.fromstring(xml.encode("utf-8"))
    windows = root.findall("node")
    assert [w.get("package") for w in windows] == [DEMO, "com.android.systemui"]
    first = windows[0]
    assert list(first.attrib)[:6] == ["index", "text", "resource-id", "class", "package", "content-desc"]
    assert list(first.attrib)[-6:] == [
        "selected",
        "visible-to-user",
        "bounds",
        "drawing-order",
        "hint",
        "display-id",
    ]
    field = root.find(".//node[@resource-id='com.example.amc.demo:id/username']")
    assert field is not None
    assert (field.get("class"), field.get("hint"), field.get("bounds")) == (
        "android.widget.EditText",
        "Username",
        "[42,336][1038,504]",
    )


def test_dump_escapes_and_keeps_text(device: SimDevice) -> None:
    device.launch(SETTINGS)
    xml = render_hierarchy(device.tree())
    assert 'text="Network &amp; internet"' in xml
    texts = [n.get("text") for n in etree.fromstring(xml.encode()).iter("node")]
    assert "Network & internet" in texts


def test_parsed_dump_reads_entities_back_as_characters(u2: uiautomator2.Device, device: SimDevice) -> None:
    device.launch(SETTINGS)
    scene = parse_source(u2.dump_hierarchy(), platform="android")
    assert "Network & internet" in scene.texts()


def test_keyboard_and_dialog_are_windows_of_their_own(u2: uiautomator2.Device, device: SimDevice) -> None:
    device.launch(DEMO)
    device.tap(540, 420)  # focus the username field: the keyboard shows
    root = etree.fromstring(u2.dump_hierarchy().encode())
    assert [w.get("package") for w in root.findall("node")] == [
        DEMO,
        "com.android.systemui",
        "com.google.android.inputmethod.latin",
    ]
    u2(text="Sign in").click()  # no credentials: the app shows an error dialog in a window of its own
    root = etree.fromstring(u2.dump_hierarchy().encode())
    assert [w.get("package") for w in root.findall("node")] == [DEMO, DEMO, "com.android.systemui"]
    dialog = root.findall("node")[1]
    assert dialog.get("bounds") == "[66,915][1014,1485]" and dialog.get("index") == "0"
    assert parse_source(etree.tostring(root), platform="android").foreground_app == DEMO


def test_parsed_dump_matches_the_device_screen(u2: uiautomator2.Device, device: SimDevice) -> None:
    device.launch("com.android.deskclock")
    direct = to_scene(
        device.tree(),
        device_id=SERIAL,
        platform="android",
        foreground_app=device.foreground(),
        activity=None,
        window_size=device.window_size,
    )
    parsed = parse_source(u2.dump_hierarchy(), platform="android", device_id=SERIAL, backend="u2")
    assert parsed.foreground_app == "com.android.deskclock"
    assert parsed.window_size == device.window_size

    def shape(scene: Scene) -> list[tuple[str, Bounds, str | None, str | None, bool | None]]:
        windows = scene.root.children
        return [(e.type, e.bounds, e.text, e.identifier, e.checked) for w in windows for e in w.iter()]

    assert shape(parsed) == shape(direct)


def test_click_press_swipe_and_keys(u2: uiautomator2.Device, device: SimDevice, face: AdbFace) -> None:
    u2.app_start(SETTINGS)
    face.faults.reset_counts()
    u2.click(540, 294)  # the first row: Network & internet
    assert device.current_run().stack == ["main", "network"]  # type: ignore[union-attr]
    u2.press("back")
    assert device.current_run().stack == ["main"]  # type: ignore[union-attr]
    u2.swipe(540, 2000, 540, 1000, 0.1)
    assert device.current_run().scroll["main"] > 0  # type: ignore[union-attr]
    u2.long_click(540, 600, 0.5)
    u2.press(3)  # KEYCODE_HOME through pressKeyCode
    assert device.foreground() == "com.android.launcher3"
    assert face.faults.count("rpc:click") == 2 and face.faults.count("rpc:pressKey") == 1
    assert face.faults.count("rpc:pressKeyCode") == 1 and face.faults.count("rpc:swipe") == 1


def test_send_keys_goes_through_the_clipboard_without_adbkeyboard(
    u2: uiautomator2.Device, device: SimDevice, face: AdbFace
) -> None:
    face.phone(device.device_id).shell.input_methods.adb_keyboard = False
    u2.app_start(DEMO)
    u2.click(540, 420)
    face.faults.reset_counts()
    u2.send_keys("qa")
    assert device.current_run().values["username"] == "qa"  # type: ignore[union-attr]
    assert face.faults.count("adb:shell:ime") == 1  # no AdbKeyboard listed: the clipboard path
    assert [face.faults.count(f"rpc:{m}") for m in ("setClipboard", "getClipboard", "pasteClipboard")] == [
        1,
        1,
        1,
    ]


def test_selector_and_xpath_clicks(u2: uiautomator2.Device, device: SimDevice, face: AdbFace) -> None:
    u2.app_start(SETTINGS)
    face.faults.reset_counts()
    u2(text="Display").click()
    assert device.current_run().stack == ["main", "display"]  # type: ignore[union-attr]
    assert face.requests("rpc:") == 3  # waitForExists, objInfo, click
    assert [face.faults.count(f"rpc:{m}") for m in ("waitForExists", "objInfo", "click")] == [1, 1, 1]
    u2.press("back")
    face.faults.reset_counts()
    u2.xpath('//*[@text="Connected devices"]').click(timeout=1)
    assert device.current_run().stack == ["main", "connected"]  # type: ignore[union-attr]
    assert face.requests("rpc:") == 2  # dumpWindowHierarchy, click
    assert u2(resourceId="android:id/title", text="Pair new device").exists
    assert u2(textContains="Connection pref").get_text() == "Connection preferences"
    assert not u2(text="Nowhere").wait(timeout=0.1)
    with pytest.raises(uiautomator2.UiObjectNotFoundError):
        u2(text="Nowhere").click(timeout=0.1)


def test_screenshot_and_device_info(u2: uiautomator2.Device, device: SimDevice, face: AdbFace) -> None:
    image = u2.screenshot()
    assert image.size == (1080, 2400)
    raw = io.BytesIO()
    image.save(raw, format="PNG")
    assert Image.open(io.BytesIO(raw.getvalue())).format == "PNG"
    assert face.faults.count("rpc:takeScreenshot") == 1
    info = u2.info
    assert (info["displayWidth"], info["displayHeight"], info["sdkInt"]) == (1080, 2400, 34)
    assert info["currentPackageName"] == "com.android.launcher3"


def test_unknown_rpc_method_is_a_jsonrpc_error(u2: uiautomator2.Device) -> None:
    with pytest.raises(uiautomator2.exceptions.RPCUnknownError, match="Method not found"):
        u2.jsonrpc.noSuchMethod()
