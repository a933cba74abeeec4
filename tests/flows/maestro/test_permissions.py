"""Maestro's permission semantics, launch arguments and the keychain, with `amc run` on the simulated
apps in process and over every face (the real client libraries on the real wire protocols).

Maestro's launchApp allows every permission the app asks for unless `permissions` says otherwise
(Orchestra.kt launchAppCommand); `permissions` takes names and `all`, with allow, deny or unset;
setPermissions sets them on their own. The simulated Notes app asks to send notifications on its
first launch: its system prompt (an "Allow" button) shows only while the permission is unset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amc.actions import ACTIONS
from amc.drivers.connect import connect
from amc.sim.catalog import DEMO_APP, NOTES_APP
from amc.sim.device import INSTANT, SimDevice
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

SPECS = [
    "sim:android",
    "sim:ios",
    "sim+adb:android",
    "sim+wda:ios",
    "sim+appium:android",
    "sim+appium:ios",
]

GRANTED_BY_DEFAULT = """
appId: com.example.amc.notes
---
- launchApp                       # Maestro: {all: allow}, so no prompt
- assertNotVisible: Allow
- launchApp:
    clearState: true              # its permissions are unset again, then allowed again
- assertNotVisible: Allow
- launchApp:
    clearState: true
    permissions: {notifications: unset}   # cleared and left unanswered: the app asks again
- assertVisible: Allow
- tapOn: Allow
- setPermissions:
    permissions: {notifications: unset}   # Android: pm revoke; iOS: left as answered (Maestro's runner)
- launchApp:
    permissions: {notifications: allow}
- assertNotVisible: Allow
- clearKeychain                   # an iOS Simulator's keychain; nothing on Android
"""


@pytest.mark.parametrize("spec", SPECS)
def test_launch_app_allows_what_the_app_asks_unless_told_and_set_permissions_sets_it(
    spec: str, tmp_path: Path
) -> None:
    flow = write_flow(tmp_path, GRANTED_BY_DEFAULT)
    result = amc("run", flow, "--device", f"{spec}?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    run_dir = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    statuses = [s["status"] for s in read_timeline(run_dir).steps]
    assert statuses == ["passed"] * 11, statuses


DENIED = """
appId: com.example.amc.notes
---
- launchApp:
    permissions: {notifications: deny}
- runFlow:
    when: {platform: Android}     # Android: pm revoke leaves it requestable, the app asks again
    commands: [{assertVisible: Allow}]
- runFlow:
    when: {platform: iOS}         # iOS: a recorded denial, no prompt
    commands: [{assertNotVisible: Allow}]
