"""Which devices a run tests, and whether it tests devices at all.

Discovery talks to the adb server and usbmux, so it only happens when the ``-m`` expression can
select a device test: plain ``pytest`` in this project (``-m "not device"`` in addopts) never
touches a device. The answers are read from the mark expression with pytest's own parser.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import pytest

from ..connect import discover
from ..core.errors import HarnessError
from ..drivers.adb_states import state_fix
from ..drivers.base import DeviceInfo
from .options import DeviceTarget, parse_target

__all__ = [
    "DEVICE_MARKS",
    "discover_targets",
    "markexpr_allows",
    "no_device_reason",
    "requires_device_mark",
]

DEVICE_MARKS: tuple[str, ...] = ("device", "android", "ios")


def markexpr_allows(config: pytest.Config, marks: Iterable[str]) -> bool:
    """True when an item carrying exactly ``marks`` passes ``-m`` (True when there is no ``-m``).

    Uses pytest's expression parser; if that private API moves, answers True (the safe side:
    discovery may run, selection itself is still pytest's).
    """
    expr_text = config.getoption("markexpr", "") or ""
    if not expr_text.strip():
        return True
    names = frozenset(marks)
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(expr_text)
        return bool(expression.evaluate(lambda name, /, **kwargs: name in names and not kwargs))
    except Exception:  # noqa: BLE001 - a private API: any surprise means "cannot tell", i.e. allowed
        return True


def requires_device_mark(config: pytest.Config) -> bool:
    """True when ``-m`` selects device tests and nothing else (``-m device``, ``-m "device and ios"``)."""
    expr_text = config.getoption("markexpr", "") or ""
    return (
        bool(expr_text.strip()) and markexpr_allows(config, DEVICE_MARKS) and not markexpr_allows(config, ())
    )


def discover_targets() -> tuple[list[DeviceTarget], list[DeviceInfo]]:
    """(usable devices as targets, devices found but not usable) from :func:`drivers.connect.discover`."""
    usable: list[DeviceTarget] = []
    unusable: list[DeviceInfo] = []
    for info in discover():
        if not info.usable:
            unusable.append(info)
            continue
        try:
            usable.append(parse_target(info.spec, explicit=False, description=info.description))
        except HarnessError:
            unusable.append(info)
    return usable, unusable


def no_device_reason(unusable: Iterable[DeviceInfo], environ: Mapping[str, str] | None = None) -> str:
    """The skip reason when there is no device: what was looked for, what was found, how to attach one."""
    env = os.environ if environ is None else environ
    host = env.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    port = env.get("ANDROID_ADB_SERVER_PORT") or "5037"
    wda = env.get("WDA_URL")
    looked = (
        f"the adb server at {host}:{port} for Android phones and emulators, usbmux for iPhones on USB, "
        + (f"and the WebDriverAgent at WDA_URL={wda}" if wda else "and WDA_URL (not set)")
    )
    parts = [
        "no device to test: --amc-device was not given and discovery found no usable device "
        f"(asked {looked})."
    ]
    found = [
        f"{info.spec} is {info.state}"
        + (f" ({state_fix(info.state, info.spec.partition(':')[2])})" if info.platform == "android" else "")
        for info in unusable
    ]
    if found:
        parts.append("Found but not usable: " + "; ".join(found) + ".")
    parts.append(
        "Attach one: an Android phone with USB debugging on or a running emulator (`adb devices` lists it "
        "as 'device'); an iPhone or simulator running WebDriverAgent: --amc-device ios:http://HOST:8100 "
        "(or set WDA_URL); an Appium server: --amc-device 'appium:http://HOST:4723?platform=android' "
        "(or platform=ios); or the simulated device: --amc-device sim:android."
    )
    return " ".join(parts)
