"""Discovery reads adb's listings as adb writes them (transport.cpp append_transport): a serial with
spaces (a wireless-debugging phone found by mDNS) and a state with spaces (``no permissions (…)``)
come out whole, and such a phone is driven or refused by its full serial."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from amc.core.errors import DeviceOffline
from amc.drivers.connect import connect
from amc.drivers.u2 import U2Driver, discover_android
from amc.drivers.u2.listing import parse_listing
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice

MDNS = "adb-R5CT20ABCDE-Xy12Zq (2)._adb-tls-connect._tcp"
NO_PERMISSIONS = (
    "no permissions (user in plugdev group; are your udev rules wrong?); "
    "see [http://developer.android.com/tools/device.html]"
)


def _long(serial: str, state: str, *parts: str) -> str:
    """A long line as adb writes it: "%-22s %s", then each detail after a space."""
    return f"{serial:<22} {state}" + "".join(f" {p}" for p in parts)


def test_serials_and_states_with_spaces_are_read_whole() -> None:
    short = "".join(
        f"{s}\t{st}\n"
        for s, st in (
            ("emulator-5554", "device"),
            (MDNS, "device"),
            ("R5CT20ABCDE", NO_PERMISSIONS),
            ("192.168.1.20:5555", "offline"),
            ("(no serial number)", "unauthorized"),
        )
    )
    long = "\n".join(
        [
            _long(
                "emulator-5554",
                "device",
                "product:sdk_gphone64_x86_64",
                "model:sdk_gphone64_x86_64",
                "device:emu64x",
                "transport_id:1",
            ),
            _long(MDNS, "device", "product:a53xnaxx", "model:SM_A536B", "device:a53x", "transport_id:4"),
            _long("R5CT20ABCDE", NO_PERMISSIONS, "usb:1-4", "transport_id:5"),
            _long("192.168.1.20:5555", "offline", "transport_id:6"),
            _long("(no serial number)", "unauthorized", "usb:1-2", "transport_id:7"),
        ]
    )
    listed = {item.serial: item for item in parse_listing(short, long)}
    assert list(listed) == ["emulator-5554", MDNS, "R5CT20ABCDE", "192.168.1.20:5555", "(no serial number)"]
    assert (
        listed[MDNS].state == "device"
        and listed[MDNS].describe() == "model:SM_A536B product:a53xnaxx device:a53x"
    )
    assert listed[MDNS].details["transport_id"] == "4"
    assert listed["R5CT20ABCDE"].state == NO_PERMISSIONS
    assert listed["R5CT20ABCDE"].details == {"devpath": "usb:1-4", "transport_id": "5"}
    assert listed["192.168.1.20:5555"].details == {"transport_id": "6"}


def test_a_serial_that_begins_another_takes_only_its_own_line() -> None:
    short = "abc\tdevice\nabc def\toffline\n"
    long = (
        _long("abc", "device", "model:A", "transport_id:1")
        + "\n"
        + _long("abc def", "offline", "transport_id:2")
    )
    listed = {i.serial: i for i in parse_listing(short, long)}
    assert listed["abc"].details["model"] == "A" and listed["abc def"].details == {"transport_id": "2"}


def test_a_device_missing_from_the_long_listing_is_still_listed() -> None:
    assert [(i.serial, i.state, i.details) for i in parse_listing("x y\tdevice\n", "")] == [
        ("x y", "device", {})
    ]


@pytest.fixture
def face() -> Iterator[AdbFace]:
    with AdbFace([SimDevice("android", MDNS)]) as served:
        served.add_device(SimDevice("android", "R5CT20ABCDE"), state=NO_PERMISSIONS)
        yield served


def test_discovery_over_the_wire_keeps_an_mdns_serial_and_a_no_permissions_state(face: AdbFace) -> None:
    found = discover_android(
        {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
    )
    assert [(d.spec, d.state, d.usable) for d in found] == [
        (f"android:{MDNS}", "device", True),
        ("android:R5CT20ABCDE", NO_PERMISSIONS, False),
    ]


def test_the_mdns_phone_is_driven_by_its_full_serial(face: AdbFace) -> None:
    driver = connect(f"android:{MDNS}", adb_host=face.host, adb_port=face.port, timeout=2.0)
    try:
        assert isinstance(driver, U2Driver) and driver.device_id == MDNS
        driver.launch_app("com.android.settings")
        assert face.phone(MDNS).device.foreground() == "com.android.settings"
    finally:
        driver.close()


def test_a_phone_without_usb_permissions_is_offline_with_the_udev_fix(face: AdbFace) -> None:
    with pytest.raises(DeviceOffline) as caught:
        connect("android:R5CT20ABCDE", adb_host=face.host, adb_port=face.port, timeout=2.0)
    error = caught.value
    assert error.state == "no permissions" and "udev rules wrong" in error.message
    assert error.hint is not None and "udev rule" in error.hint and not error.transient


def test_amc_doctor_gives_the_fix_adb_s_reason_points_at(face: AdbFace) -> None:
    from amc.cli.doctor import check_adb_devices

    check = check_adb_devices(
        {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
    )
    assert check.status == "fail" and check.detail == f"R5CT20ABCDE is {NO_PERMISSIONS}"
    assert check.fix is not None and "udev rule" in check.fix
