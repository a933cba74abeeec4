"""Requests per call on every version profile, counted at the face (``python -m benchmarks.budgets``,
the table in benchmarks/README.md): counts only, no time is asserted."""

from __future__ import annotations

import pytest

from benchmarks.budgets import BACKENDS, PROFILES, measure

CASES = [
    (backend, platform, profile)
    for backend, (_, platforms) in BACKENDS.items()
    for platform in platforms
    for profile in PROFILES[platform]
]


@pytest.mark.parametrize(
    ("backend", "platform", "profile"), CASES, ids=[f"{b}-{p}-{pr.label}" for b, p, pr in CASES]
)
def test_the_request_budgets_hold_on_every_profile(backend: str, platform: str, profile: object) -> None:
    counts = measure(backend, platform, profile).counts  # type: ignore[arg-type]
    # UiAutomator2's getCurrentPackage names the app behind a lock screen (appium-adb reads
    # mFocusedApp), so over Appium an Android current_app and launch also ask mobile: isLocked
    lock_check = 1 if (backend, platform) == ("Appium", "android") else 0
    # one shell command (Android) or request, on every release
    assert counts["current_app"] == 1 + lock_check
    assert counts["observe again"] == 1
    # the first look at an app asks its bundle id once where the source does not carry it
    # (WebDriverAgent before 10.1.0, directly or through XCUITest)
    carries_bundle = (
        platform == "android" or backend == "in process" or getattr(profile, "app_attributes", True)
    )
    assert counts["observe first"] == (1 if carries_bundle else 2)
    # the launch and one check that the app is in front, also with a permission prompt over it; over
    # Appium Android the launch's verdict also looks once for a crash or "not responding" dialog
    # (the resumed activity alone does not tell one: drivers/appium/apps.py)
    verdict = lock_check
    assert counts["launch_app"] <= 2 + lock_check + verdict
    assert counts["launch (prompt)"] <= 2 + lock_check + verdict
    # typing is one request on every backend; over uiautomator2 the first type_text of a driver
    # also makes AdbKeyboard the current input method (settings get, ime enable, ime set)
    assert counts["type_text"] == 1
    assert counts["type_text first"] == (5 if backend == "uiautomator2" else 1)
    if platform == "android":
        # without AdbKeyboard uiautomator2 types through the clipboard (setClipboard, getClipboard
        # to check it, pasteClipboard); the first time also sends the broadcast nobody takes and
        # the `ime enable` that says AdbKeyboard is unknown, once per driver
        u2 = backend == "uiautomator2"
        assert counts["no AdbKeyboard first"] == (5 if u2 else 1)
        assert counts["no AdbKeyboard"] == (3 if u2 else 1)
