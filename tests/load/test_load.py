"""Load: 32 concurrent tasks across 8 simulated devices through the DevicePool.

- In process (4 Android + 4 iOS simulated phones handing over ready-made Scenes, ``SceneSimDriver``:
  the time goes to the pool and the task loop, not to parsing, which the face test below and
  tests/parsers cover): 10,000 steps in all, in four rounds of 32 tasks. Each
  task remembers its own marker and checks at every step that its world holds that marker and only
  its own steps; after every round the results are dropped and memory is sampled: the Python heap
  (live memory blocks and objects) stays flat from round to round, resident memory (VmRSS) within the
  allocator's noise, and no thread or file descriptor is left behind.
- Over the protocol faces (4 phones behind one adb server face, 4 iPhones behind their own
  WebDriverAgent faces, the real uiautomator2 and facebook-wda clients): 32 tasks; afterwards every
  face thread, socket and file descriptor is gone.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Sequence

import pytest
from amc.drivers.base import Driver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.planner import Planner
from amc.runtime.pool import DevicePool, PoolTask
from amc.runtime.task import TaskResult, TaskRunnerConfig, TaskStatus
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

from benchmarks.common import SceneSimDriver
from tests.load.support import MarkerPlanner, Resources, rss_kib, settle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

TASKS = 32
DEVICES = 8
TOTAL_STEPS = 10_000
ROUNDS = 4
# After the first round has set the heap's high-water mark, nothing may accumulate: a round of 2,500
# steps that leaked one Scene per step would leave about 125,000 blocks and 40 MiB behind.
LATER_ROUND_BLOCKS = 2_000
LATER_ROUND_OBJECTS = 1_000
# Resident memory moves with glibc's per-thread arenas (each round has new pool threads): a loose bound.
LATER_ROUND_RSS_KIB = 24 * 1024


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if n < total % parts else 0) for n in range(parts)]


def _run_round(pool: DevicePool, tag: str, steps: Sequence[int]) -> int:
    """32 marker tasks (even ones on Android, odd ones on iOS); checks each; returns the steps run."""
    planners: dict[str, MarkerPlanner] = {}

    def task(n: int) -> PoolTask:
        marker = f"{tag}-task-{n}"

        def planner(driver: Driver) -> Planner:
            planners[marker] = MarkerPlanner(marker, driver.platform, steps[n], driver.device_id)
            return planners[marker]

        config = TaskRunnerConfig(max_steps=steps[n] + 1)
        return PoolTask(marker, planner, platform="android" if n % 2 == 0 else "ios", config=config)

    results: list[TaskResult] = pool.run_all([task(n) for n in range(len(steps))])
    for n, result in enumerate(results):
        marker = f"{tag}-task-{n}"
        assert result.status is TaskStatus.SUCCEEDED, (marker, result.error)
        assert len(result.steps) == steps[n]
        assert result.world is not None and result.world.variables == {"marker": marker}
        assert planners[marker].violations == []
        assert result.context.device_id == planners[marker].device_id
    return sum(len(r.steps) for r in results)


@pytest.fixture
def sims() -> list[Driver]:
    return [
        SceneSimDriver("android" if n < DEVICES // 2 else "ios", device_id=f"load-{n}")
        for n in range(DEVICES)
    ]


def test_32_tasks_on_8_devices_10000_steps_no_shared_state_no_leaks_flat_memory(
    sims: list[Driver], caplog: pytest.LogCaptureFixture
) -> None:
    # The loop logs each step at INFO (run.log reads it); pytest keeps every record a test logs, so
    # with INFO on (an earlier test may leave it so) its capture, not the harness, would grow.
    caplog.set_level(logging.WARNING)
    with DevicePool(sims) as pool:
        _run_round(pool, "warm-up", [20] * TASKS)  # imports, caches and the allocator settle first
    gc.collect()
    before = Resources.now()
    blocks: list[int] = []
    objects: list[int] = []
    rss: list[int] = []
    executed = 0
    for round_number in range(ROUNDS):
        with DevicePool(sims) as pool:
            executed += _run_round(pool, f"round-{round_number}", _split(TOTAL_STEPS // ROUNDS, TASKS))
            assert sum(pool.tasks_run().values()) == TASKS and pool.retired == {}
        gc.collect()
        blocks.append(sys.getallocatedblocks())
        objects.append(len(gc.get_objects()))
        rss.append(rss_kib())
    after = settle(before)
    assert executed == TOTAL_STEPS
    assert after == before  # no thread and no file descriptor left behind
    assert max(blocks[1:]) - blocks[0] < LATER_ROUND_BLOCKS, blocks  # the heap is flat round to round
    assert max(objects[1:]) - objects[0] < LATER_ROUND_OBJECTS, objects
    assert max(rss[1:]) - rss[0] < LATER_ROUND_RSS_KIB, rss


def test_32_tasks_over_the_adb_and_wda_faces_leave_no_thread_or_socket_behind() -> None:
    gc.collect()
    before = Resources.now()
    adb = AdbFace([SimDevice("android", f"emulator-{5554 + 2 * n}") for n in range(DEVICES // 2)]).start()
    wdas = [WdaFace(SimDevice("ios", f"SIM-IPHONE-{n}")).start() for n in range(DEVICES // 2)]
    config = U2Config(adb_host=adb.host, adb_port=adb.port, timeout=10.0, launch_timeout=5.0)
    drivers: list[Driver] = [U2Driver(phone.serial, config).connect() for phone in adb.phones]
    drivers += [WdaDriver.from_url(f.url, device_id=f.device.device_id, timeout=10.0).connect() for f in wdas]
    try:
        with DevicePool(drivers) as pool:
            executed = _run_round(pool, "faces", [12] * TASKS)
        assert executed == 12 * TASKS
        assert adb.requests("rpc:click") > 0 and all(face.count("tap") > 0 for face in wdas)
    finally:
        for driver in drivers:
            driver.close()
        adb.stop()
        for face in wdas:
            face.stop()
    after = settle(before)
    assert after == before, (before, after)  # every face thread, socket and fd is gone
