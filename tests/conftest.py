"""The unit tests' safety: no real adb server, no network beyond 127.0.0.1, instant simulated screens.

Everything here is a fixture of the tests under ``tests/``, set up when the first of them runs and
undone after the last: importing this module changes nothing, so ``pytest -m device`` (which
collects ``tests/`` beside ``device_tests/`` but runs none of its tests) reaches the adb server,
WebDriverAgent and Appium that the user's environment names.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.netguard import loopback_only

UNIT_TEST_ENVIRONMENT = {
    # adbutils starts its bundled adb daemon when no server answers; make that fail fast instead.
    "ADBUTILS_ADB_PATH": "/bin/false",
    # Nothing in the tests may reach a real adb server on the default port.
    "ANDROID_ADB_SERVER_HOST": "127.0.0.1",
    "ANDROID_ADB_SERVER_PORT": "1",
    # The simulated device takes its time by default (as a phone does); these tests want instant
    # screens unless they ask for `timing=realistic` (tests/flows/test_timing.py, the flows on every face).
    "AMC_SIM_TIMING": "instant",
    # An instant screen is settled at once: the second look need not wait the 0.2 s a real phone's
    # transitions are given (tests of realistic timing set the interval they need).
    "AMC_SETTLE_INTERVAL": "0.01",
}
# Addresses of real servers a user may have set for `pytest -m device`: never reached from here.
REAL_SERVERS = ("WDA_URL", "APPIUM_URL")


@pytest.fixture(autouse=True, scope="session")
def _unit_test_environment() -> Iterator[None]:
    """Pin the environment above for the unit tests' whole session (their subprocesses inherit it;
    a test that needs another value sets it itself) and put the user's back after."""
    saved = {key: os.environ.get(key) for key in (*UNIT_TEST_ENVIRONMENT, *REAL_SERVERS)}
    os.environ.update(UNIT_TEST_ENVIRONMENT)
    for key in REAL_SERVERS:
        os.environ.pop(key, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    with loopback_only():
        yield


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_reaches_children() -> Iterator[None]:
    """A shell's background job (``.ci/run &``, ``nohup``) starts with SIGINT ignored, and an ignored
    signal stays ignored across ``exec``: every `amc` the tests start would then shrug off the
    Ctrl-C the interrupt tests send it. Children of the tests take SIGINT's default again."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if before == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
