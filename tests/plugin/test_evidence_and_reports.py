"""What the plugin leaves behind: per-test resets, failure evidence and compatibility reports."""

from __future__ import annotations

import json

import pytest

from tests.plugin.conftest import read

RESET_TESTS = """
import pytest
from amc.core.models import PlannedStep

pytestmark = pytest.mark.device


def test_1_launches_two_apps(amc_driver, amc_runner, amc_apps):
    steps = [PlannedStep("launch_app", {"app_id": app}) for app in (amc_apps.app, amc_apps.second)]
    assert amc_runner(steps).run("two apps").succeeded
    assert amc_driver.launched == [amc_apps.app, amc_apps.second]


def test_2_starts_on_the_home_screen_with_nothing_running(amc_driver, amc_device):
    sim = amc_device.driver.device
    assert sim.running_apps() == ()
    assert amc_driver.current_app() is None
    assert amc_driver.calls == {"current_app": 1}
"""

FAILING_TESTS = """
import pytest
from amc.core.models import PlannedStep

pytestmark = pytest.mark.device


def test_fails_after_a_task(amc_driver, amc_runner, amc_apps):
    result = amc_runner([PlannedStep("launch_app", {"app_id": amc_apps.app})]).run("open it")
    assert result.world.current_app == "com.example.something.else"


def test_passes(amc_driver):
    pass


@pytest.mark.ios
def test_ios_only(amc_driver):
    pass
"""


def test_each_test_gets_the_device_back_on_the_home_screen(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(RESET_TESTS)

    result = amc_pytester.runpytest("-m", "device", "--amc-device", "sim:android", "--amc-device", "sim:ios")

    result.assert_outcomes(passed=4)


def test_the_runner_factory_keeps_the_world_model_on(
    amc_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AMC_WORLD_ENABLED", "0")
    amc_pytester.makepyfile(
        """
        import pytest
        from amc.core.models import PlannedStep
        from amc.runtime.task import TaskRunnerConfig

        @pytest.mark.device
        def test_world(amc_driver, amc_runner, amc_apps):
            config = TaskRunnerConfig.from_env(semantic=False)
            assert not config.world.enabled
            steps = [PlannedStep("launch_app", {"app_id": amc_apps.app})]
            runner = amc_runner(steps, config=config, history_size=2)
            result = runner.run("launch")
            assert result.world is not None and result.world.current_app == amc_apps.app
            assert result.world.history_size == 2
            assert result.steps[0].page is not None  # enrichment on as well
        """
    )

    result = amc_pytester.runpytest("-m", "device", "--amc-device", "sim:android")

    result.assert_outcomes(passed=1)


def test_a_failing_device_test_saves_and_names_its_evidence(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(FAILING_TESTS)

    result = amc_pytester.runpytest("-m", "device", "--amc-device", "sim:android", "--junitxml=junit.xml")

    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*- amc device evidence -*",
            "saved in *artifacts*test_fails_after_a_task*:",
            "  screenshot.png",
            "  scene.json",
            "  steps.json",
        ]
    )
    folders = [p for p in (amc_pytester.path / "artifacts").iterdir() if p.is_dir()]
    assert len(folders) == 1 and "test_fails_after_a_task" in folders[0].name  # nothing for passing tests
    evidence = folders[0]
    assert (evidence / "screenshot.png").read_bytes().startswith(b"\x89PNG")
    scene = json.loads(read(evidence / "scene.json"))
    assert scene["foreground_app"] == "com.android.settings" and scene["root"]["children"]
    steps = json.loads(read(evidence / "steps.json"))
    assert [s["step"]["action"] for s in steps] == ["launch_app"]
    assert steps[0]["goal"] == "open it" and steps[0]["result"]["success"] is True
    assert steps[0]["world"]["current_app"] == "com.android.settings"
    assert steps[0]["world"]["history"][0]["args"] == {"app_id": "com.android.settings"}
    junit = read(amc_pytester.path / "junit.xml")
    assert 'name="amc_artifacts"' in junit and evidence.name in junit


def test_a_device_run_writes_a_compatibility_report_per_backend_and_os(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(FAILING_TESTS)

    amc_pytester.runpytest(
        "-m", "device", "--amc-device", "sim:android?id=emulator-5556", "--amc-device", "sim:ios"
    ).assert_outcomes(passed=3, failed=2, skipped=1)

    reports = amc_pytester.path / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["sim-android-14.md", "sim-ios-18.5.md"]
    android = read(reports / "sim-android-14.md")
    assert android.startswith("# Device tests: sim-android-14\n")
    assert "## sim:android?id=emulator-5556" in android
    assert "| device | emulator-5556 |" in android and "| OS version | 14 |" in android
    assert "uiautomator2 " in android and "facebook-wda " in android and "Appium-Python-Client " in android
    assert "Result: 1 failed, 1 passed, 1 skipped." in android
    module = "test_a_device_run_writes_a_compatibility_report_per_backend_and_os.py"
    assert f"| `{module}::test_passes` | passed |" in android
    assert f"| `{module}::test_fails_after_a_task` | failed |" in android
    assert "ios-only test; sim:android?id=emulator-5556 is an android device" in android
    assert "launch_app 1" in android  # driver calls per test
    assert "Failure evidence: `" in android
    ios = read(reports / "sim-ios-18.5.md")
    assert "| OS version | 18.5 |" in ios and "Result: 1 failed, 2 passed." in ios


def test_reports_none_writes_no_report(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(FAILING_TESTS)

    amc_pytester.runpytest("-m", "device", "--amc-device", "sim:ios", "--amc-reports", "none")

    assert not (amc_pytester.path / "reports").exists()


def test_a_plain_run_writes_no_report(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(FAILING_TESTS)

    amc_pytester.runpytest().assert_outcomes(deselected=3)

    assert not (amc_pytester.path / "reports").exists()
    assert not (amc_pytester.path / "artifacts").exists()
