"""Device tests run against what the user's environment names: ``tests/conftest.py`` pins the unit
tests' environment only while they run (a fixture), so nothing needs putting back here."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("amc"):
        # -p no:amc (or an install without the entry point): keep `-m "not device"` valid.
        for name in ("device", "android", "ios"):
            config.addinivalue_line("markers", f"{name}: needs the amc pytest plugin (pip install -e .)")
