"""``amc_flows``: a device test runs flow files on its device through the flow runner ``amc run`` uses."""

from __future__ import annotations

import pytest

FLOW_TESTS = '''
import pytest

pytestmark = pytest.mark.device

LOGIN = """name: login
steps:
  - launch_app: com.example.amc.demo
  - assert_visible: {id: username}
"""
WRONG = """name: wrong
steps:
  - launch_app: com.example.amc.demo
  - wait_for: {text: Not on this screen, timeout: 0.3}
"""


def test_a_flow_passes(amc_flows, amc_driver, tmp_path):
    (tmp_path / "login.yaml").write_text(LOGIN)
    result = amc_flows(tmp_path / "login.yaml")
    assert result.passed, result.outcomes
    (outcome,) = result.outcomes
    assert outcome.device == "sim:android" and outcome.report.is_file()
    assert amc_driver.launched == ["com.example.amc.demo"]  # the plugin's reset terminates it


def test_a_flow_fails(amc_flows, tmp_path):
    (tmp_path / "wrong.yaml").write_text(WRONG)
    result = amc_flows(tmp_path / "wrong.yaml")
    assert result.passed, result.outcomes[0].first_failure
'''


def test_amc_flows_runs_flow_files_on_the_tests_device(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(test_flows=FLOW_TESTS)
    result = amc_pytester.runpytest("-m", "device", "--amc-device", "sim:android")
    result.assert_outcomes(passed=1, failed=1)
    failure = "*step 2 wait_for at *wrong.yaml:4:5: TargetNotFound*"
    result.stdout.fnmatch_lines(["*test_a_flow_fails*", failure])
