"""`pytest -m device` reaches the adb server the user's environment names, wherever it is started.

Each documented command runs in a subprocess, as a user types it, against a fake adb server (the
simulated device's adb face on 127.0.0.1) at the address ``ANDROID_ADB_SERVER_PORT`` gives: from
the repository root, from ``device_tests/``, and from a project of the user's own that only has
the plugin installed. Discovery must list the face's phone and the device tests must run on it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.sim.adb_face import AdbFace
from amc.sim.device import SimDevice

REPO = Path(__file__).resolve().parents[2]
SERIAL = "user-phone-1"

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def adb_server() -> Iterator[int]:
    face = AdbFace([SimDevice("android", SERIAL)]).start()
    try:
        yield face.port
    finally:
        face.stop()


def _user_environment(**changes: str | None) -> dict[str, str]:
    """The environment a user's shell would have: none of the unit tests' pins."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANDROID_ADB_SERVER_", "PYTEST_", "AMC_"))
        and key not in ("WDA_URL", "APPIUM_URL")
    }
    env["ADBUTILS_ADB_PATH"] = "/bin/false"  # never start a real adb daemon from a test
    env["AMC_SIM_TIMING"] = "instant"
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _pytest(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )


@pytest.mark.parametrize("where", [".", "device_tests"])
def test_pytest_m_device_in_the_repository_reaches_the_adb_server_the_environment_names(
    adb_server: int, where: str, tmp_path: Path
) -> None:
    env = _user_environment(ANDROID_ADB_SERVER_HOST="127.0.0.1", ANDROID_ADB_SERVER_PORT=str(adb_server))
    done = _pytest(
        [
            "-m",
            "device",
            "-v",
            "-k",
            "launching_sets_current_app",
            "--amc-artifacts",
            str(tmp_path / "artifacts"),
            "--amc-reports",
            "none",
        ],
        REPO / where,
        env,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"test_launching_sets_current_app_to_the_real_id[android:{SERIAL}] PASSED" in out, out
    assert "1 passed" in out and "skipped" not in out, out


def test_pytest_m_device_in_a_users_own_project_reaches_it_too(adb_server: int, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_phone.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.device\n"
        "def test_the_phone_answers(amc_driver):\n"
        "    scene = amc_driver.observe()\n"
        "    print('SERIAL', amc_driver.device_id)\n"
        "    assert len(scene) > 0\n",
        encoding="utf-8",
    )
    env = _user_environment(ANDROID_ADB_SERVER_PORT=str(adb_server), ANDROID_ADB_SERVER_HOST=None)
    done = _pytest(["-m", "device", "-s", "-q", "--amc-reports", "none"], project, env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"SERIAL {SERIAL}" in out and "1 passed" in out, out


def test_with_no_address_in_the_environment_discovery_asks_the_default_one(tmp_path: Path) -> None:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 5037)) == 0:
            pytest.skip("something listens on 127.0.0.1:5037 (an adb server?): the default address is taken")
    env = _user_environment(ANDROID_ADB_SERVER_PORT=None, ANDROID_ADB_SERVER_HOST=None)
    done = _pytest(["-m", "device", "-q", "-rs", "--amc-reports", "none"], REPO, env)
    out = done.stdout + done.stderr
    assert "127.0.0.1:5037" in out and "127.0.0.1:1" not in out, out
