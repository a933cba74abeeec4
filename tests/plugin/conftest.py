"""Helpers for running the amc plugin inside pytester (in process unless a test says otherwise)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import amc.connect.simulated  # noqa: F401 - imported here so in-process runs do not re-import it each time
import pytest
from amc.drivers.base import DeviceInfo

INI = """
[pytest]
addopts = -m "not device" -p no:cacheprovider -p no:hypothesispytest
amc_artifacts = artifacts
amc_reports = reports
timeout = 60
# In process, the harness is already imported when the plugin's distribution is marked for rewriting.
filterwarnings = ignore::pytest.PytestAssertRewriteWarning
"""


@pytest.fixture
def amc_pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester folder configured like this project: device tests deselected unless -m device."""
    pytester.makeini(INI)
    return pytester


@pytest.fixture
def fake_discovery(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[DeviceInfo]], list[int]]:
    """Make discovery return the given devices; the returned list counts the calls."""
    calls: list[int] = []

    def install(devices: list[DeviceInfo]) -> list[int]:
        def discover() -> list[DeviceInfo]:
            calls.append(1)
            return list(devices)

        monkeypatch.setattr("amc.pytest_plugin.selection.discover", discover)
        return calls

    return install


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
