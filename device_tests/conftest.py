"""Device runs talk to the user's adb server, not to the unit tests' dead one.

``tests/conftest.py`` pins adb to an unreachable port (and adbutils to ``/bin/false``) when it is
imported, which happens whenever ``tests/`` is collected, including for ``pytest -m device``. When a
run selects only device tests and may drive a real device, this puts back the values the shell had
when pytest started (``amc.pytest_plugin.LAUNCH_ENVIRON``), so discovery and ``android:SERIAL``
reach the real adb server. Runs on simulated devices only, and every other run, are left alone.
"""

from __future__ import annotations

import os

import pytest
from amc.pytest_plugin import LAUNCH_ENVIRON, requires_device_mark, state_of

ADB_ENVIRONMENT = ("ANDROID_ADB_SERVER_HOST", "ANDROID_ADB_SERVER_PORT", "ADBUTILS_ADB_PATH")


@pytest.hookimpl(trylast=True)  # after the plugin's own pytest_configure has parsed the options
def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("amc"):
        # -p no:amc (or an install without the entry point): keep `-m "not device"` valid.
        for name in ("device", "android", "ios"):
            config.addinivalue_line("markers", f"{name}: needs the amc pytest plugin (pip install -e .)")
        return
    targets = state_of(config).options.targets
    real_devices = not targets or any(not target.in_process for target in targets)
    if not (requires_device_mark(config) and real_devices):
        return
    for key in ADB_ENVIRONMENT:
        if key in LAUNCH_ENVIRON:
            os.environ[key] = LAUNCH_ENVIRON[key]
        else:
            os.environ.pop(key, None)
