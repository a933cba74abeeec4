"""DevicePool: exclusive leases, a bounded wait with a clear error, concurrency, retirement, no I/O early."""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import ConfigError, DeviceOffline, DriverUnavailable, LeaseTimeout
from amc.core.models import PlannedStep
from amc.core.steps import StepRecord
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.runtime.planner import Planner, ScriptedPlanner
from amc.runtime.pool import DevicePool, PoolExhausted, PoolTask
from amc.runtime.task import TaskStatus
from amc.semantic.models import Observation
from amc.world.models import WorldState

from tests.load.support import SCREENS, MarkerPlanner

pytestmark = pytest.mark.timeout(60)


@dataclass
class _Occupancy:
    """Counts the tasks in flight per device, and the most ever seen at once (per device and overall)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    active: Counter[str] = field(default_factory=Counter)
    most: Counter[str] = field(default_factory=Counter)
    most_overall: int = 0


class _OccupyingPlanner:
    """Marks its device busy for a few short turns, so overlapping leases would be seen."""

    def __init__(self, occupancy: _Occupancy, device_id: str, turns: int = 3) -> None:
        self.occupancy, self.device_id, self.turns = occupancy, device_id, turns
        self.calls = 0

    def plan(
        self, *, goal: str, observation: Observation, world: WorldState | None, steps: Sequence[StepRecord]
    ) -> list[PlannedStep]:
        occ = self.occupancy
        with occ.lock:
            if self.calls == 0:
                occ.active[self.device_id] += 1
                occ.most[self.device_id] = max(occ.most[self.device_id], occ.active[self.device_id])
                occ.most_overall = max(occ.most_overall, sum(occ.active.values()))
            self.calls += 1
            if self.calls > self.turns:
                occ.active[self.device_id] -= 1
                return []
        time.sleep(0.02)  # a slow phone: gives other tasks the chance to overlap
        return [PlannedStep("describe_screen")]


def _sims(n: int, platform: str = "android") -> list[Driver]:
    return [SimDriver("android" if platform == "android" else "ios", device_id=f"sim-{k}") for k in range(n)]


def test_each_device_runs_one_task_at_a_time_and_devices_run_at_once() -> None:
    occupancy = _Occupancy()
    pool = DevicePool(_sims(3))
    tasks = [PoolTask(f"task {n}", lambda d: _OccupyingPlanner(occupancy, d.device_id)) for n in range(9)]
    with pool:
        results = pool.run_all(tasks)
    assert [r.goal for r in results] == [f"task {n}" for n in range(9)]  # in the order given
    assert all(r.status is TaskStatus.SUCCEEDED for r in results)
    assert set(occupancy.most.values()) == {1}  # never two tasks on one device
    assert occupancy.most_overall > 1  # but several devices at once
    assert sum(pool.tasks_run().values()) == 9


def test_every_task_keeps_its_own_world() -> None:
    drivers = _sims(2)
    planners: list[MarkerPlanner] = []

    def make(marker: str) -> PoolTask:
        def planner(driver: Driver) -> Planner:
            made = MarkerPlanner(marker, "android", steps=6, device_id=driver.device_id)
            planners.append(made)
            return made

        return PoolTask(marker, planner)

    with DevicePool(drivers) as pool:
        results = pool.run_all([make(f"marker-{n}") for n in range(6)])
    for n, result in enumerate(results):
        assert result.status is TaskStatus.SUCCEEDED, result.error
        assert result.world is not None and result.world.variables == {"marker": f"marker-{n}"}
        assert len(result.steps) == 6
    assert [v for p in planners for v in p.violations] == []


def test_a_lease_waits_a_bounded_time_then_says_who_holds_the_device() -> None:
    pool = DevicePool(_sims(1), lease_timeout=0.2)
    task = PoolTask("second", lambda d: ScriptedPlanner([]))
    with pool, pool.lease(holder="first"):
        started = time.monotonic()
        with pytest.raises(LeaseTimeout) as caught:
            pool.run(task)
        waited = time.monotonic() - started
        (result,) = pool.run_all([task])
    assert waited >= 0.2
    assert "within 0.2 s" in str(caught.value) and "sim-0 by 'first'" in str(caught.value)
    assert caught.value.hint and caught.value.category == "pool"
    assert result.status is TaskStatus.FAILED and result.error_kind == "LeaseTimeout"
    assert result.steps == []  # nothing ran


def test_a_free_device_is_handed_to_a_waiting_task() -> None:
    pool = DevicePool(_sims(1), lease_timeout=10)
    released = threading.Event()
    with pool:
        lease = pool.lease(holder="first")
        lease.__enter__()

        def give_back() -> None:
            lease.__exit__(None, None, None)
            released.set()

        threading.Timer(0.1, give_back).start()
        result = pool.run(PoolTask("waits", lambda d: ScriptedPlanner([PlannedStep("describe_screen")])))
    assert released.is_set() and result.status is TaskStatus.SUCCEEDED


class _OfflineSim(SimDriver):
    def tap(self, x: int, y: int) -> None:
        raise DeviceOffline(f"{self.device_id} went offline", state="offline")


def _tap_task(n: int) -> PoolTask:
    app, forward, _back = SCREENS["android"]
    steps = [PlannedStep("launch_app", {"app_id": app}), forward]
    return PoolTask(f"tap {n}", lambda d: ScriptedPlanner(steps))


def test_a_device_error_retires_the_device_and_the_rest_of_the_queue_goes_elsewhere() -> None:
    broken, good = _OfflineSim("android", device_id="broken"), SimDriver("android", device_id="good")
    with DevicePool([broken, good]) as pool:
        results = pool.run_all([_tap_task(n) for n in range(6)])
    statuses = Counter(r.status for r in results)
    assert statuses == {TaskStatus.DEVICE_ERROR: 1, TaskStatus.SUCCEEDED: 5}
    assert pool.retired == {"broken": "DeviceOffline: broken went offline"}
    assert pool.tasks_run() == {"broken": 1, "good": 5}


def test_when_every_device_is_retired_the_rest_fail_at_once_with_pool_exhausted() -> None:
    with DevicePool([_OfflineSim("android", device_id="a"), _OfflineSim("android", device_id="b")]) as pool:
        results = pool.run_all([_tap_task(n) for n in range(5)])
        with pytest.raises(PoolExhausted, match="a: DeviceOffline") as raised:
            pool.run(_tap_task(9))
        assert raised.value.hint is not None and "retired after a device error" in raised.value.hint
    kinds = Counter(r.error_kind for r in results)
    assert kinds == {"DeviceOffline": 2, "PoolExhausted": 3}


def test_retiring_can_be_turned_off() -> None:
    with DevicePool([_OfflineSim("android", device_id="a")], retire_on_device_error=False) as pool:
        results = pool.run_all([_tap_task(n) for n in range(3)])
    assert [r.error_kind for r in results] == ["DeviceOffline"] * 3 and pool.retired == {}


def test_specs_connect_on_open_only_and_tasks_go_to_their_platform() -> None:
    connected: list[str] = []

    def connect(spec: str) -> Driver:
        connected.append(spec)
        return SimDriver("ios" if spec.endswith("ios") else "android", device_id=spec)

    pool = DevicePool(["sim:android", "sim:ios"], connect=connect)
    assert connected == []  # the constructor does no I/O
    task = PoolTask("on iOS", lambda d: ScriptedPlanner([PlannedStep("describe_screen")]), platform="ios")
    with pool:
        assert connected == ["sim:android", "sim:ios"]
        (result,) = pool.run_all([task])
        drivers = pool.drivers
    assert result.context.device_id == "sim:ios"
    assert all(isinstance(d, SimDriver) and d._closed for d in drivers)  # the pool closes what it opened


def test_the_pool_connects_specs_through_the_composition_root_it_is_given() -> None:
    with DevicePool(["sim:android"], connect=functools.partial(connect, latency=0.0)) as pool:
        (driver,) = pool.drivers
        assert isinstance(driver, SimDriver) and driver.platform == "android"


def test_drivers_passed_in_stay_open_and_a_failed_open_closes_what_it_connected() -> None:
    mine = SimDriver("android")
    with DevicePool([mine]):
        pass
    assert not mine._closed
    made: list[SimDriver] = []

    def connect(spec: str) -> Driver:
        if spec == "bad:x":
            raise DriverUnavailable("nothing answers at bad:x")
        made.append(SimDriver("android"))
        return made[-1]

    with pytest.raises(DriverUnavailable):
        DevicePool(["sim:android", "bad:x"], connect=connect).open()
    assert len(made) == 1 and made[0]._closed


def test_no_device_of_the_platform_is_pool_exhausted() -> None:
    with DevicePool(_sims(1)) as pool, pytest.raises(PoolExhausted, match="no ios device") as raised:
        pool.run(PoolTask("ios only", lambda d: ScriptedPlanner([]), platform="ios"))
    assert raised.value.hint == "add a device of platform ios to the pool"  # none was there to retire


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([],), {}, "non-empty list"),
        (("sim:android",), {}, "non-empty list"),
        (([42],), {}, "drivers or spec strings"),
        (([SimDriver()],), {"lease_timeout": -1}, "lease_timeout"),
        (([SimDriver()],), {"lease_timeout": True}, "lease_timeout"),
        (([SimDriver()],), {"max_workers": 0}, "max_workers"),
        ((["sim:android"],), {}, "no connect function"),
        ((["sim:android"],), {"connect": "connect"}, "Callable"),
    ],
)
def test_bad_pool_arguments_are_config_errors(
    args: tuple[object], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        DevicePool(*args, **kwargs)  # type: ignore[arg-type]


def test_bad_tasks_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="goal"):
        PoolTask("  ", lambda d: ScriptedPlanner([]))
    with pytest.raises(ConfigError, match="platform"):
        PoolTask("g", lambda d: ScriptedPlanner([]), platform="windows")  # type: ignore[arg-type]
    with DevicePool(_sims(1)) as pool, pytest.raises(ConfigError, match="PoolTask objects"):
        pool.run_all(["not a task"])  # type: ignore[list-item]


def test_a_caller_under_a_lease_retires_a_device_and_waiting_leases_hear_of_it_at_once() -> None:
    first, second = SimDriver("android"), SimDriver("android")
    pool = DevicePool([first, second], lease_timeout=30)
    outcome: list[str] = []

    def waiter() -> None:  # waits for a device while both are held, then finds none left
        try:
            with pool.lease(holder="waiter"):
                outcome.append("leased")
        except PoolExhausted as exc:
            outcome.append(str(exc))

    with pool.lease(holder="a") as a, pool.lease(holder="b") as b:
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.05)
        assert pool.retire(a, "DeviceOffline: device offline") is True
        assert pool.retire(a, "again") is False  # retired once, with the first reason
        assert pool.retire(SimDriver("ios"), "not in the pool") is False
        assert pool.retire(b, "DeviceOffline: unplugged") is True
    thread.join(timeout=5)  # not the 30 s lease timeout
    assert not thread.is_alive()
    assert len(outcome) == 1 and outcome[0].startswith("no device can take 'waiter'")
    assert "DeviceOffline: device offline" in outcome[0] and "DeviceOffline: unplugged" in outcome[0]
