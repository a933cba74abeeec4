"""The device side of the plugin: one connection per device, a per-test driver that can reset what
the test did, and the ``TaskRunner`` factory the device tests use.

- :class:`DeviceSlot` connects lazily (first test that leases the device) and keeps the driver for
  the session; a failed connection is remembered so later tests fail fast with the same reason.
- :class:`TrackedDriver` wraps the driver for one test: it counts calls per operation and remembers
  the apps the test launched, so :meth:`TrackedDriver.reset` terminates exactly those and goes home.
- :class:`RunnerFactory` builds ``TaskRunner`` objects with the world model on, recording every
  step with a world snapshot in a :class:`StepLog` (the failure evidence).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import HarnessError
from ..core.models import PlannedStep, Platform, Scene
from ..core.steps import StepRecord
from ..drivers.base import Driver
from ..drivers.kinds import device_kind
from ..runtime.context import TaskContext
from ..runtime.planner import ObservingPlanner, Planner, ScriptedPlanner
from ..runtime.task import StepListener, TaskRunner, TaskRunnerConfig
from ..world.config import WorldConfig
from .options import DeviceTarget

__all__ = ["DeviceFacts", "DeviceSlot", "RunnerFactory", "StepLog", "TrackedDriver", "os_version_of"]

log = logging.getLogger(__name__)

Connector = Callable[..., Driver]


def os_version_of(driver: Driver) -> str:
    """The OS version the driver already knows (no request is made for it), else ``"unknown"``.

    A driver may expose ``os_version`` itself; the in-process simulated driver exposes its
    ``SimDevice`` as ``device``.
    """
    for holder in (driver, getattr(driver, "device", None)):
        value = getattr(holder, "os_version", None) if holder is not None else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "unknown"


@dataclass(frozen=True)
class DeviceFacts:
    """What the reports say about a device: set once, when it connects."""

    spec: str
    device_id: str
    platform: Platform
    backend: str
    os_version: str

    @property
    def label(self) -> str:
        """``<backend>-<platform>-<os version>``: the compatibility report's file name."""
        return f"{self.backend}-{self.platform}-{self.os_version}"

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> DeviceFacts:
        data = json.loads(raw)
        return cls(**{f.name: str(data[f.name]) for f in dataclasses.fields(cls)})  # type: ignore[arg-type]


class DeviceSlot:
    """One device for the whole session: connected on first use, closed at the end."""

    def __init__(self, target: DeviceTarget, connector: Connector) -> None:
        self.target = target
        self._connector = connector
        self.driver: Driver | None = None
        self.facts: DeviceFacts | None = None
        self.failure: HarnessError | None = None

    def connected(self) -> Driver:
        """The connected driver; the first call connects and goes to the home screen.

        Raises the ``HarnessError`` that connecting raised, now and on every later call (one
        attempt per session, so a dead device does not cost every test a connection timeout).
        """
        if self.driver is not None:
            return self.driver
        if self.failure is not None:
            raise self.failure
        try:
            driver = self._connector(self.target.connect_spec, **self.target.connect_options)
            driver.press("home")
        except HarnessError as exc:
            self.failure = exc
            raise
        self.driver = driver
        backend = driver.backend
        if self.target.scheme.startswith("sim+") and not backend.startswith("sim"):
            backend = self.target.scheme  # a simulated device behind a real protocol, not a phone
        self.facts = DeviceFacts(
            spec=self.target.display,
            device_id=driver.device_id,
            platform=driver.platform,
            backend=backend,
            os_version=os_version_of(driver),
        )
        return driver

    def invalidate(self) -> None:
        """Drop the connection (after a device error in a reset); the next test reconnects."""
        driver, self.driver = self.driver, None
        if driver is not None:
            _close_quietly(driver)

    def close(self) -> None:
        self.invalidate()


def _close_quietly(driver: Driver) -> None:
    try:
        driver.close()
    except HarnessError as exc:
        log.warning("closing %s failed: %s", driver.device_id, exc)


