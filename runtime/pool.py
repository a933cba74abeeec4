"""A pool of devices: one task per device at a time, many devices at once.

:class:`DevicePool` holds N drivers (connected ones you pass, or device specs it connects in
:meth:`DevicePool.open` through the ``connect`` function you pass, usually
``amc.drivers.connect.connect``: the pool builds no driver itself), leases one device per task and
runs tasks concurrently in a thread pool, each through its own :class:`~runtime.task.TaskRunner`
(so each task has its own context and world model: nothing a task learns reaches another). What it
promises:

- the constructor does no I/O; ``open()`` (or the first lease) connects the specs, in order;
- a device is driven by one task at a time (a lock per device); a lease waits for a free device at
  most ``lease_timeout`` seconds, then raises :class:`~core.errors.LeaseTimeout` naming who holds what;
- a task that ends ``device_error`` retires its device (``retire_on_device_error``, the default):
  it is not leased again, so one broken phone fails one task, not the rest of the queue; when every
  device that could serve a task is retired, leasing fails at once with :class:`PoolExhausted`; a
  caller that runs its own work under :meth:`DevicePool.lease` retires a device with
  :meth:`DevicePool.retire`;
- :meth:`DevicePool.run_all` returns one :class:`~runtime.task.TaskResult` per task, in the order
  given; a task that got no device has status ``failed`` and ``error_kind`` ``LeaseTimeout`` or
  ``PoolExhausted`` (nothing was run for it);
- ``close()`` closes the drivers the pool connected itself (not the ones you passed in).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from ..core.durations import MAX_LEASE_WAIT, check_seconds
from ..core.errors import ConfigError, LeaseTimeout, PoolExhausted
from ..core.models import Platform
from ..drivers.base import Driver
from .context import TaskContext
from .planner import Planner
from .task import StepListener, TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus

__all__ = ["DevicePool", "PoolExhausted", "PoolTask"]

log = logging.getLogger(__name__)

DEFAULT_LEASE_TIMEOUT = 60.0
Connector = Callable[[str], Driver]


@dataclass(frozen=True)
class PoolTask:
    """One task for the pool.

    ``planner`` builds the task's planner for the leased driver (called once per task, so planners
    that keep state are never shared). ``platform`` limits the task to devices of that platform.
    ``listeners`` build per-task step listeners for the leased driver (e.g. a timeline writer).
    ``config`` overrides the pool's :class:`TaskRunnerConfig` for this task.
    """

    goal: str
    planner: Callable[[Driver], Planner]
    platform: Platform | None = None
    config: TaskRunnerConfig | None = None
    listeners: Callable[[Driver], Sequence[StepListener]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.goal, str) or not self.goal.strip():
            raise ConfigError(f"PoolTask.goal must be a non-empty string, got {self.goal!r}")
        if not callable(self.planner):
            raise ConfigError(
                "PoolTask.planner must be a callable that takes the driver and returns a Planner"
            )
        if self.platform not in (None, "android", "ios"):
            raise ConfigError(f"PoolTask.platform must be 'android', 'ios' or None, got {self.platform!r}")


@dataclass
class _Slot:
    """One device of the pool: its spec or driver, its lock, and what it has done."""

    name: str
    spec: str | None
    driver: Driver | None
    owned: bool
    lock: threading.Lock = field(default_factory=threading.Lock)
    retired: str | None = None  # why it is no longer leased
    holder: str | None = None
    tasks: int = 0

    @property
    def platform(self) -> Platform | None:
        return None if self.driver is None else self.driver.platform


def _check_timeout(name: str, value: Any) -> float:
    return check_seconds(value, f"DevicePool {name}", maximum=MAX_LEASE_WAIT)


class DevicePool:
    """Drivers leased one task at a time (see the module docstring). Use as a context manager."""

    def __init__(
        self,
        devices: Sequence[Driver | str],
        *,
        lease_timeout: float = DEFAULT_LEASE_TIMEOUT,
        max_workers: int | None = None,
        config: TaskRunnerConfig | None = None,
        connect: Connector | None = None,
        retire_on_device_error: bool = True,
    ) -> None:
        if isinstance(devices, str) or not isinstance(devices, Sequence) or not devices:
            raise ConfigError("DevicePool needs a non-empty list of drivers or device specs")
        self.lease_timeout = _check_timeout("lease_timeout", lease_timeout)
        if max_workers is not None and (
            isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1
        ):
            raise ConfigError(f"DevicePool max_workers must be a positive integer, got {max_workers!r}")
        self.max_workers = max_workers or len(devices)
        self.config = config or TaskRunnerConfig.from_env()
        self.retire_on_device_error = retire_on_device_error
        specs = [item for item in devices if isinstance(item, str)]
        if specs and connect is None:
            raise ConfigError(
                f"DevicePool got device specs ({', '.join(map(repr, specs[:3]))}) but no connect function",
                hint="pass connect=amc.drivers.connect.connect (or any Callable[[str], Driver])",
            )
        if connect is not None and not callable(connect):
            raise ConfigError(f"DevicePool connect must be a Callable[[str], Driver], got {connect!r}")
        self._connect = connect
        self._slots: list[_Slot] = []
        for n, item in enumerate(devices):
            if isinstance(item, str):
                self._slots.append(_Slot(f"{n}:{item}", item, None, owned=True))
            elif isinstance(item, Driver):
                self._slots.append(_Slot(f"{n}:{item.device_id}", None, item, owned=False))
            else:
                raise ConfigError(f"DevicePool devices must be drivers or spec strings, got {item!r}")
        self._cond = threading.Condition()
        self._opened = False
        self._closed = False

    # --- lifecycle ----------------------------------------------------------------------------

    def open(self) -> DevicePool:
        """Connect every spec (in order). On a failure the ones already connected are closed."""
        with self._cond:
            if self._closed:
                raise ConfigError("this DevicePool is closed")
            if self._opened:
                return self
            done: list[_Slot] = []
            try:
                for slot in self._slots:
                    if slot.driver is None and slot.spec is not None:
                        assert self._connect is not None  # checked in __init__
                        slot.driver = self._connect(slot.spec)
                        done.append(slot)
            except BaseException:
                for slot in done:
                    _close_quietly(slot)
                raise
            self._opened = True
            return self

    def close(self) -> None:
        """Close the drivers this pool connected; the pool is not used afterwards."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            slots = list(self._slots)
            self._cond.notify_all()
        for slot in slots:
            if slot.owned:
                _close_quietly(slot)

    def __enter__(self) -> DevicePool:
        return self.open()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- inspection ---------------------------------------------------------------------------

    @property
    def drivers(self) -> list[Driver]:
        """The connected drivers, in the order given (after ``open()``)."""
        return [s.driver for s in self._slots if s.driver is not None]

    @property
    def retired(self) -> dict[str, str]:
        """Devices no longer leased, by device id, with the reason."""
        with self._cond:
            return {_device_id(s): s.retired for s in self._slots if s.retired is not None}

    def tasks_run(self) -> dict[str, int]:
        """How many tasks each device has run, by device id."""
        with self._cond:
            return {_device_id(s): s.tasks for s in self._slots}

    # --- leasing ------------------------------------------------------------------------------

    def _candidates(self, platform: Platform | None) -> list[_Slot]:
        return [s for s in self._slots if platform is None or s.platform == platform]

    def _take(self, platform: Platform | None, holder: str, timeout: float) -> _Slot:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._closed:
                    raise PoolExhausted("the device pool is closed")
                candidates = self._candidates(platform)
                usable = [s for s in candidates if s.retired is None]
                if not usable:
                    wanted = f"{platform} " if platform else ""
                    if not candidates:
                        raise PoolExhausted(
                            f"no {wanted}device can take {holder!r}: none in the pool",
                            hint=f"add a device{f' of platform {platform}' if platform else ''} to the pool",
                        )
                    why = "; ".join(f"{_device_id(s)}: {s.retired}" for s in candidates)
                    raise PoolExhausted(
                        f"no {wanted}device can take {holder!r}: {why}",
                        hint=(
                            "each device named was retired after a device error; see whether it is "
                            "attached and ready again with `amc doctor`, or add devices to the pool"
                        ),
                    )
                for slot in usable:
                    if slot.lock.acquire(blocking=False):
                        slot.holder = holder
                        return slot
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    held = ", ".join(f"{_device_id(s)} by {s.holder!r}" for s in usable)
                    raise LeaseTimeout(
                        f"no device became free for {holder!r} within {timeout:g} s (held: {held})",
                        holder=held,
                        hint="raise lease_timeout, or give the pool more devices",
                    )
                self._cond.wait(remaining)

    def _give_back(self, slot: _Slot, retire: str | None) -> None:
        with self._cond:
            slot.holder = None
            slot.tasks += 1
            if retire is not None and slot.retired is None:
                slot.retired = retire
                log.warning("device %s retired from the pool: %s", _device_id(slot), retire)
            slot.lock.release()
            self._cond.notify_all()

    def retire(self, driver: Driver, why: str) -> bool:
        """Lease ``driver``'s device no more (``why`` is what :attr:`retired` says); waiting leases
        of its platform then look again, and fail at once if no device is left. False when
        ``driver`` is not in the pool or was retired already."""
        with self._cond:
            for slot in self._slots:
                if slot.driver is driver:
                    if slot.retired is not None:
                        return False
                    slot.retired = why
                    log.warning("device %s retired from the pool: %s", _device_id(slot), why)
                    self._cond.notify_all()
                    return True
        return False

    @contextmanager
    def lease(
        self, *, platform: Platform | None = None, holder: str = "caller", timeout: float | None = None
    ) -> Iterator[Driver]:
        """Hold one free device (of ``platform``, if given) for the ``with`` block."""
        wait = self.lease_timeout if timeout is None else _check_timeout("timeout", timeout)
        self.open()
        slot = self._take(platform, holder, wait)
        try:
            assert slot.driver is not None
            yield slot.driver
        finally:
            self._give_back(slot, None)

    # --- running ------------------------------------------------------------------------------

    def run(self, task: PoolTask) -> TaskResult:
        """Lease a device, run ``task`` on it, give it back; raises ``LeaseTimeout`` / ``PoolExhausted``."""
        self.open()
        slot = self._take(task.platform, task.goal, self.lease_timeout)
        retire: str | None = None
        try:
            driver = slot.driver
            assert driver is not None
            listeners = list(task.listeners(driver)) if task.listeners is not None else []
            runner = TaskRunner(
                driver, task.planner(driver), config=task.config or self.config, listeners=listeners
            )
            result = runner.run(task.goal)
            if result.status is TaskStatus.DEVICE_ERROR and self.retire_on_device_error:
                retire = f"{result.error_kind}: {result.error}"
            return result
        finally:
            self._give_back(slot, retire)

    def _run_or_report(self, task: PoolTask) -> TaskResult:
        started = time.perf_counter()
        try:
            return self.run(task)
        except (LeaseTimeout, PoolExhausted) as exc:
            context = TaskContext(goal=task.goal, device_id="")
            return TaskResult(
                task.goal, TaskStatus.FAILED, context, time.perf_counter() - started, str(exc), exc.kind
            )

    def run_all(self, tasks: Sequence[PoolTask]) -> list[TaskResult]:
        """Run every task, up to ``max_workers`` at once; one result per task, in the order given.

        A task that could not get a device has a ``failed`` result (``LeaseTimeout`` /
        ``PoolExhausted``). An unexpected exception from a task (a bug, or a listener that raised)
        is raised here after every other task has finished.
        """
        for task in tasks:
            if not isinstance(task, PoolTask):
                raise ConfigError(f"DevicePool.run_all takes PoolTask objects, got {type(task).__name__}")
        self.open()
        if not tasks:
            return []
        workers = min(self.max_workers, len(tasks))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="amc-pool") as executor:
            futures = [executor.submit(self._run_or_report, task) for task in tasks]
        return [future.result() for future in futures]


def _device_id(slot: _Slot) -> str:
    return slot.driver.device_id if slot.driver is not None else slot.name


def _close_quietly(slot: _Slot) -> None:
    driver, slot.driver = slot.driver, None
    if driver is None:
        return
    try:
        driver.close()
    except Exception:  # closing must not hide the error that led here
        log.exception("closing %s failed", driver)
