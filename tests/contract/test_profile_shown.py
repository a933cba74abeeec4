"""Settings > About on the simulated device shows the version of the profile it plays, through every
face (issue 31: every iOS profile showed 17.5 and API 29 showed Android 14)."""

from __future__ import annotations

from amc.sim.profiles import AndroidProfile

from .rigs import Rig

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}


def test_settings_about_shows_the_profiles_version(rig: Rig) -> None:
    platform = rig.device.platform
    rig.driver.launch_app(SETTINGS[platform])
    run = rig.device.current_run()
    assert run is not None
    run.stack.append("about")  # the About screen, reached by state: the test reads it through the face
    rig.device.changes += 1
    texts = rig.driver.observe().texts()
    profile = rig.device.profile
    expected = profile.release if isinstance(profile, AndroidProfile) else profile.os_version
    label = "Android version" if platform == "android" else "iOS Version"
    assert label in texts and expected in texts
    others = {"10", "12", "13", "14", "15"} if platform == "android" else {"15.8", "16.3.1", "17.5", "18.5"}
    assert not (others - {expected}) & set(texts)
