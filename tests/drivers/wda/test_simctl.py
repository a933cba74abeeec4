"""A WebDriverAgent on a Simulator on this Mac (a loopback URL, ``xcrun`` on PATH): clearing an
app, its permissions and the keychain go through ``xcrun simctl``, here a fake ``xcrun`` on PATH
that records its argv and answers as simctl does (see ``_XCRUN``); the WebDriverAgent is the face,
driven by facebook-wda."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.cli.check import target_of
from amc.core.errors import DriverUnavailable, Unsupported
from amc.drivers.connect import connect
from amc.sim.catalog import DEMO_APP, NOTES_APP
from amc.sim.device import INSTANT, SimDevice
from amc.sim.profiles import ios_profile
from amc.sim.wda_face import WdaFace

UDID = "8A1C5E3B-2F4D-4C1B-9E7A-6D2B3C4F5A60"
# simctl's answers: `list devices booted -j` is `simctl list -j`'s JSON cut to the booted device
# (Maestro's SimctlList reads these keys); privacy, keychain and terminate print nothing on success;
# get_app_container prints the container's path; a service simctl does not have (notifications)
# exits 1 "Operation not permitted" (a live Xcode 26.3 run, quoted in a public repository's notes).
_XCRUN = """#!{python}
import json, os, sys, uuid
argv = sys.argv[1:]
with open(os.environ["FAKE_XCRUN_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\\n")
udid = "{udid}"
services = ("all calendar contacts-limited contacts location location-always photos-add photos "
            "media-library microphone motion reminders siri").split()
if argv[:5] == ["simctl", "list", "devices", "booted", "-j"]:
    print(json.dumps({{"devices": {{"com.apple.CoreSimulator.SimRuntime.iOS-18-5": [
        {{"udid": udid, "name": "iPhone 15", "state": "Booted", "isAvailable": True}}]}}}}))
elif argv[:2] == ["simctl", "privacy"] and argv[2] == udid:
    if argv[4] not in services:
        sys.stderr.write("Operation not permitted\\n")
        sys.exit(1)
elif argv[:2] == ["simctl", "keychain"] and argv[2:] == [udid, "reset"]:
    pass
elif argv[:2] == ["simctl", "get_app_container"] and argv[2] == udid:
    path = os.path.join(os.environ["FAKE_XCRUN_ROOT"], "Devices", udid, "data", "Containers", "Data",
                        "Application", str(uuid.uuid4()).upper())
    os.makedirs(os.path.join(path, "Library", "Preferences"), exist_ok=True)
    open(os.path.join(path, "Library", "Preferences", argv[3] + ".plist"), "w").write("<plist/>")
    os.makedirs(os.path.join(path, "Documents"), exist_ok=True)
    print(path)
else:
    sys.stderr.write("Invalid device: " + (argv[2] if len(argv) > 2 else "") + "\\n")
    sys.exit(148)
"""


@pytest.fixture
def xcrun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "xcrun"
    script.write_text(_XCRUN.format(python=sys.executable, udid=UDID))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "xcrun.log"
    monkeypatch.setenv("PATH", f"{folder}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("FAKE_XCRUN_LOG", str(log))
    monkeypatch.setenv("FAKE_XCRUN_ROOT", str(tmp_path / "CoreSimulator"))
    yield log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_a_local_simulator_is_cleared_and_its_permissions_set_through_simctl(xcrun: Path) -> None:
    device = SimDevice("ios", timing=INSTANT)
    with WdaFace(device) as face:
        spec = f"ios:{face.url}"
        assert target_of(spec) == ("ios", "wda", "simulator")  # what amc check reads, no device asked
        driver = connect(spec)
        try:
            assert driver.kind == "simulator"  # type: ignore[attr-defined]
            driver.set_permissions(NOTES_APP, {"all": "allow", "location": "inuse", "camera": "allow"})
            driver.clear_keychain()
            driver.launch_app(DEMO_APP)
            driver.clear_state(DEMO_APP)
        finally:
            driver.close()
    calls = _calls(xcrun)
    assert calls[:4] == [
        ["simctl", "list", "devices", "booted", "-j"],
        ["simctl", "privacy", UDID, "grant", "all", NOTES_APP],
        ["simctl", "privacy", UDID, "grant", "location", NOTES_APP],  # Maestro's inuse
        ["simctl", "keychain", UDID, "reset"],
    ]  # camera: simctl has no such service, passed over as Maestro passes it over
    assert calls[4:] == [
        ["simctl", "get_app_container", UDID, DEMO_APP, "data"],
        ["simctl", "privacy", UDID, "reset", "all", DEMO_APP],
    ]
    containers = list((xcrun.parent / "CoreSimulator").rglob("Application/*"))
    assert len(containers) == 1 and list(containers[0].iterdir()) == []  # emptied, kept
    assert DEMO_APP not in device.running_apps()  # stopped first, through WebDriverAgent


def test_a_phone_named_as_one_is_refused_before_simctl_or_the_phone_is_asked(xcrun: Path) -> None:
    device = SimDevice("ios", timing=INSTANT, profile=ios_profile(kind="device"))
    with WdaFace(device) as face:
        spec = f"ios:{face.url}?kind=device"
        assert target_of(spec) == ("ios", "wda", "device")
        driver = connect(spec)
        try:
            before = face.count()
            for call in (
                lambda: driver.clear_state(DEMO_APP),
                lambda: driver.set_permissions(DEMO_APP, {"all": "allow"}),
                driver.clear_keychain,
            ):
                with pytest.raises(Unsupported, match=r"physical iPhone|XCTest has no API"):
                    call()
            assert face.count() == before  # not a request to the phone either
        finally:
            driver.close()
    assert _calls(xcrun) == []


def test_a_phone_behind_a_loopback_url_is_refused_with_a_hint_to_name_it(xcrun: Path) -> None:
    """iproxy forwards a USB iPhone's WebDriverAgent to the loopback: the spec alone takes it for a
    Simulator, its /status (no ios.simulatorVersion) says otherwise, and the step says how to write
    the spec so that `amc check` foresees it."""
    device = SimDevice("ios", timing=INSTANT, profile=ios_profile(kind="device"))
    with WdaFace(device) as face:
        driver = connect(f"ios:{face.url}")
        try:
            with pytest.raises(Unsupported) as caught:
                driver.clear_state(DEMO_APP)
            assert caught.value.hint is not None and "kind=device" in caught.value.hint
        finally:
            driver.close()
    assert _calls(xcrun) == []


def test_a_simulator_named_where_simctl_is_missing_says_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no xcrun here
    device = SimDevice("ios", timing=INSTANT)
    with WdaFace(device) as face:
        driver = connect(f"ios:{face.url}?kind=simulator")
        try:
            with pytest.raises(DriverUnavailable, match="xcrun is not on PATH"):
                driver.clear_keychain()
        finally:
            driver.close()


def test_no_booted_simulator_is_said_before_anything_changes(xcrun: Path, tmp_path: Path) -> None:
    script = next(p for p in xcrun.parent.iterdir() if p.name == "bin") / "xcrun"
    script.write_text(script.read_text().replace('"state": "Booted"', '"state": "Shutdown"'))
    device = SimDevice("ios", timing=INSTANT)
    with WdaFace(device) as face:
        driver = connect(f"ios:{face.url}")
        try:
            with pytest.raises(DriverUnavailable, match="no booted Simulator"):
                driver.set_permissions(NOTES_APP, {"all": "allow"})
        finally:
            driver.close()
    assert _calls(xcrun) == [["simctl", "list", "devices", "booted", "-j"]]
