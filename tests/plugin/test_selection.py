"""The plugin's command line, markers and test selection, run through pytester."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from amc.drivers.base import DeviceInfo
from amc.pytest_plugin import requires_device_mark
from amc.pytest_plugin.selection import DEVICE_MARKS, markexpr_allows

DEVICE_AND_UNIT = """
import pytest

pytestmark = []


@pytest.mark.device
def test_on_a_device(amc_driver):
    assert amc_driver.current_app() is None


def test_plain():
    assert pytestmark == []
"""

PLATFORM_TESTS = """
import pytest

pytestmark = pytest.mark.device


@pytest.mark.android
def test_android_only(amc_driver):
    assert amc_driver.platform == "android"


@pytest.mark.ios
def test_ios_only(amc_driver):
    assert amc_driver.platform == "ios"


def test_everywhere(amc_driver, amc_apps):
    assert amc_apps.settings in ("com.android.settings", "com.apple.Preferences")
"""


def test_help_lists_the_amc_option_group(amc_pytester: pytest.Pytester) -> None:
    result = amc_pytester.runpytest("--help")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["agentic-mobile-control device tests:"])
    for option in (
        "--amc-device=SPEC",
        "--amc-app=PLATFORM=ID",
        "--amc-second-app=PLATFORM=ID",
        "--amc-artifacts=DIR",
        "--amc-reports=DIR",
        "--amc-lock-dir=DIR",
        "--amc-lease-timeout=SECONDS",
    ):
        assert option in result.stdout.str(), option


def test_markers_are_registered_and_strict_markers_accepts_them(amc_pytester: pytest.Pytester) -> None:
    markers = amc_pytester.runpytest("--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.device:*", "@pytest.mark.android:*", "@pytest.mark.ios:*"])

    amc_pytester.makepyfile(
        """
        import pytest

        @pytest.mark.device
        @pytest.mark.android
        @pytest.mark.ios
        def test_marked():
            pass
        """
    )
    result = amc_pytester.runpytest(
        "--strict-markers", "-m", "device or not device", "--amc-device", "sim:ios"
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--amc-device", "nonsense:x"], "*bad device spec 'nonsense:x': unknown scheme*accepted forms*"),
        (["--amc-device", "sim:android?id=a b"], "*id='a b' is not a device name*"),
        (
            ["--amc-device", "sim:android?api=16"],
            "*no simulated Android profile for API 16*accepted api values*",
        ),
        (["--amc-app", "windows=notepad"], "*bad --amc-app value 'windows=notepad'*PLATFORM=APP_ID*"),
        (["--amc-second-app", "android"], "*bad --amc-second-app value 'android'*"),
        (["--amc-lease-timeout", "0"], "*--amc-lease-timeout must be above 0*"),
    ],
)
def test_bad_options_are_usage_errors(amc_pytester: pytest.Pytester, args: list[str], message: str) -> None:
    result = amc_pytester.runpytest(*args)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_plain_run_deselects_device_tests_without_discovery(
    amc_pytester: pytest.Pytester, fake_discovery: Callable[[list[DeviceInfo]], list[int]]
) -> None:
    calls = fake_discovery([DeviceInfo("sim:android", "android", "sim")])
    amc_pytester.makepyfile(DEVICE_AND_UNIT)

    result = amc_pytester.runpytest()

    result.assert_outcomes(passed=1, deselected=1)
    assert calls == []  # nothing asked the adb server or usbmux


def test_minus_m_device_selects_only_device_tests(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(DEVICE_AND_UNIT)

    result = amc_pytester.runpytest("-m", "device", "--amc-device", "sim:android", "-v")

    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_on_a_device?sim:android? PASSED*"])


def test_without_a_device_device_tests_skip_saying_what_was_looked_for(
    amc_pytester: pytest.Pytester, fake_discovery: Callable[[list[DeviceInfo]], list[int]]
) -> None:
    calls = fake_discovery([])
    amc_pytester.makepyfile(DEVICE_AND_UNIT)

    result = amc_pytester.runpytest("-m", "device", "-rs")

    result.assert_outcomes(skipped=1, deselected=1)
    text = result.stdout.str()
    assert "no device to test: --amc-device was not given and discovery found no usable device" in text
    assert "the adb server at" in text and "usbmux" in text and "WDA_URL" in text
    for how in ("adb devices", "--amc-device ios:http://HOST:8100", "--amc-device 'appium:http://HOST:4723"):
        assert how in text, how
    assert calls == [1]  # discovered once for the whole run


def test_a_device_found_but_unusable_is_named_in_the_skip_reason(
    amc_pytester: pytest.Pytester, fake_discovery: Callable[[list[DeviceInfo]], list[int]]
) -> None:
    fake_discovery([DeviceInfo("android:R58M123", "android", "u2", state="unauthorized")])
    amc_pytester.makepyfile(DEVICE_AND_UNIT)

    result = amc_pytester.runpytest("-m", "device", "-rs")

    result.assert_outcomes(skipped=1, deselected=1)
    assert "android:R58M123 is unauthorized (unlock the phone and accept the 'Allow USB debugging?'" in (
        result.stdout.str()
    )


def test_discovered_devices_parametrize_the_device_tests(
    amc_pytester: pytest.Pytester, fake_discovery: Callable[[list[DeviceInfo]], list[int]]
) -> None:
    fake_discovery([DeviceInfo("sim:ios", "ios", "sim"), DeviceInfo("sim:android", "android", "sim")])
    amc_pytester.makepyfile(DEVICE_AND_UNIT)

    result = amc_pytester.runpytest("-m", "device", "-v")

    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(
        ["*test_on_a_device?sim:ios? PASSED*", "*test_on_a_device?sim:android? PASSED*"]
    )


def test_platform_marked_tests_run_only_on_their_platform(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(PLATFORM_TESTS)

    result = amc_pytester.runpytest(
        "-m", "device", "--amc-device", "sim:android", "--amc-device", "sim:ios", "-rs"
    )

    result.assert_outcomes(passed=4, skipped=2)
    result.stdout.fnmatch_lines(["*android-only test; sim:ios is an ios device*"])
    result.stdout.fnmatch_lines(["*ios-only test; sim:android is an android device*"])


def test_minus_m_android_selects_the_android_tests(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(PLATFORM_TESTS)

    result = amc_pytester.runpytest("-m", "device and android", "--amc-device", "sim:android")

    result.assert_outcomes(passed=1, deselected=2)


def test_named_simulated_devices_get_their_own_ids(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(
        """
        def test_id(amc_driver):
            assert amc_driver.device_id in ("emulator-5556", "emulator-5558")
        """
    )

    result = amc_pytester.runpytest(
        "-m",
        "device",
        "--amc-device",
        "sim:android?id=emulator-5556",
        "--amc-device",
        "sim:android?id=emulator-5558",
    )

    result.assert_outcomes(passed=2)


def test_an_unreachable_named_device_fails_fast_with_the_reason(amc_pytester: pytest.Pytester) -> None:
    amc_pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.device

        def test_one(amc_driver):
            pass

        def test_two(amc_driver):
            pass
        """
    )

    result = amc_pytester.runpytest("-m", "device", "--amc-device", "ios:http://127.0.0.1:1")

    result.assert_outcomes(errors=2)
    text = result.stdout.str()
    assert (
        text.count("could not connect to ios:http://127.0.0.1:1: nothing answers at http://127.0.0.1:1") >= 2
    )


@pytest.mark.parametrize(
    ("markexpr", "only_devices", "devices_allowed"),
    [
        ("device", True, True),
        ("device and ios", True, True),
        ("not device", False, False),
        ("device or not device", False, True),
        ("slow", False, False),
        (None, False, True),
    ],
)
def test_the_mark_expression_decides_whether_devices_are_touched(
    amc_pytester: pytest.Pytester, markexpr: str | None, only_devices: bool, devices_allowed: bool
) -> None:
    amc_pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    config = amc_pytester.parseconfigure(*(["-m", markexpr] if markexpr is not None else []))

    assert requires_device_mark(config) is only_devices
    assert markexpr_allows(config, DEVICE_MARKS) is devices_allowed
