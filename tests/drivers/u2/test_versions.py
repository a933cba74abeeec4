"""Issue 41, item 1: the uiautomator2 adapter against every adb server release the face plays.

Each release in :data:`amc.sim.versions.ADB_SERVERS` (from the ``1:8.1.0+r23`` package Debian 11 and
Ubuntu 20.04 still ship, ADB_SERVER_VERSION 39, to today's platform-tools) answers as its source
does: its version, its features, a long listing with or without ``transport_id``, ``host:tport``
refused with ``unknown host service`` before 41. The adapter asks (``host:version``,
``host:host-features``, the phone's features) and drives the phone through each; discovery lists it.
The issue's "server older than its client" reproduced: before ADB_SERVER_VERSION 40 the long
listing has no ``transport_id``, so the line of a phone that is not online is its serial and state
alone, and discovery ended with a ``ValueError`` (the listing's parser assumed a key on every long
line); an answer it did not expect (a version or a block length that is not hex) ended it with a
``ValueError`` from inside adbutils. Both are read, or a typed error, now.
"""

from __future__ import annotations

import pytest
from amc.core.errors import DeviceError
from amc.drivers.connect import connect, discover
from amc.drivers.u2 import U2Driver
from amc.drivers.u2.adb import HarnessAdbClient
from amc.drivers.u2.listing import parse_listing
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.faults import Answer
from amc.sim.versions import ADB_SERVERS, ADBD_FEATURES, AdbServer, adbd_features

SERIAL = "emulator-5554"
APP = "com.android.settings"


@pytest.mark.parametrize("key", list(ADB_SERVERS))
def test_the_adapter_drives_the_phone_through_every_adb_server(key: str) -> None:
    server = ADB_SERVERS[key]
    driver = connect(f"sim+adb:android?adb={key}", timing="instant", device_id=SERIAL)
    assert isinstance(driver, U2Driver)
    try:
        driver.launch_app(APP)
        assert driver.current_app() == APP
        assert "Network & internet" in driver.observe().texts()
        adb = driver._adb_device()
        client: HarnessAdbClient = adb._client
        assert client.server_version() == server.version
        assert client.host_features() == frozenset(server.features)
        assert adb.adbd_features() == frozenset(ADBD_FEATURES[34])
        for feature in ("shell_v2", "stat_v2", "ls_v2", "abb_exec", "sendrecv_v2"):
            assert adb.can_use(feature) == server.supports(feature, 34), feature
    finally:
        driver.close()


@pytest.mark.parametrize("key", list(ADB_SERVERS))
def test_discovery_lists_the_phone_on_every_adb_server(key: str) -> None:
    server = ADB_SERVERS[key]
    with AdbFace([SimDevice("android", SERIAL)], server=server) as face:
        environ = {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
        found = [info for info in discover(environ) if info.backend == "u2"]
        long = face.listing(long=True)
        refused = face.faults.count("adb:unknown")
    assert [(i.spec, i.state) for i in found] == [(f"android:{SERIAL}", "device")]
    assert ("transport_id:" in long) == server.lists_transport_id
    assert refused == 0  # nothing asked that this server does not know


def test_an_old_server_refuses_tport_with_adbs_words_and_the_client_never_sends_it() -> None:
    old = ADB_SERVERS["27"]
    with AdbFace([SimDevice("android", SERIAL)], server=old) as face:
        client = HarnessAdbClient(face.host, face.port, timeout=3)
        with client.make_connection() as conn:
            conn.send_command(f"host:tport:serial:{SERIAL}")
            with pytest.raises(Exception, match=r"^unknown host service$"):
                conn.check_okay()
        assert client.device(SERIAL).shell("echo hi") == "hi"  # through host:transport


class _TportRefused(AdbServer):
    """A server that says 41 but refuses host:tport (an adb server of another kind at the port)."""

    @property
    def has_tport(self) -> bool:
        return False


def test_a_server_that_refuses_tport_despite_its_version_is_asked_with_transport() -> None:
    odd = _TportRefused("odd", "?", 41, "another implementation", 34)
    with AdbFace([SimDevice("android", SERIAL)], server=odd) as face:
        client = HarnessAdbClient(face.host, face.port, timeout=3)
        device = client.device(SERIAL)
        assert device.shell("echo hi") == "hi"
        assert client.server_version() == 40  # host:transport from now on
        assert face.faults.count("adb:unknown") == 1  # the one refusal, not one per command


def test_a_server_without_a_long_listing_is_read_from_the_short_one() -> None:
    with AdbFace([SimDevice("android", SERIAL)]) as face:

        def refuse(answer: Answer) -> Answer:
            if answer.route == "adb:host:devices-l":
                return Answer(answer.route, b"FAIL0014unknown host service")
            return answer

        face.faults.set_rewrite(refuse)
        environ = {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
        found = [info.spec for info in discover(environ) if info.backend == "u2"]
    assert found == [f"android:{SERIAL}"]


@pytest.mark.parametrize(
    ("route", "reply"),
    [
        ("adb:host:version", b"OKAY0000"),
        ("adb:host:version", b"OKAYzzzz"),
        ("adb:host:devices", b"OKAY0x1\xffab"),
    ],
)
def test_a_reply_that_breaks_adbs_framing_is_a_typed_error(route: str, reply: bytes) -> None:
    with AdbFace([SimDevice("android", SERIAL)]) as face:
        face.faults.set_rewrite(lambda a: Answer(a.route, reply) if a.route == route else a)
        client = HarnessAdbClient(face.host, face.port, timeout=3)
        with pytest.raises(Exception) as caught:
            if route == "adb:host:version":
                client.server_version()
            else:
                from amc.drivers.u2.listing import read_listing

                read_listing(client)
        assert type(caught.value).__name__ == "AdbError", caught.value
        environ = {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
        if route == "adb:host:devices":
            assert [i for i in discover(environ) if i.backend == "u2"] == []  # logged, not a traceback
        else:
            with pytest.raises(DeviceError):
                connect(f"android:{SERIAL}", adb_host=face.host, adb_port=face.port, timeout=3)


@pytest.mark.parametrize("state", ["unauthorized", "offline"])
def test_an_old_server_listing_a_phone_it_cannot_reach_is_discovered(state: str) -> None:
    # Before ADB_SERVER_VERSION 40 the long line of a phone that is not online is its serial and
    # state alone (no product/model/device, no transport_id): discovery ended with a ValueError.
    with AdbFace([SimDevice("android", SERIAL)], server=ADB_SERVERS["27"]) as face:
        face.set_state(SERIAL, state)
        assert face.listing(long=True).split() == [SERIAL, state]
        environ = {"ANDROID_ADB_SERVER_HOST": face.host, "ANDROID_ADB_SERVER_PORT": str(face.port)}
        found = [(i.spec, i.state) for i in discover(environ) if i.backend == "u2"]
    assert found == [(f"android:{SERIAL}", state)]


def test_a_long_line_with_no_keys_keeps_its_device_path() -> None:
    # an old server's long line (no product/model/device/transport_id): ValueError from zip(strict) before
    listed = parse_listing(f"{SERIAL}\tdevice\n", f"{SERIAL}          device usb:1-1\n")
    assert listed[0].details == {"devpath": "usb:1-1"}


def test_the_phones_features_go_by_its_release() -> None:
    assert "abb_exec" not in adbd_features(28) and "abb_exec" in adbd_features(29)
    assert "sendrecv_v2" in ADBD_FEATURES[31] and "sendrecv_v2" not in ADBD_FEATURES[29]
