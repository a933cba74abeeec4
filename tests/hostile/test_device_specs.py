"""``drivers.connect.connect`` with garbage: a ``ConfigError`` naming the problem, and nothing contacted.

Specs that point at a live face (a WebDriverAgent and an Appium server, both simulated) prove the
refusal comes before the first request: the faces count none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from amc.core.errors import ConfigError
from amc.drivers.connect import SPEC_FORMS, check_spec, connect
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

pytestmark = pytest.mark.timeout(60)

WDA, APPIUM = "{wda}", "{appium}"  # replaced with the live faces' URLs


@pytest.fixture(scope="module")
def appium_face() -> Iterator[AppiumFace]:
    with AppiumFace(SimDevice("android")) as running:
        yield running


@pytest.fixture
def faces(wda: WdaFace, appium_face: AppiumFace) -> Iterator[tuple[WdaFace, AppiumFace]]:
    appium_face.faults.reset_counts()
    yield wda, appium_face


GARBAGE_SPECS: dict[str, tuple[Any, str]] = {
    "empty": ("", "empty"),
    "blank": ("   \t ", "empty"),
    "no colon": ("sim", "expected SCHEME:TARGET"),
    "no target": ("sim:", "expected SCHEME:TARGET"),
    "no scheme": (":android", "unknown scheme ''"),
    "NUL": ("sim:and\x00roid", "control characters"),
    "escape sequence": ("sim:\x1b[31mandroid", "control characters"),
    "tab inside": ("sim:\tandroid", "control characters"),
    "unknown scheme": ("usb:emulator-5554", "unknown scheme 'usb'"),
    "huge": ("sim:" + "a" * 100_000, "too long"),
    "sim of another OS": ("sim:windows", "'sim:android' or 'sim:ios'"),
    "WDA face for Android": ("sim+wda:android", "sim+wda:ios"),
    "adb face for iOS": ("sim+adb:ios", "sim+adb:android"),
    "Appium face for nothing": ("sim+appium:", "expected SCHEME:TARGET"),
    "unknown profile key": ("sim:android?colour=red", "unknown key 'colour'"),
    "iOS key on Android": ("sim+adb:android?wda=10", "unknown key 'wda'"),
    "unknown API level": ("sim:android?api=30", "no simulated Android profile for API 30"),
    "API level not a number": ("sim+adb:android?api=fourteen", "is not an API level"),
    "unknown WDA generation": ("sim+wda:ios?wda=7", "wda='7'"),
    "unknown iOS": ("sim:ios?ios=14", "ios='14'"),
    "profile key twice": ("sim:ios?wda=9&wda=10", "'wda' is given twice"),
    "profile key without value": ("sim:android?api", "'api' needs a value"),
    "unknown timing": ("sim+adb:android?api=31&timing=slow", "timing='slow' is not a timing"),
    "timing twice": ("sim:ios?timing=instant&wda=5&timing=realistic", "'timing' is given twice"),
    "iOS target not a URL": ("ios:not a url", "bad iOS target"),
    "iOS javascript URL": ("ios:javascript:alert(1)", "bad iOS target"),
    "iOS ftp URL at a live WDA": (f"ios:ftp://{WDA}", "bad iOS target"),
    "iOS URL without host": ("ios:http://", "the WebDriverAgent URL 'http://' names no host"),
    "Appium without platform at a live server": (f"appium:{APPIUM}", "platform=android or platform=ios"),
    "Appium for another OS at a live server": (f"appium:{APPIUM}?platform=windows", "platform=android"),
    "Appium unknown parameter at a live server": (f"appium:{APPIUM}?platform=android&x=1", "unknown query"),
    "Appium without scheme": (
        "appium:127.0.0.1:4723?platform=android",
        "has no scheme: it must start with http(s)://",
    ),
    "not a string: None": (None, "must be a string"),
    "not a string: int": (42, "must be a string"),
    "not a string: bytes": (b"sim:android", "must be a string"),
    "not a string: list": (["sim:android"], "must be a string"),
}


def _fill(value: Any, wda: WdaFace, appium: AppiumFace) -> Any:
    if isinstance(value, str):
        return value.replace(WDA, wda.url.removeprefix("http://")).replace(APPIUM, appium.url)
    return value


@pytest.mark.parametrize("name", sorted(GARBAGE_SPECS))
def test_a_garbage_spec_is_a_config_error_and_nothing_is_contacted(
    name: str, faces: tuple[WdaFace, AppiumFace]
) -> None:
    wda, appium = faces
    spec, message = GARBAGE_SPECS[name]
    with pytest.raises(ConfigError) as caught:
        connect(_fill(spec, wda, appium))
    assert message in str(caught.value)
    assert wda.count() == 0 and appium.count() == 0


@pytest.mark.parametrize("name", sorted(n for n in GARBAGE_SPECS if "profile" in n or "timing" in n))
def test_a_bad_simulated_query_is_refused_before_connecting(name: str) -> None:
    """``check_spec`` (what ``amc run`` checks every spec with first) refuses the same queries."""
    spec, message = GARBAGE_SPECS[name]
    with pytest.raises(ConfigError, match=re.escape(message)):
        check_spec(spec)


def test_a_profile_and_a_timing_in_one_spec() -> None:
    driver = connect("sim+adb:android?api=31&timing=instant")
    try:
        assert driver.os_version == "12"  # type: ignore[attr-defined]
    finally:
        driver.close()
    with pytest.raises(ConfigError, match="timing is given twice"):
        connect("sim:ios?wda=5&timing=instant", timing="realistic")


def test_the_hint_lists_every_accepted_form() -> None:
    with pytest.raises(ConfigError) as caught:
        connect("nonsense")
    assert caught.value.hint is not None and all(form in caught.value.hint for form in SPEC_FORMS)
    assert len(str(caught.value)) < 1000


def test_a_huge_spec_is_not_echoed_back_in_full() -> None:
    with pytest.raises(ConfigError) as caught:
        connect("sim:" + "a" * 100_000)
    assert len(str(caught.value)) < 5_000  # a 100 kB spec does not become a 100 kB message


GARBAGE_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "Appium timeout not a number": (f"appium:{APPIUM}?platform=android", {"timeout": "x"}),
    "WDA unknown option": (f"ios:http://{WDA}", {"bogus": 1}),
    "WDA timeout negative": (f"ios:http://{WDA}", {"timeout": -1}),
    "WDA timeout NaN": (f"ios:http://{WDA}", {"timeout": float("nan")}),
    "u2 timeout not a number": ("android:emulator-5554", {"timeout": "x"}),
    "u2 adb port not a number": ("android:emulator-5554", {"adb_port": "x"}),
    "adb face latency not a number": ("sim+adb:android", {"latency": "x"}),
    "Appium face latency not a number": ("sim+appium:android", {"latency": "x"}),
    "Appium face unknown option": ("sim+appium:android", {"bogus": 1}),
}

# Options that once reached float()/urlsplit() unchecked: each a ConfigError now.
UNCHECKED_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "sim latency not a number": ("sim:android", {"latency": "abc"}),
    "sim latency infinite": ("sim:android", {"latency": float("inf")}),
    "sim latency NaN": ("sim:android", {"latency": float("nan")}),
    "sim unknown option": ("sim:android", {"bogus": 1}),
    "WDA timeout not a number": (f"ios:http://{WDA}", {"timeout": "abc"}),
    "WDA face latency not a number": ("sim+wda:ios", {"latency": "x"}),
    "WDA face timeout not a number": ("sim+wda:ios", {"timeout": "x"}),
    "Appium URL with a broken IPv6 host": ("appium:http://[::1?platform=android", {}),
}


@pytest.mark.parametrize("name", sorted(GARBAGE_OPTIONS))
def test_garbage_options_are_config_errors_before_any_request(
    name: str, faces: tuple[WdaFace, AppiumFace]
) -> None:
    wda, appium = faces
    spec, options = GARBAGE_OPTIONS[name]
    with pytest.raises(ConfigError):
        connect(_fill(spec, wda, appium), **options)
    assert wda.count() == 0 and appium.count() == 0


@pytest.mark.parametrize("name", sorted(UNCHECKED_OPTIONS))
def test_options_reaching_numbers_and_urls_are_config_errors(
    name: str, faces: tuple[WdaFace, AppiumFace]
) -> None:
    wda, appium = faces
    spec, options = UNCHECKED_OPTIONS[name]
    with pytest.raises(ConfigError):
        driver = connect(_fill(spec, wda, appium), **options)
        driver.close()
