"""Issue 41, item 6: the simulated phone names each process by one pid, as a phone does.

On a phone ``ps``, ``pidof``, ``dumpsys window windows`` (``mSession=Session{… PID:u0aN}``),
``dumpsys activity top`` (``pid=N``) and adbutils' ``app_current()`` name the same process, and an
app started again is a new process with a new pid everywhere at once. The uiautomator2 server's
``app_process`` is a process like any other: never pid 0 (``ps`` lists what runs). Each check goes
through the real adbutils client over the adb face.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import adbutils
import pytest
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice

SERIAL = "emulator-5554"
APP = "com.android.settings"


@pytest.fixture
def adb() -> Iterator[adbutils.AdbDevice]:
    with AdbFace([SimDevice("android", SERIAL)]) as face:
        yield adbutils.AdbClient(host=face.host, port=face.port).device(serial=SERIAL)


def _pids(adb: adbutils.AdbDevice) -> dict[str, int]:
    ps = adb.shell(f"ps -A | grep {APP}").split()
    windows = adb.shell("dumpsys window windows")
    session = re.findall(rf"mSession=Session\{{\w+ (\d+):u0a\d+\}}.*\n.*package={re.escape(APP)}", windows)
    top = re.findall(rf"ACTIVITY {re.escape(APP)}/\S+ \w+ pid=(\d+)", adb.shell("dumpsys activity top"))
    return {
        "pidof": int(adb.shell(f"pidof {APP}")),
        "ps": int(ps[1]),
        "dumpsys window": int(session[-1]),
        "dumpsys activity top": int(top[-1]),
        "app_current": adb.app_current().pid,
    }


def test_an_app_has_one_pid_everywhere_and_a_new_one_after_a_restart(adb: adbutils.AdbDevice) -> None:
    adb.app_start(APP)
    first = _pids(adb)
    assert len(set(first.values())) == 1, first
    adb.app_stop(APP)
    assert adb.shell2(f"pidof {APP}").returncode == 1  # nothing runs: pidof prints nothing, exits 1
    adb.app_start(APP)
    second = _pids(adb)
    assert len(set(second.values())) == 1, second
    assert set(second.values()) != set(first.values())


def test_the_uiautomator2_server_is_listed_with_its_pid(adb: adbutils.AdbDevice) -> None:
    rows = [line.split() for line in adb.shell("ps -u shell").splitlines()[1:]]
    servers = [int(row[1]) for row in rows if row[-1] == "app_process"]
    assert len(servers) == 1 and servers[0] > 0, rows
    assert int(adb.shell("pidof app_process")) == servers[0]
    assert adb.shell(f"ps -p {servers[0]}").splitlines()[1].split()[-1] == "app_process"
    assert adb.shell("ps -A | grep -c app_process") == "1"
    none = adb.shell2("ps -A | grep -v app_process | grep -c app_process")
    assert (none.output.strip(), none.returncode) == ("0", 1)
