"""Device leases: one holder at a time across processes, bounded waits, and xdist runs that spread
devices over workers without two workers ever driving one device."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path

import pytest
from amc.core.errors import LeaseTimeout
from amc.pytest_plugin.lease import DeviceLease, read_lease_log
from amc.pytest_plugin.scheduling import device_scope


def test_a_lease_is_exclusive_and_a_waiter_gives_up_naming_the_holder(tmp_path: Path) -> None:
    log = tmp_path / "leases.jsonl"
    first = DeviceLease(tmp_path, "phone", holder={"worker": "gw0", "test": "t1"}, log=log)
    second = DeviceLease(tmp_path, "phone", holder={"worker": "gw1", "test": "t2"}, log=log)

    assert first.acquire(1.0) == pytest.approx(0.0, abs=0.5)
    with pytest.raises(LeaseTimeout) as caught:
        second.acquire(0.3)
    assert '"worker": "gw0"' in str(caught.value) and "stayed leased for more than 0.3 s" in str(caught.value)
    assert '"gw0"' in (caught.value.holder or "") and caught.value.kind == "LeaseTimeout"
    assert not second.held

    first.release()
    second.acquire(1.0)
    assert second.held and '"gw1"' in (second.current_holder() or "")
    second.release()
    assert [(e["event"], e["worker"]) for e in read_lease_log(log)] == [
        ("acquire", "gw0"),
        ("release", "gw0"),
        ("acquire", "gw1"),
        ("release", "gw1"),
    ]


def test_different_devices_do_not_wait_for_each_other(tmp_path: Path) -> None:
    with DeviceLease(tmp_path, "a", holder={}) as a, DeviceLease(tmp_path, "b", holder={}) as b:
        a.acquire(0.5)
        b.acquire(0.5)
        assert a.held and b.held


def test_a_waiter_gets_the_lease_when_the_holder_lets_go(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from amc.pytest_plugin.lease import DeviceLease
        lease = DeviceLease(Path({str(tmp_path)!r}), "phone", holder={{"worker": "other"}})
        lease.acquire(5)
        print("held", flush=True)
        time.sleep(0.5)
        """
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        waiter = DeviceLease(tmp_path, "phone", holder={"worker": "me"})
        started = time.monotonic()
        waited = waiter.acquire(10.0)  # the other process exits (and its lock goes) after 0.5 s
        assert waited > 0.1 and time.monotonic() - started < 10.0
        waiter.release()
    finally:
        holder.wait(timeout=10)


def test_the_xdist_scope_is_the_device_named_in_the_test_id() -> None:
    displays = ["sim:android", "sim:android?id=a1", "ios:http://127.0.0.1:8100"]

    assert device_scope("t.py::test_x[sim:android?id=a1]", displays) == "amc-device:sim:android?id=a1"
    assert device_scope("t.py::test_x[sim:android]", displays) == "amc-device:sim:android"
    assert device_scope("t.py::test_y[ios:http://127.0.0.1:8100-2]", displays) == (
        "amc-device:ios:http://127.0.0.1:8100"
    )
    assert device_scope("t.py::test_plain", displays) == "t.py::test_plain"
    assert device_scope("t.py::test_p[1-2]", displays) == "t.py::test_p[1-2]"


XDIST_TESTS = """
import time
import pytest
from amc.core.models import PlannedStep

pytestmark = pytest.mark.device


@pytest.mark.parametrize("n", range(3))
def test_drive(amc_driver, amc_runner, amc_apps, n):
    assert amc_runner([PlannedStep("launch_app", {"app_id": amc_apps.app})]).run("go").succeeded
    time.sleep(0.05)
"""


def test_four_workers_lease_four_devices_and_never_share_one(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(XDIST_TESTS)
    specs = ["sim:android?id=a1", "sim:android?id=a2", "sim:ios?id=i1", "sim:ios?id=i2"]
    args = [arg for spec in specs for arg in ("--amc-device", spec)]

    result = amc_pytester.runpytest_subprocess("-m", "device", "-n", "4", *args, timeout=120)

    result.assert_outcomes(passed=12)
    events = read_lease_log(amc_pytester.path / "artifacts" / "leases.jsonl")
    assert len(events) == 24
    workers: dict[str, set[str]] = defaultdict(set)
    for event in events:
        workers[event["device"]].add(event["worker"])
    assert sorted(workers) == sorted(specs)
    assert all(len(w) == 1 for w in workers.values()), workers  # one worker per device
    assert len(set().union(*workers.values())) == 4  # and all four workers used
    for spec in specs:  # acquire/release alternate per device: never two holders at once
        mine = [e["event"] for e in events if e["device"] == spec]
        assert mine == ["acquire", "release"] * 3
    reports = sorted(p.name for p in (amc_pytester.path / "reports").iterdir())
    assert reports == ["sim-android-14.md", "sim-ios-18.5.md"]
