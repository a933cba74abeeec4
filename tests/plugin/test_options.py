"""The plugin's option values: device specs, platforms, secrets in specs, app ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.connect.simulated import SimDriver
from amc.core.errors import ConfigError
from amc.pytest_plugin.devices import TrackedDriver
from amc.pytest_plugin.options import (
    DEFAULT_SECOND_APPS,
    DeviceTarget,
    PluginOptions,
    parse_app_options,
    parse_target,
    platform_of,
    redact_spec,
)
from amc.pytest_plugin.report import CompatibilityBook


@pytest.mark.parametrize(
    ("spec", "platform"),
    [
        ("sim:android", "android"),
        ("sim:ios?id=SIM-2", "ios"),
        ("sim+wda:ios", "ios"),
        ("sim+adb:android", "android"),
        ("sim+appium:ios", "ios"),
        ("android:emulator-5554", "android"),
        ("ios:http://127.0.0.1:8100", "ios"),
        ("ios:00008110-000A1C", "ios"),
        ("appium:http://127.0.0.1:4723/wd/hub?platform=android", "android"),
        ("appium:http://127.0.0.1:4723?platformName=iOS", "ios"),
        ("appium:http://127.0.0.1:4723", None),
    ],
)
def test_the_platform_is_read_from_the_spec_without_connecting(spec: str, platform: str | None) -> None:
    assert platform_of(spec) == platform


def test_a_simulated_device_can_be_named() -> None:
    target = parse_target("sim:android?id=emulator-5556")

    assert target.connect_spec == "sim:android"
    assert target.connect_options == {"device_id": "emulator-5556"}
    assert target.in_process and target.platform == "android"
    assert target.display == "sim:android?id=emulator-5556"
    assert DeviceTarget.from_wire(target.to_wire()) == target
    assert parse_target("sim+wda:ios?id=a").connect_options == {"device_id": "a"}
    assert parse_target("android:SERIAL").connect_options == {}


def test_a_simulated_device_plays_the_profile_its_spec_names() -> None:
    target = parse_target("sim+adb:android?api=29&id=old-phone")
    assert (target.connect_spec, target.connect_options) == (
        "sim+adb:android?api=29",
        {"device_id": "old-phone"},
    )
    assert parse_target("sim+wda:ios?ios=15&wda=4").connect_spec == "sim+wda:ios?ios=15&wda=4"
    assert parse_target("sim:ios?wda=10").key != parse_target("sim:ios?wda=9").key  # one lease each


@pytest.mark.parametrize(
    "spec",
    [
        "sim:android?id=",
        "sim:android?id=a&id=b",
        "sim:ios?name=x",
        "sim:android?api=30",
        "sim:android?api=abc",
        "sim:android?wda=10",
        "sim:ios?ios=14",
        "sim+wda:ios?wda=7",
        "sim:android?api=34&api=35",
        "nope:x",
        "",
    ],
)
def test_bad_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_target(spec)


def test_secrets_in_specs_are_hidden_from_ids_and_reports() -> None:
    spec = "appium:https://alice:s3cret@hub.example.com/wd/hub?platform=ios&accessKey=abc&udid=123"

    shown = redact_spec(spec)

    assert "s3cret" not in shown and "abc" not in shown
    assert shown == "appium:https://alice:***@hub.example.com/wd/hub?platform=ios&accessKey=***&udid=123"
    assert parse_target(spec).display == shown
    assert redact_spec("ios:http://127.0.0.1:8100") == "ios:http://127.0.0.1:8100"
    assert parse_target(spec).key == parse_target(spec).key and "s3cret" not in parse_target(spec).key


def test_app_options_override_per_platform() -> None:
    assert parse_app_options(["android=com.google.android.deskclock"], "--amc-second-app") == {
        "android": "com.google.android.deskclock"
    }
    options = PluginOptions.parse(
        devices=["sim:ios", "sim:ios"],
        apps=["ios=com.apple.mobilenotes"],
        second_apps=[],
        artifacts=Path("a"),
        reports=None,
        lock_dir=None,
        lease_timeout=5,
    )
    assert [t.spec for t in options.targets] == ["sim:ios"]
    ios = options.apps_for("ios")
    assert (ios.app, ios.second, ios.settings) == (
        "com.apple.mobilenotes",
        DEFAULT_SECOND_APPS["ios"],
        "com.apple.Preferences",
    )
    assert options.apps_for("android").app == "com.android.settings"


def test_the_tracked_driver_counts_calls_and_resets_only_what_the_test_launched() -> None:
    sim = SimDriver("android")
    sim.device.launch("com.example.amc.demo")  # running before the test: left alone
    driver = TrackedDriver(sim)

    driver.launch_app("com.android.settings")
    driver.launch_app("com.android.deskclock")
    driver.terminate_app("com.android.deskclock")
    driver.observe()
    assert driver.calls == {"launch_app": 2, "terminate_app": 1, "observe": 1}
    assert driver.launched == ["com.android.settings"]

    before = sim.requests
    driver.reset()

    assert sim.requests - before == 2  # one terminate, one home
    assert sim.device.running_apps() == ("com.example.amc.demo",)
    assert sim.device.foreground() == sim.device.launcher
    assert driver.total_calls == 4  # the reset is not the test's


def test_an_empty_book_writes_nothing(tmp_path: Path) -> None:
    assert CompatibilityBook().write(tmp_path / "reports") == []
    assert not (tmp_path / "reports").exists()