class TrackedDriver:
    """A ``Driver`` for one test: every call is counted, launched apps are remembered."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()
        self.launched: list[str] = []

    @property
    def device_id(self) -> str:
        return self.inner.device_id

    @property
    def platform(self) -> Platform:
        return self.inner.platform

    @property
    def backend(self) -> str:
        return self.inner.backend

    @property
    def animates(self) -> bool:
        """The wrapped driver's (drivers/base.py): the loop waits for its screen to settle."""
        return getattr(self.inner, "animates", False) is True

    def observe(self) -> Scene:
        self.calls["observe"] += 1
        return self.inner.observe()

    def launch_app(self, app_id: str) -> None:
        self.calls["launch_app"] += 1
        if app_id not in self.launched:
            self.launched.append(app_id)  # before the call: a launch that timed out may have started it
        self.inner.launch_app(app_id)

    def terminate_app(self, app_id: str) -> None:
        self.calls["terminate_app"] += 1
        self.inner.terminate_app(app_id)
        if app_id in self.launched:
            self.launched.remove(app_id)

    def current_app(self) -> str | None:
        self.calls["current_app"] += 1
        return self.inner.current_app()

    def tap(self, x: int, y: int) -> None:
        self.calls["tap"] += 1
        self.inner.tap(x, y)

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        self.calls["long_press"] += 1
        self.inner.long_press(x, y, duration)

    def type_text(self, text: str) -> None:
        self.calls["type_text"] += 1
        self.inner.type_text(text)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        self.calls["swipe"] += 1
        self.inner.swipe(x1, y1, x2, y2, duration)

    def press(self, key: str) -> None:
        self.calls["press"] += 1
        self.inner.press(key)

    def erase_text(self, count: int) -> None:
        self.calls["erase_text"] += 1
        self.inner.erase_text(count)

    def set_location(self, latitude: float, longitude: float) -> None:
        self.calls["set_location"] += 1
        self.inner.set_location(latitude, longitude)

    def screenshot(self) -> bytes:
        self.calls["screenshot"] += 1
        return self.inner.screenshot()

    def hide_keyboard(self) -> None:
        self.calls["hide_keyboard"] += 1
        self.inner.hide_keyboard()

    def open_link(self, url: str, app_id: str | None = None) -> None:
        self.calls["open_link"] += 1
        self.inner.open_link(url, app_id)

    def clear_state(self, app_id: str) -> None:
        self.calls["clear_state"] += 1
        self.inner.clear_state(app_id)

    @property
    def kind(self) -> str:
        """The wrapped driver's: an iOS Simulator or a device (:mod:`amc.drivers.kinds`)."""
        return device_kind(self.inner)

    def launch_with(self, app_id: str, arguments: Mapping[str, object]) -> None:
        self.calls["launch_with"] += 1
        if app_id not in self.launched:
            self.launched.append(app_id)
        self.inner.launch_with(app_id, arguments)

    def set_permissions(self, app_id: str, permissions: Mapping[str, str]) -> None:
        self.calls["set_permissions"] += 1
        self.inner.set_permissions(app_id, permissions)

    def clear_keychain(self) -> None:
        self.calls["clear_keychain"] += 1
        self.inner.clear_keychain()

    def close(self) -> None:
        """Does nothing: the session owns the connection, a test only borrows it."""

    def set_orientation(self, orientation: str) -> None:
        self.calls["set_orientation"] += 1
        self.inner.set_orientation(orientation)

    def set_airplane_mode(self, enabled: bool) -> None:
        self.calls["set_airplane_mode"] += 1
        self.inner.set_airplane_mode(enabled)

    def airplane_mode(self) -> bool:
        self.calls["airplane_mode"] += 1
        return self.inner.airplane_mode()

    def set_dark_mode(self, enabled: bool) -> None:
        self.calls["set_dark_mode"] += 1
        self.inner.set_dark_mode(enabled)

    def dark_mode(self) -> bool:
        self.calls["dark_mode"] += 1
        return self.inner.dark_mode()

    def start_recording(self) -> None:
        self.calls["start_recording"] += 1
        self.inner.start_recording()

    def stop_recording(self) -> bytes:
        self.calls["stop_recording"] += 1
        return self.inner.stop_recording()

    def add_media(self, name: str, data: bytes) -> None:
        self.calls["add_media"] += 1
        self.inner.add_media(name, data)

    def wait_idle(self, timeout: float) -> bool | None:
        """The wrapped driver's idle signal (None where it has none: a scripted fake's)."""
        self.calls["wait_idle"] += 1
        ask = getattr(self.inner, "wait_idle", None)
        return ask(timeout) if callable(ask) else None

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def reset(self) -> None:
        """Terminate the apps this test launched (latest first) and press home.

        Costs one request per launched app still remembered plus one; not counted in ``calls``.
        """
        for app_id in reversed(self.launched):
            self.inner.terminate_app(app_id)
        self.launched.clear()
        self.inner.press("home")


class StepLog:
    """Every step the test's tasks ran, with the world state after it (the last ``limit`` kept)."""

    def __init__(self, limit: int = 500) -> None:
        self.entries: deque[dict[str, Any]] = deque(maxlen=limit)

    def listener(self, record: StepRecord, context: TaskContext) -> None:
        self.entries.append(
            {
                "goal": context.goal,
                **record.to_dict(),
                "world": context.world.to_dict() if context.world is not None else None,
            }
        )

    def to_list(self) -> list[dict[str, Any]]:
        return list(self.entries)


class RunnerFactory:
    """Build a ``TaskRunner`` on the test's driver, world model and enrichment always on.

    ``runner = amc_runner([PlannedStep(...), ...])`` scripts the steps (a failed step ends the task);
    pass any ``Planner`` instead to decide steps on the fly. ``history_size`` bounds the world
    history; ``config`` overrides the rest (its world and semantic switches are forced on).
    """

    def __init__(self, driver: Driver, steps: StepLog) -> None:
        self.driver = driver
        self.steps = steps

    def __call__(
        self,
        plan: Planner | ObservingPlanner | Iterable[PlannedStep],
        *,
        config: TaskRunnerConfig | None = None,
        history_size: int | None = None,
        listeners: Sequence[StepListener] = (),
    ) -> TaskRunner:
        planner = plan if isinstance(plan, Planner | ObservingPlanner) else ScriptedPlanner(plan)
        base = config or TaskRunnerConfig.from_env()
        world = WorldConfig(
            enabled=True, history_size=history_size if history_size is not None else base.world.history_size
        )
        final = dataclasses.replace(base, world=world, semantic=True)
        return TaskRunner(self.driver, planner, config=final, listeners=[self.steps.listener, *listeners])