"""


@pytest.mark.parametrize("spec", SPECS)
def test_a_denied_permission_is_asked_again_on_android_and_not_on_ios(spec: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, DENIED)
    result = amc("run", flow, "--device", f"{spec}?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err


def _device(spec: str) -> tuple[Any, SimDevice]:
    if spec.startswith("sim:"):
        driver = connect(spec + "?timing=instant")
        return driver, driver.device  # type: ignore[attr-defined]
    device = SimDevice("ios" if spec.endswith("ios") else "android", timing=INSTANT)
    return connect(spec, device=device), device


@pytest.mark.parametrize("spec", ["sim:ios", "sim+wda:ios", "sim+appium:ios"])
def test_launch_arguments_reach_the_ios_app_as_maestro_passes_them(spec: str) -> None:
    driver, device = _device(spec)
    try:
        args = ACTIONS["launch_app"].validate(
            {"app_id": DEMO_APP, "stop_first": True, "arguments": {"user": "qa", "isMaestro": "true"}}
        )
        ACTIONS["launch_app"].handler(driver, args, None)  # type: ignore[arg-type]
        # IOSLaunchArguments.kt: -name value, a true/false value under its bare name
        assert device.launch_arguments(DEMO_APP) == (("-user", "qa", "isMaestro", "true"), {})
        assert device.foreground() == DEMO_APP
    finally:
        driver.close()


ANDROID_SPECS = ["sim:android", "sim+adb:android", "sim+appium:android"]
HOSTILE = 'x\'; am force-stop com.example.amc.demo; echo "$(reboot)" `id` & ;'


@pytest.mark.parametrize("spec", ANDROID_SPECS)
def test_launch_arguments_reach_the_android_app_as_typed_intent_extras(spec: str) -> None:
    driver, device = _device(spec)
    try:
        arguments = {"flag": True, "count": 4, "big": 2**40, "ratio": 4.5, "user": "qa", "evil": HOSTILE}
        args = ACTIONS["launch_app"].validate(
            {"app_id": DEMO_APP, "stop_first": True, "arguments": arguments}
        )
        ACTIONS["launch_app"].handler(driver, args, None)  # type: ignore[arg-type]
        extras = device.launch_extras(DEMO_APP)
        # Maestro's AndroidLaunchArguments.kt: Boolean, Int, Long, Double, String; the hostile value
        # arrives whole and runs nothing (the app is still in front, not stopped by it)
        assert extras["flag"] is True and extras["count"] == 4 and extras["big"] == 2**40
        assert extras["user"] == "qa" and extras["evil"] == HOSTILE
        assert type(extras["count"]) is int and type(extras["ratio"]) is float
        assert extras["ratio"] == 4.5  # appium: a float extra (its driver has no double type)
        assert device.foreground() == DEMO_APP
    finally:
        driver.close()


def test_the_phone_shell_gets_am_start_with_each_extra_quoted() -> None:
    from amc.drivers.launching import am_extra_words, android_extras
    from amc.sim.adb_shell import AndroidShell
    from amc.sim.intent_extras import ExtraError, parse_extras

    device = SimDevice("android", timing=INSTANT)
    words = am_extra_words(android_extras({"on": False, "n": -7, "d": 0.25, "s": HOSTILE}))
    assert words[:3] == ["--ez", "on", "false"] and words[3:6] == ["--ei", "n", "-7"]
    assert words[6:9] == ["--ed", "d", "0.25"] and words[9:11] == ["--es", "s"]
    assert parse_extras(words)[0] == {"on": False, "n": -7, "d": 0.25, "s": HOSTILE}
    result = AndroidShell(device).run(f"am start -W -a android.intent.action.MAIN -p {DEMO_APP} --ei n x")
    assert result.code == 255 and b"NumberFormatException" in result.output
    assert DEMO_APP not in device.running_apps()  # am started nothing
    with pytest.raises(ExtraError):
        parse_extras(["--ez", "k", "maybe"])


@pytest.mark.parametrize("spec", ["sim+adb:android", "sim+appium:android"])
def test_android_permissions_reach_the_package_manager(spec: str) -> None:
    driver, device = _device(spec)
    try:
        driver.set_permissions(
            NOTES_APP, {"notifications": "allow", "camera": "allow"}
        )  # camera: not declared
        assert device.permission(NOTES_APP, "android.permission.POST_NOTIFICATIONS") == "granted"
        driver.set_permissions(NOTES_APP, {"all": "deny"})
        assert device.permission(NOTES_APP, "android.permission.POST_NOTIFICATIONS") is None
    finally:
        driver.close()


ARGUMENTS = """
appId: com.example.amc.demo
---
- launchApp:
    arguments: {user: qa}         # the demo app fills its user name from `-user qa`
- assertVisible: qa
"""


@pytest.mark.parametrize("spec", ["sim:ios", "sim+wda:ios", "sim+appium:ios"])
def test_the_ios_app_reads_its_launch_arguments(spec: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, ARGUMENTS)
    result = amc("run", flow, "--device", f"{spec}?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err


@pytest.mark.parametrize("spec", ANDROID_SPECS)
def test_the_android_app_reads_its_launch_arguments(spec: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, ARGUMENTS)
    assert amc("check", flow, "--device", spec).code == 0
    result = amc("run", flow, "--device", f"{spec}?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err


PROJECT = """
name: notes allowed
steps:
  - launch_app: {android: com.example.amc.notes, ios: com.example.amc.notes, clear_state: true,
                 permissions: {notifications: allow}}
  - assert_not_visible: Allow
"""


@pytest.mark.parametrize("spec", ["sim:android", "sim:ios"])
def test_the_projects_launch_app_takes_its_options_beside_the_platforms(spec: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, PROJECT)
    result = amc("run", flow, "--device", f"{spec}?timing=instant", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    refused = amc("check", flow, "--device", "sim:ios?kind=device")
    assert refused.code == 2 and "flow.yaml:3:5" in refused.out and "physical iPhone" in refused.out
