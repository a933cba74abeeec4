"""A step that may have reached the device is never sent twice behind the user's back.

Over the wire, per adapter, counting what reached the face (requests on the step's route) and what
the simulated phone did (its taps, typing, swipes and presses):

- WebDriverAgent answers "… is not running, possibly crashed": the session is renewed, the action is
  not sent again (one request, nothing done), and ``SessionLost`` says the app crashed. A read is
  sent again (safe to repeat).
- WebDriverAgent answers "invalid session id" once: WDA refused it before running it, the screen is
  the same, so the session is renewed and the action sent again: two requests, done once.
- A dropped or reset connection (the request may have been acted on) is never sent again, on any
  adapter; uiautomator2's "UiAutomation not connected" (the click was not made) is sent again once.
- Appium: a crashed UiAutomator2 instrumentation is ``SessionLost`` after one request; the old
  session is ended on the server and the next call starts a new one (the one recovery).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from amc.core.errors import DriverUnavailable, HarnessError, SessionLost
from amc.drivers.base import Driver
from amc.drivers.connect import connect
from amc.sim.device import SimDevice
from amc.sim.faults import Fault, FaultInjector
from amc.sim.replay import Reply

from tests.backend_errors.catalogue import load

pytestmark = pytest.mark.timeout(60)

SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
_WDA = {entry.id: entry for entry in load("wda")}
_APPIUM = {entry.id: entry for entry in load("appium")}


def _reply(entry_id: str, table: dict[str, Any]) -> Reply:
    entry = table[entry_id]
    return Reply(entry.body(), status=int(entry.wire["status"]))


def _spy(device: SimDevice) -> Counter[str]:
    """Count what the simulated phone itself does (a tap that reached the device)."""
    done: Counter[str] = Counter()
    for name in ("tap", "type_text", "swipe", "press"):
        real = getattr(device, name)

        def counted(*args: Any, _real: Callable[..., Any] = real, _name: str = name) -> Any:
            done[_name] += 1
            return _real(*args)

        setattr(device, name, counted)
    return done


@contextmanager
def _served(
    spec: str, device: SimDevice, replies: dict[str, Reply]
) -> Iterator[tuple[Driver, FaultInjector]]:
    faults = FaultInjector()
    driver = connect(spec, device=device, faults=faults, replies=replies, timeout=2.0)
    try:
        driver.launch_app(SETTINGS[device.platform])
        faults.reset_counts()
        yield driver, faults
    finally:
        driver.close()


# (step, the WDA route its request reaches, what the phone would do)
WDA_ACTIONS: list[tuple[str, Callable[[Driver], object], str]] = [
    ("tap", lambda d: d.tap(100, 200), "tap"),
    ("type_text", lambda d: d.type_text("hello"), "keys"),
    ("swipe", lambda d: d.swipe(200, 700, 200, 300), "drag"),
    ("long_press", lambda d: d.long_press(100, 200), "touchAndHold"),
    ("press volume_up", lambda d: d.press("volume_up"), "pressButton"),
    ("hide_keyboard", lambda d: d.hide_keyboard(), "keyboard.dismiss"),
]


@pytest.mark.parametrize(("name", "act", "route"), WDA_ACTIONS, ids=[a[0] for a in WDA_ACTIONS])
def test_wda_an_action_after_the_app_crashed_is_not_sent_again(
    name: str, act: Callable[[Driver], object], route: str
) -> None:
    device = SimDevice("ios")
    crashed = {route: _reply("app-crashed", _WDA)}
    with _served("sim+wda:ios", device, crashed) as (driver, faults):
        done = _spy(device)
        with pytest.raises(SessionLost) as caught:
            act(driver)
        assert faults.count(route) == 1  # the face saw the action once: it was not re-sent
        assert faults.count("session.create") == 1  # the session was renewed for the next step
        assert sum(done.values()) == 0
    error = caught.value
    assert "crashed" in error.message and "not sent again" in error.message and error.transient
    assert error.hint is not None and "crash log" in error.hint


def test_wda_a_read_after_the_app_crashed_is_sent_again_once() -> None:
    device = SimDevice("ios")
    with _served("sim+wda:ios", device, {"apps.terminate": _reply("app-crashed", _WDA)}) as (driver, faults):
        with pytest.raises(SessionLost, match="a new session did not help"):
            driver.terminate_app(SETTINGS["ios"])
        assert faults.count("apps.terminate") == 2  # terminating is safe to repeat: once more, no more


def test_wda_an_unknown_session_is_renewed_and_the_tap_happens_once() -> None:
    device = SimDevice("ios")
    with _served("sim+wda:ios", device, {}) as (driver, faults):
        done = _spy(device)
        faults.inject(Fault.LOSE_SESSION, routes={"tap"}, times=1)
        driver.tap(100, 200)
        assert faults.count("tap") == 2  # refused under the lost session, then sent once more
        assert done["tap"] == 1  # and done once
        assert faults.count("session.create") == 1


ADAPTERS = {
    "wda": ("sim+wda:ios", "ios", "tap"),
    "u2": ("sim+adb:android", "android", "rpc:click"),
    "appium-android": ("sim+appium:android", "android", "actions"),
    "appium-ios": ("sim+appium:ios", "ios", "actions"),
}


@pytest.mark.parametrize("fault", [Fault.DROP, Fault.RESET], ids=["dropped", "reset"])
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_tap_whose_answer_was_lost_is_never_sent_again(adapter: str, fault: Fault) -> None:
    spec, platform, route = ADAPTERS[adapter]
    device = SimDevice(platform)  # type: ignore[arg-type]
    with _served(spec, device, {}) as (driver, faults):
        faults.inject(fault, routes={route}, times=1)
        with pytest.raises(HarnessError) as caught:
            driver.tap(100, 200)
        assert faults.count(route) == 1
    assert isinstance(caught.value, DriverUnavailable | SessionLost)


def test_u2_a_click_uiautomation_refused_is_sent_again_and_done_once() -> None:
    device = SimDevice("android")
    with _served("sim+adb:android", device, {}) as (driver, faults):
        done = _spy(device)
        faults.inject(Fault.LOSE_SESSION, routes={"rpc:click"}, times=1)
        driver.tap(100, 200)
        assert faults.count("rpc:click") == 2 and done["tap"] == 1


@pytest.mark.parametrize("entry_id", ["instrumentation-crashed-appium3", "proxy-connection-reset-android"])
def test_appium_a_crashed_server_behind_the_driver_is_one_recovery(entry_id: str) -> None:
    device = SimDevice("android")
    with _served("sim+appium:android", device, {"actions": _reply(entry_id, _APPIUM)}) as (driver, faults):
        done = _spy(device)
        with pytest.raises(SessionLost):
            driver.tap(100, 200)
        assert faults.count("actions") == 1 and sum(done.values()) == 0
        assert faults.count("delete_session") == 1  # the server's old session is ended
        driver.observe()  # the next call starts a new session
        assert faults.count("new_session") == 1
