"""Compatibility reports: which device test passed on which backend and OS version.

The plugin feeds every device test's reports (setup, call, teardown) into a :class:`CompatibilityBook`
on the process that sees them all (the xdist controller, or the only process). At the end of the
session :meth:`CompatibilityBook.write` writes one Markdown file per ``<backend>-<platform>-<os>``
(``sim-android-14.md``, ``wda-ios-17.5.md`` …), with a section per device: the device, its OS, the
client library versions, and pass/fail/skip per test, so users can publish what works where.
"""

from __future__ import annotations

import platform as platform_module
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import pytest

from ..storage.files import write_atomic
from .devices import DeviceFacts

__all__ = ["CLIENT_PACKAGES", "CompatibilityBook", "DeviceRecord", "OutcomeRecord", "client_versions"]

CLIENT_PACKAGES: tuple[str, ...] = (
    "agentic-mobile-control",
    "facebook-wda",
    "uiautomator2",
    "adbutils",
    "Appium-Python-Client",
    "selenium",
)
PROP_SPEC = "amc_spec"
PROP_TEST = "amc_test"
PROP_DEVICE = "amc_device"
PROP_CALLS = "amc_calls"
PROP_ARTIFACTS = "amc_artifacts"


def client_versions() -> dict[str, str]:
    """Installed versions of the harness and the device client libraries ("not installed" if absent)."""
    out: dict[str, str] = {}
    for name in CLIENT_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


@dataclass
class OutcomeRecord:
    """One test on one device, folded from its phase reports."""

    name: str
    outcome: str = "passed"
    duration: float = 0.0
    note: str = ""
    calls: str = ""

    def add(self, report: pytest.TestReport) -> None:
        self.duration += report.duration
        if report.skipped:
            self.outcome = "skipped"
            self.note = _skip_reason(report)
        elif report.failed:
            if report.when == "call":
                self.outcome = "failed"
            elif self.outcome != "failed":
                self.outcome = "error"
            self.note = _first_line(report.longreprtext) or self.note
        elif report.when == "call" and hasattr(report, "wasxfail"):
            self.outcome = "xpassed"


@dataclass
class DeviceRecord:
    spec: str
    facts: DeviceFacts | None = None
    tests: dict[str, OutcomeRecord] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.facts is not None:
            return self.facts.label
        return f"{self.spec.partition(':')[0]}-unknown"

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for test in self.tests.values():
            out[test.outcome] = out.get(test.outcome, 0) + 1
        return out


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip().startswith("E "):
            return line.strip()[1:].strip()[:200]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")[:300]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class CompatibilityBook:
    """Collects device test outcomes per device; writes the Markdown reports."""

    def __init__(self) -> None:
        self.devices: dict[str, DeviceRecord] = {}

    def add(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        spec = props.get(PROP_SPEC)
        if not isinstance(spec, str):
            return
        device = self.devices.setdefault(spec, DeviceRecord(spec))
        raw_facts = props.get(PROP_DEVICE)
        if isinstance(raw_facts, str) and device.facts is None:
            device.facts = DeviceFacts.from_json(raw_facts)
        name = str(props.get(PROP_TEST) or report.nodeid)
        test = device.tests.setdefault(name, OutcomeRecord(name))
        test.add(report)
        calls = props.get(PROP_CALLS)
        if isinstance(calls, str):
            test.calls = calls
        artifacts = props.get(PROP_ARTIFACTS)
        if isinstance(artifacts, str) and artifacts not in device.artifacts:
            device.artifacts.append(artifacts)

    def write(self, directory: Path) -> list[Path]:
        """One file per label; returns the files written (none when no device test reported)."""
        by_label: dict[str, list[DeviceRecord]] = {}
        for device in self.devices.values():
            by_label.setdefault(device.label, []).append(device)
        if not by_label:
            return []
        directory.mkdir(parents=True, exist_ok=True)
        versions = client_versions()
        written = []
        for label, devices in sorted(by_label.items()):
            path = directory / f"{_safe(label)}.md"
            text = _render(label, devices, versions)
            write_atomic(path, text.encode("utf-8"), what="the compatibility report")
            written.append(path)
        return written


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "._+-" else "_" for c in label)


def _render(label: str, devices: list[DeviceRecord], versions: dict[str, str]) -> str:
    lines = [f"# Device tests: {label}", ""]
    lines.append(
        f"Run on {datetime.now(UTC).date().isoformat()} with Python {sys.version.split()[0]} "
        f"({platform_module.system()}), pytest {pytest.__version__}."
    )
    lines.append("Clients: " + ", ".join(f"{name} {version}" for name, version in versions.items()) + ".")
    for device in devices:
        facts = device.facts
        lines += ["", f"## {device.spec}", ""]
        lines += ["| | |", "|---|---|"]
        lines.append(f"| spec | `{_cell(device.spec)}` |")
        if facts is not None:
            lines.append(f"| device | {_cell(facts.device_id)} |")
            lines.append(f"| platform | {facts.platform} |")
            lines.append(f"| OS version | {_cell(facts.os_version)} |")
            lines.append(f"| backend | {_cell(facts.backend)} |")
        else:
            lines.append("| device | never connected in this run |")
        counts = device.counts()
        summary = ", ".join(f"{counts[k]} {k}" for k in sorted(counts))
        lines += ["", f"Result: {summary}.", ""]
        lines += ["| test | outcome | time (s) | driver calls | note |", "|---|---|---|---|---|"]
        for test in sorted(device.tests.values(), key=lambda t: t.name):
            lines.append(
                f"| `{_cell(test.name)}` | {test.outcome} | {test.duration:.2f} | {_cell(test.calls)} "
                f"| {_cell(test.note)} |"
            )
        if device.artifacts:
            lines += ["", "Failure evidence: " + ", ".join(f"`{a}`" for a in device.artifacts)]
    return "\n".join(lines) + "\n"
