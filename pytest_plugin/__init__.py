"""pytest plugin: run device tests against attached phones, emulators, simulators and the simulated device.

Registered through the ``pytest11`` entry point ``amc``. It adds:

- options (group ``amc``): ``--amc-device SPEC`` (repeatable; any spec ``drivers.connect.connect``
  takes, and ``sim:…?id=NAME`` for extra simulated devices; default: every device
  ``drivers.connect.discover()`` finds), ``--amc-app`` / ``--amc-second-app PLATFORM=ID``,
  ``--amc-artifacts DIR``, ``--amc-reports DIR``, ``--amc-lock-dir DIR``, ``--amc-lease-timeout S``;
- markers ``device`` (a test that needs a device), ``android`` and ``ios`` (runs only there);
- fixtures: ``amc_device`` (session: one connected device per ``--amc-device``, tests parametrized
  over them with the spec as id), ``amc_driver`` (the device, leased for this test, reset after it:
  apps the test launched terminated, home pressed), ``amc_runner`` (a ``TaskRunner`` factory with
  the world model on), ``amc_apps`` (the app ids to use on this device's platform), ``amc_flows``
  (flow files run on this device by the flow runner ``amc run`` uses: :mod:`amc.flows.run`);
- failure evidence (screenshot, UI dump, task steps with world snapshots) named in the report, and
  a compatibility report per backend and OS version at the end of the run;
- with pytest-xdist (``-n N``), each device's tests scheduled on one worker, and a lease per device
  so two workers (or two runs) never drive one phone.

With no device, device tests skip and say what was looked for and how to attach one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..core.errors import ConfigError, HarnessError, LeaseTimeout
from ..core.limits import visible
from ..core.models import Platform
from .devices import DeviceSlot, RunnerFactory, StepLog, TrackedDriver
from .flows import FlowsOnDevice
from .lease import DeviceLease
from .options import AppIds, DeviceTarget, PluginOptions
from .report import PROP_CALLS, PROP_DEVICE, PROP_SPEC, PROP_TEST
from .scheduling import make_device_scheduler
from .selection import DEVICE_MARKS, markexpr_allows, requires_device_mark
from .session import (
    ITEM_RUN,
    STATE,
    AmcSession,
    PluginState,
    TestRun,
    is_worker,
    worker_id,
)

__all__ = [
    "AppIds",
    "DeviceSlot",
    "RunnerFactory",
    "TrackedDriver",
    "amc_apps",
    "amc_device",
    "amc_driver",
    "amc_flows",
    "amc_runner",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_configure_node",
    "pytest_generate_tests",
    "pytest_xdist_make_scheduler",
    "requires_device_mark",
    "state_of",
]

_MARKERS = (
    "device: needs an attached phone, emulator or simulator (run with pytest -m device)",
    "android: runs only on Android devices (skipped with a reason on others)",
    "ios: runs only on iOS devices (skipped with a reason on others)",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("amc", "agentic-mobile-control device tests")
    group.addoption(
        "--amc-device",
        action="append",
        default=[],
        dest="amc_devices",
        metavar="SPEC",
        help="device to test (repeatable): sim:android, sim:ios, android:SERIAL, ios:http://HOST:8100, "
        "ios:UDID, 'appium:http://HOST:4723?platform=android', sim+wda:ios, sim+adb:android, "
        "sim+appium:android|ios; 'sim:android?id=NAME' names an extra simulated device, "
        "'sim:android?install=APP_ID' installs a stand-in of another project's test app. "
        "Default: every attached device discovery finds.",
    )
    group.addoption(
        "--amc-app",
        action="append",
        default=[],
        dest="amc_apps",
        metavar="PLATFORM=ID",
        help="app to launch and check, per platform (default android=com.android.settings, "
        "ios=com.apple.Preferences)",
    )
    group.addoption(
        "--amc-second-app",
        action="append",
        default=[],
        dest="amc_second_apps",
        metavar="PLATFORM=ID",
        help="second app to switch to, per platform (default android=com.android.deskclock, "
        "ios=com.apple.mobilesafari)",
    )
    group.addoption(
        "--amc-artifacts",
        dest="amc_artifacts",
        metavar="DIR",
        help="where failure evidence and the lease log go (default: ini amc_artifacts)",
    )
    group.addoption(
        "--amc-reports",
        dest="amc_reports",
        metavar="DIR",
        help="where compatibility reports go; 'none' writes none (default: ini amc_reports)",
    )
    group.addoption(
        "--amc-lock-dir",
        dest="amc_lock_dir",
        metavar="DIR",
        help="where device lease files live (default: $AMC_LOCK_DIR, else a temp folder)",
    )
    group.addoption(
        "--amc-lease-timeout",
        dest="amc_lease_timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long a test waits for a device another worker holds (default 300)",
    )
    parser.addini(
        "amc_artifacts", "failure evidence folder, relative to the rootdir", default="amc-artifacts"
    )
    parser.addini(
        "amc_reports", "compatibility report folder, relative to the rootdir", default="amc-reports"
    )


def _path_option(config: pytest.Config, option: str, ini: str) -> Path | None:
    value = config.getoption(option)
    if value is not None:
        text = str(value).strip()
        return None if text.lower() == "none" else Path(text).resolve()
    raw = str(config.getini(ini)).strip()
    if not raw or raw.lower() == "none":
        return None
    return (config.rootpath / raw).resolve()


def state_of(config: pytest.Config) -> PluginState:
    """The plugin's state for this run (for conftests and the plugin's own tests)."""
    return config.stash[STATE]


def _dist_chosen(config: pytest.Config) -> bool:
    """True when the user picked a --dist mode themselves (command line, PYTEST_ADDOPTS or addopts)."""
    words = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    words += [str(w) for w in config.getini("addopts")]
    return any(w == "-d" or w == "--dist" or w.startswith("--dist=") for w in words)


def pytest_configure(config: pytest.Config) -> None:
    for line in _MARKERS:
        config.addinivalue_line("markers", line)
    try:
        options = PluginOptions.parse(
            devices=config.getoption("amc_devices") or [],
            apps=config.getoption("amc_apps") or [],
            second_apps=config.getoption("amc_second_apps") or [],
            artifacts=_path_option(config, "amc_artifacts", "amc_artifacts")
            or Path("amc-artifacts").resolve(),
            reports=_path_option(config, "amc_reports", "amc_reports"),
            lock_dir=Path(config.getoption("amc_lock_dir")) if config.getoption("amc_lock_dir") else None,
            lease_timeout=float(config.getoption("amc_lease_timeout")),
        )
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    state = PluginState(config, options)
    config.stash[STATE] = state
    config.pluginmanager.register(AmcSession(state), "amc-session")
    if is_worker(config) or not markexpr_allows(config, DEVICE_MARKS):
        return
    state.lease_log.unlink(missing_ok=True)  # one lease log per run
    # -n N alone: keep each device's tests on one worker (see scheduling.py).
    state.device_scheduling = getattr(config.option, "dist", "no") == "load" and not _dist_chosen(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand every worker the same device list (discovered once, here)."""
    config: pytest.Config = node.config
    if markexpr_allows(config, DEVICE_MARKS):
        state = state_of(config)
        targets = state.targets()
        node.workerinput["amc_targets"] = [t.to_wire() for t in targets]
        if not targets:
            node.workerinput["amc_no_device"] = state.no_device_reason()


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist controller: schedule by device when the user did not pick a ``--dist`` mode."""
    state = state_of(config)
    if not state.device_scheduling:
        return None
    return make_device_scheduler(config, log, [t.display for t in state.targets()])


def _selected(config: pytest.Config, definition: pytest.Item) -> bool:
    marks = {mark.name for mark in definition.iter_markers()} | {"device"}
    return markexpr_allows(config, marks)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "amc_device" not in metafunc.fixturenames:
        return
    state = state_of(metafunc.config)
    if not _selected(metafunc.config, metafunc.definition):
        metafunc.parametrize("amc_device", [None], ids=["not-selected"], indirect=True, scope="session")
        return
    targets = state.targets()
    if not targets:
        metafunc.parametrize("amc_device", [None], ids=["no-device"], indirect=True, scope="session")
        return
    metafunc.parametrize(
        "amc_device", targets, ids=[t.display for t in targets], indirect=True, scope="session"
    )


def _test_name(nodeid: str, display: str) -> str:
    """The node id without this device's part of the parameter id (the report's row name)."""
    base, sep, rest = nodeid.partition("[")
    if not sep:
        return base
    params = rest.rsplit("]", 1)[0].replace(display, "", 1).strip("-")
    return f"{base}[{params}]" if params else base


def _wrong_platform(item: pytest.Item, platform: Platform | None, display: str) -> str | None:
    wanted = sorted({m.name for m in item.iter_markers() if m.name in ("android", "ios")})
    if platform is None or not wanted or platform in wanted:
        return None
    return f"{'/'.join(wanted)}-only test; {display} is an {platform} device"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or "amc_device" not in callspec.params:
            continue
        if item.get_closest_marker("device") is None:
            item.add_marker(pytest.mark.device)
        target = callspec.params["amc_device"]
        if not isinstance(target, DeviceTarget):
            continue
        item.user_properties.append((PROP_SPEC, target.display))
        item.user_properties.append((PROP_TEST, _test_name(item.nodeid, target.display)))
        reason = _wrong_platform(item, target.platform, target.display)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def amc_device(request: pytest.FixtureRequest) -> Iterator[DeviceSlot]:
    """One device for the session (parametrized over the run's devices); connects on first lease."""
    state = state_of(request.config)
    target = getattr(request, "param", None)
    if not isinstance(target, DeviceTarget):
        pytest.skip(visible(state.no_device_reason()))  # device names come from outside
    slot = state.slot(target)
    try:
        yield slot
    finally:
        state.close_slot(target)


def _connected(slot: DeviceSlot) -> Any:
    try:
        return slot.connected()
    except HarnessError as exc:
        display = slot.target.display
        if slot.target.explicit:
            pytest.fail(visible(f"could not connect to {display}: {exc}"), pytrace=False)
        pytest.skip(visible(f"{display} was discovered but could not be connected: {exc}"))


@pytest.fixture
def amc_driver(
    amc_device: DeviceSlot, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TrackedDriver]:
    """The device for this test: leased (other workers wait), reset afterwards (apps the test
    launched terminated, home pressed). Tests marked ``android``/``ios`` skip on other platforms."""
    state = state_of(request.config)
    item = request.node
    target = amc_device.target
    holder = {
        "worker": worker_id(request.config),
        "pid": os.getpid(),
        "test": item.nodeid,
        "device": target.display,
    }
    lease = DeviceLease(
        state.lock_dir(target, tmp_path_factory.getbasetemp()), target.key, holder=holder, log=state.lease_log
    )
    try:
        lease.acquire(state.options.lease_timeout)
    except LeaseTimeout as exc:
        pytest.fail(f"{exc}; raise --amc-lease-timeout or run fewer workers per device", pytrace=False)
    try:
        driver = _connected(amc_device)
        reason = _wrong_platform(item, driver.platform, target.display)
        if reason is not None:
            pytest.skip(visible(reason))
        if amc_device.facts is not None:
            item.user_properties.append((PROP_DEVICE, amc_device.facts.to_json()))
        tracked = TrackedDriver(driver)
        item.stash[ITEM_RUN] = TestRun(tracked, StepLog())
        yield tracked
        calls = ", ".join(f"{name} {count}" for name, count in sorted(tracked.calls.items()))
        item.user_properties.append((PROP_CALLS, f"{tracked.total_calls}: {calls}" if calls else "0"))
        try:
            tracked.reset()
        except HarnessError:
            amc_device.invalidate()  # the next test reconnects instead of inheriting a broken session
            raise
    finally:
        lease.release()


@pytest.fixture
def amc_runner(amc_driver: TrackedDriver, request: pytest.FixtureRequest) -> RunnerFactory:
    """``amc_runner(steps_or_planner, history_size=…)`` -> a ``TaskRunner`` on this test's device with
    the world model on; every step and the world after it is kept for the failure evidence."""
    return RunnerFactory(amc_driver, request.node.stash[ITEM_RUN].steps)


@pytest.fixture
def amc_apps(amc_driver: TrackedDriver, request: pytest.FixtureRequest) -> AppIds:
    """The app ids the device tests use on this device's platform (see ``--amc-app``)."""
    return state_of(request.config).options.apps_for(amc_driver.platform)


@pytest.fixture
def amc_flows(
    amc_driver: TrackedDriver, amc_device: DeviceSlot, tmp_path_factory: pytest.TempPathFactory
) -> FlowsOnDevice:
    """``amc_flows(*paths, env=…, include_tags=…)`` -> a ``RunResult``: flow files (and folders,
    workspaces) run on this test's device by the flow runner ``amc run`` uses; the apps they launch
    are terminated after the test like any other."""
    return FlowsOnDevice(amc_driver, amc_device.target.display, tmp_path_factory.mktemp("amc-flows"))
