"""``benchmarks/phones.py``: simulated phones in a child process, driven from this one over the real
protocols, as ``benchmarks/devices.py`` runs them (counts only, no time is asserted)."""

from __future__ import annotations

import os

import pytest
from amc.core.selectors import Selector
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver

from benchmarks.phones import start


def test_android_phones_in_a_child_process_answer_over_one_adb_face() -> None:
    group = start("android", ["emulator-5554", "emulator-5556"], 0.0, "com.android.settings")
    try:
        assert group.process.pid != os.getpid() and len(group.addresses) == 1
        group.ask("reset")
        host, port = group.addresses[0].rsplit(":", 1)
        config = U2Config(adb_host=host, adb_port=int(port), timeout=10.0)
        for serial in group.serials:
            driver = U2Driver(serial, config).connect()
            try:
                before = group.ask("counts")
                scene = driver.observe()
                assert scene.foreground_app == "com.android.settings"
                assert scene.find(Selector(text="Network & internet")) is not None
                after = group.ask("counts")
                assert after[1] - before[1] == 1 and after[0] - before[0] == 1  # one RPC, one connection
            finally:
                driver.close()
    finally:
        group.stop()
    assert not group.process.is_alive()


def test_iphones_in_a_child_process_answer_one_face_each() -> None:
    group = start("ios", ["SIM-IPHONE-0", "SIM-IPHONE-1"], 0.0, "com.apple.Preferences")
    try:
        group.ask("reset")
        assert len(set(group.addresses)) == 2
        driver = WdaDriver.from_url(group.addresses[1], device_id="SIM-IPHONE-1", timeout=10.0).connect()
        try:
            assert driver.observe().foreground_app == "com.apple.Preferences"
        finally:
            driver.close()
        with pytest.raises(ValueError, match="unknown command"):
            group.ask("nonsense")
    finally:
        group.stop()
