"""Test-wide safety: no real adb server, no network beyond 127.0.0.1."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.netguard import loopback_only

# adbutils starts its bundled adb daemon when no server answers; make that fail fast instead.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"
# Nothing in the tests may reach a real adb server on the default port.
os.environ.setdefault("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
os.environ.setdefault("ANDROID_ADB_SERVER_PORT", "1")
# The simulated device takes its time by default (as a phone does); these tests want instant screens
# unless they ask for `timing=realistic` (tests/flows/test_timing.py and the flows run on every face).
os.environ["AMC_SIM_TIMING"] = "instant"


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    with loopback_only():
        yield
