"""The adb face's host services through adbutils: serials with a colon, forwards that reach the
uiautomator2 server, reverse forwards, and the device list tracked as it changes."""

from __future__ import annotations

import urllib.request

import adbutils
import pytest
from amc.sim.adb_face import AdbFace
from amc.sim.adb_host import split_host_serial
from amc.sim.device import SimDevice


@pytest.mark.parametrize(
    ("rest", "serial", "command"),
    [
        ("emulator-5554:features", "emulator-5554", "features"),
        ("127.0.0.1:5555:get-state", "127.0.0.1:5555", "get-state"),
        ("127.0.0.1:5555:forward:tcp:1;tcp:2", "127.0.0.1:5555", "forward:tcp:1;tcp:2"),
        ("emulator-5554:forward:tcp:11221;tcp:7912", "emulator-5554", "forward:tcp:11221;tcp:7912"),
        ("tcp:10.0.0.2:5555:get-serialno", "tcp:10.0.0.2:5555", "get-serialno"),
        ("usb:1-1.2:get-state", "usb:1-1.2", "get-state"),
    ],
)
def test_a_serial_is_split_where_adb_splits_it(rest: str, serial: str, command: str) -> None:
    assert split_host_serial(rest) == (serial, command)


def test_a_wireless_serial_is_served_whole() -> None:
    with AdbFace([SimDevice("android", "127.0.0.1:5555")]) as face:
        device = adbutils.AdbClient(host=face.host, port=face.port).device(serial="127.0.0.1:5555")
        assert device.get_state() == "device" and device.get_serialno() == "127.0.0.1:5555"


def test_a_forward_reaches_the_uiautomator2_server_and_is_listed() -> None:
    with AdbFace([SimDevice("android", "emulator-5554")]) as face:
        device = adbutils.AdbClient(host=face.host, port=face.port).device(serial="emulator-5554")
        port = device.forward_port(9008)
        assert any(f.remote == "tcp:9008" and f.local == f"tcp:{port}" for f in device.forward_list())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ping", timeout=5) as reply:
            assert reply.read() == b"pong"
        device.reverse("tcp:12345", "tcp:4000")
        assert [(r.remote, r.local) for r in device.reverse_list()] == [("tcp:12345", "tcp:4000")]


def test_the_device_list_is_tracked_as_it_changes() -> None:
    with AdbFace([SimDevice("android", "emulator-5554")]) as face:
        events = adbutils.AdbClient(host=face.host, port=face.port).track_devices()
        first = next(events)
        assert (first.serial, first.status, first.present) == ("emulator-5554", "device", True)
        face.set_state("emulator-5554", "offline")
        changed = {(e.serial, e.status, e.present) for e in (next(events), next(events))}
        # adbutils reports a changed line as the old one gone and the new one present
        assert changed == {("emulator-5554", "absent", False), ("emulator-5554", "offline", True)}
