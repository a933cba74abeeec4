"""The migration guide's worked example: Appium's Python sample tests for ApiDemos, ported to the
pytest plugin (``examples/appium-pytest/``), run as a user runs them, with pytest in a subprocess,
on the simulated phone with the ApiDemos stand-in installed, behind Appium's protocol and adb."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from amc.core.errors import ConfigError
from amc.drivers.connect import parse_sim_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "appium-pytest"
DEVICES = (
    "sim+appium:android?install=io.appium.android.apis",
    "sim+adb:android?install=io.appium.android.apis",
)
TESTS = 7  # the ported tests: create_session 1, basic_interactions 2, selectors 4


def run_example(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AMC_"))}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(EXAMPLE / "pytest.ini"),
        str(EXAMPLE),
        "-p",
        "no:xdist",
    ]
    return subprocess.run(
        [*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_ported_suite_passes_on_both_faces(tmp_path: Path) -> None:
    devices = [f"--amc-device={spec}" for spec in DEVICES]
    done = run_example(*devices, f"--amc-artifacts={tmp_path}", "-q", "-rA", cwd=tmp_path)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{TESTS * len(DEVICES)} passed" in done.stdout
    for name in (
        "test_should_send_keys_to_search_box_and_then_check_the_value",
        "test_should_find_elements_by_xpath",
    ):
        for spec in DEVICES:
            assert f"{name}[{spec}]" in done.stdout, done.stdout[-3000:]


def test_the_guide_shows_the_command_this_test_runs() -> None:
    for page in (ROOT / "docs" / "migrating.md", EXAMPLE / "README.md"):
        text = page.read_text()
        assert "pytest -c examples/appium-pytest/pytest.ini examples/appium-pytest" in text, page
        for spec in DEVICES:
            assert f"--amc-device '{spec}'" in text, (page, spec)


def test_without_the_stand_in_the_suite_fails_and_says_which_app_is_missing(tmp_path: Path) -> None:
    done = run_example("--amc-device=sim:android", f"--amc-artifacts={tmp_path}", "-q", "-x", cwd=tmp_path)

    assert done.returncode == 1, done.stdout[-3000:]
    assert "io.appium.android.apis" in done.stdout
    assert "1 failed" in done.stdout


def test_an_unknown_stand_in_is_a_usage_error_naming_it() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_sim_target("sim", "android?install=com.example.mine")
    assert "install='com.example.mine'" in caught.value.message
    assert "io.appium.android.apis" in (caught.value.hint or "")
    with pytest.raises(ConfigError, match="names an app twice"):
        parse_sim_target("sim", "android?install=io.appium.android.apis,io.appium.android.apis")
    assert parse_sim_target("sim", "ios?install=com.test.cert.TestCert").install == (
        "com.test.cert.TestCert",
    )
