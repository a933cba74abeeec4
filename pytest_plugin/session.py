"""The plugin's per-run state and its reporting hooks.

:class:`PluginState` lives in ``config.stash`` for one pytest run: the parsed options, the device
list (given, handed down by the xdist controller, or discovered once), one :class:`DeviceSlot` per
device, and the compatibility book. :class:`AmcSession` is registered as a plugin object for the
run and holds the hooks that need that state: failure evidence in ``pytest_runtest_makereport``,
outcomes into the book in ``pytest_runtest_logreport``, reports written at the end.
"""

from __future__ import annotations

import getpass
import os
import tempfile
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..connect import connect
from .devices import DeviceSlot, StepLog, TrackedDriver
from .evidence import capture, evidence_dir
from .options import DeviceTarget, PluginOptions
from .report import PROP_ARTIFACTS, CompatibilityBook
from .selection import discover_targets, no_device_reason

__all__ = ["ITEM_RUN", "STATE", "AmcSession", "PluginState", "TestRun", "is_worker", "worker_id"]


@dataclass
class TestRun:
    """What one device test used: its driver and the steps its tasks ran (for evidence)."""

    __test__ = False  # not a pytest test class

    driver: TrackedDriver
    steps: StepLog


def worker_id(config: pytest.Config) -> str:
    """The xdist worker id (``gw0`` …), or ``main`` without xdist."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return str(workerinput["workerid"]) if workerinput else "main"


def is_worker(config: pytest.Config) -> bool:
    return getattr(config, "workerinput", None) is not None


class PluginState:
    """Everything the plugin knows during one run."""

    def __init__(self, config: pytest.Config, options: PluginOptions) -> None:
        self.config = config
        self.options = options
        self.book = CompatibilityBook()
        self.slots: dict[str, DeviceSlot] = {}
        self.reports_written: list[Path] = []
        self.evidence_written: list[Path] = []
        self._targets: list[DeviceTarget] | None = list(options.targets) or None
        self._no_device: str | None = None
        self.device_scheduling = False  # xdist controller: schedule tests by device

    # --- devices ----------------------------------------------------------------------------

    def targets(self) -> list[DeviceTarget]:
        """The devices to test: given, else the controller's list (xdist), else discovered once."""
        if self._targets is None:
            workerinput: dict[str, Any] | None = getattr(self.config, "workerinput", None)
            if workerinput is not None and "amc_targets" in workerinput:
                self._targets = [DeviceTarget.from_wire(raw) for raw in workerinput["amc_targets"]]
                self._no_device = workerinput.get("amc_no_device")
            else:
                found, unusable = discover_targets()
                self._targets = found
                self._no_device = None if found else no_device_reason(unusable)
        return self._targets

    def no_device_reason(self) -> str:
        if self._no_device is None:
            targets = self.targets()
            if self._no_device is None:
                self._no_device = (
                    "device tests were not parametrized over devices because -m deselected them "
                    f"(devices known: {', '.join(t.display for t in targets) or 'none'})"
                )
        return self._no_device

    def slot(self, target: DeviceTarget) -> DeviceSlot:
        slot = self.slots.get(target.spec)
        if slot is None:
            slot = self.slots[target.spec] = DeviceSlot(target, connect)
        return slot

    def close_slot(self, target: DeviceTarget) -> None:
        slot = self.slots.pop(target.spec, None)
        if slot is not None:
            slot.close()

    # --- places -----------------------------------------------------------------------------

    @property
    def lease_log(self) -> Path:
        return self.options.artifacts / "leases.jsonl"

    def lock_dir(self, target: DeviceTarget, base_temp: Path) -> Path:
        """Where the device's lock file lives.

        ``--amc-lock-dir`` / ``$AMC_LOCK_DIR`` when set. Otherwise a simulated device (which lives
        in this run's processes) is locked in the run's temporary root, shared by its xdist
        workers; a real device in a per-user folder of the system temp dir, so two runs on one
        machine do not drive the same phone either.
        """
        configured = self.options.lock_dir or (
            Path(os.environ["AMC_LOCK_DIR"]) if os.environ.get("AMC_LOCK_DIR") else None
        )
        if configured is not None:
            return configured
        if target.in_process:
            root = base_temp.parent if is_worker(self.config) else base_temp
            return root / "amc-device-locks"
        return Path(tempfile.gettempdir()) / f"amc-device-locks-{_user()}"


def _user() -> str:
    try:
        return "".join(c for c in getpass.getuser() if c.isalnum() or c in "._-") or "user"
    except (KeyError, OSError):
        return "user"


STATE = pytest.StashKey[PluginState]()
ITEM_RUN = pytest.StashKey[TestRun]()


class AmcSession:
    """The run's reporting hooks (registered as a plugin object by ``pytest_configure``)."""

    def __init__(self, state: PluginState) -> None:
        self.state = state

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        run = item.stash.get(ITEM_RUN, None)
        if run is None or report.when != "call" or not report.failed:
            return report
        dest = evidence_dir(self.state.options.artifacts, item.nodeid)
        files = capture(run.driver.inner, dest, run.steps.to_list())
        self.state.evidence_written.append(dest)
        listing = "\n".join(f"  {path.name}" for path in files)
        report.sections.append(("amc device evidence", f"saved in {dest}:\n{listing}"))
        prop = (PROP_ARTIFACTS, str(dest))
        item.user_properties.append(prop)
        if prop not in report.user_properties:
            report.user_properties.append(prop)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not is_worker(self.state.config):
            self.state.book.add(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        for spec in list(self.state.slots):
            self.state.slots.pop(spec).close()
        reports = self.state.options.reports
        if reports is not None and not is_worker(self.state.config):
            self.state.reports_written = self.state.book.write(reports)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.state.reports_written:
            terminalreporter.write_sep("-", "amc device reports")
            for path in self.state.reports_written:
                terminalreporter.write_line(f"compatibility report: {path}")
        evidence = sorted({a for d in self.state.book.devices.values() for a in d.artifacts})
        for path_text in evidence:
            terminalreporter.write_line(f"failure evidence: {path_text}")
