"""discover_ios: usbmuxd when there is one (never hanging on it), and the WDA at $WDA_URL if it answers."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import amc.drivers.wda.discovery as wda_discovery
import pytest
from amc.core.errors import ConfigError, DriverUnavailable
from amc.drivers.wda import WdaDriver, discover_ios
from amc.sim.faults import Fault
from amc.sim.wda_face import WdaFace

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def no_usbmuxd(tmp_path: Path) -> dict[str, str]:
    return {"USBMUXD_SOCKET_ADDRESS": str(tmp_path / "no-usbmuxd.sock")}


@pytest.fixture
def silent_usbmuxd() -> Iterator[str]:
    """A loopback TCP 'usbmuxd' that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()


def test_without_usbmuxd_or_wda_url_nothing_is_found_at_once(no_usbmuxd: dict[str, str]) -> None:
    started = time.monotonic()
    assert discover_ios(no_usbmuxd) == []
    assert time.monotonic() - started < 1.0


def test_a_wda_url_that_answers_is_listed(face: WdaFace, no_usbmuxd: dict[str, str]) -> None:
    found = discover_ios({**no_usbmuxd, "WDA_URL": face.url})
    assert len(found) == 1
    info = found[0]
    assert (info.spec, info.platform, info.backend, info.state) == (f"ios:{face.url}", "ios", "wda", "device")
    assert "iOS 18.5" in info.description and info.usable  # the default profile, ios=18
    assert face.count("status") == 1


def test_a_wda_url_that_does_not_answer_is_skipped(
    face: WdaFace, no_usbmuxd: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wda_discovery, "_PROBE_TIMEOUT", 0.5)
    face.faults.inject(Fault.HANG, routes={"status"})
    started = time.monotonic()
    assert discover_ios({**no_usbmuxd, "WDA_URL": face.url}) == []
    assert time.monotonic() - started < 0.5 + 1.5
    face.faults.clear()
    url = face.url
    face.stop()
    assert discover_ios({**no_usbmuxd, "WDA_URL": url}) == []
    with pytest.raises(ConfigError, match="WDA_URL='not a url'"):
        discover_ios({**no_usbmuxd, "WDA_URL": "not a url"})


def test_a_usbmuxd_that_never_answers_does_not_stall_discovery(
    silent_usbmuxd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wda_discovery, "_PROBE_TIMEOUT", 0.5)
    started = time.monotonic()
    assert discover_ios({"USBMUXD_SOCKET_ADDRESS": silent_usbmuxd}) == []
    assert time.monotonic() - started < 0.5 + 1.5


def test_usbmuxd_devices_are_listed_once_preferring_usb(monkeypatch: pytest.MonkeyPatch) -> None:
    devices = [
        SimpleNamespace(serial="00008030-001A2D3E0C12802E", connection_type="Network"),
        SimpleNamespace(serial="00008030-001A2D3E0C12802E", connection_type="USB"),
        SimpleNamespace(serial="ab" * 20, connection_type="USB"),
    ]
    monkeypatch.setattr(wda_discovery, "list_devices", lambda usbmux_address=None: devices)
    found = discover_ios({"USBMUXD_SOCKET_ADDRESS": "/tmp/usbmuxd-test"})
    assert [d.spec for d in found] == ["ios:00008030-001A2D3E0C12802E", f"ios:{'ab' * 20}"]
    assert "USB" in found[0].description


@pytest.mark.skipif(os.path.exists("/var/run/usbmuxd"), reason="a real usbmuxd is running on this machine")
def test_a_usb_udid_without_usbmuxd_is_driver_unavailable() -> None:
    drv = WdaDriver.from_udid("00008030-001A2D3E0C12802E", timeout=1.0)
    assert drv.url == "http+usbmux://00008030-001A2D3E0C12802E:8100"
    with pytest.raises(DriverUnavailable):
        drv.connect()
