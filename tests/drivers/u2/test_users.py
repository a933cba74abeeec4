"""An Android phone with more than one user (a work profile, an MDM-managed profile, a second user):
an app installed only for another user is not the owner's, and the error says so; the real `pm`
outputs the simulated phone plays are cited in ``sim/users.py``."""

from __future__ import annotations

import pytest
from amc.core.errors import AppNotInstalled
from amc.drivers.connect import connect
from amc.drivers.u2.apps import other_users
from amc.sim.device import SimDevice
from amc.sim.users import SimUser


def test_pm_list_users_lines_from_real_phones() -> None:
    # kaeawc/auto-mobile#35 and ibilux/MobyDroid#18, as posted
    assert other_users(
        "Users:\n    UserInfo{0:Owner:13} running\n    UserInfo{10:Work profile:30} running\n"
    ) == [(10, "Work profile")]
    assert other_users(
        "Users:\n\tUserInfo{0:MY-NAME:c13} running\n\tUserInfo{11:Arbeitsprofil:1030} running\n"
        "\tUserInfo{151:Secure Folder:10061030} running\n"
    ) == [(11, "Arbeitsprofil"), (151, "Secure Folder")]
    assert other_users("Users:\n\tUserInfo{0:Owner:c13} running\n") == []


def test_an_app_of_the_work_profile_is_not_the_owners_and_the_error_says_why() -> None:
    device = SimDevice("android")
    device.add_user(SimUser(10, "Work profile", apps=("com.example.work",)))
    driver = connect("sim+adb:android", device=device)
    try:
        with pytest.raises(AppNotInstalled) as caught:
            driver.launch_app("com.example.work")
    finally:
        driver.close()
    message, hint = caught.value.message, caught.value.hint or ""
    assert "for its owner (user 0" in message and "10 (Work profile)" in message
    assert "adb install --user 0" in hint and "pm list packages --user 10 com.example.work" in hint


def test_a_phone_with_one_user_says_only_that_the_app_is_missing() -> None:
    driver = connect("sim+adb:android", device=SimDevice("android"))
    try:
        with pytest.raises(AppNotInstalled) as caught:
            driver.launch_app("com.example.nothere")
    finally:
        driver.close()
    assert "other users" not in caught.value.message
