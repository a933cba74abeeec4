"""Requests per driver call on every version profile, counted at the face: ``python -m benchmarks.budgets``.

Each backend's real adapter is connected to the simulated device over its real protocol
(``amc.drivers.connect.connect("sim+adb:android?api=31")`` …) and each call is made once; the face
counts what reached it: adb shell commands and uiautomator2 RPCs (the adb transport's own
``host:version``/``host:transport`` handshake and the stream each RPC opens are not commands),
WebDriverAgent and Appium HTTP requests. The in-process ``sim:`` driver counts its device calls.
The connection's own requests (session, SDK level, HOME package) are made before counting starts.
The simulated device takes its time as ``connect`` builds it by default (``REALISTIC``: a new screen
or app shows after 0.1-0.4 s), so a check that comes before the app is in front is counted too.

- ``current_app``: Settings in front.
- ``observe`` first / again: the first look at an app, then the next one (WebDriverAgent before
  10.1.0 writes no bundle id in its source, so the first look at an app asks ``/wda/activeAppInfo``
  once, then the app's name is known).
- ``launch_app``: Settings from the home screen; ``launch (prompt)``: the Notes app, which asks for
  a permission on its first launch (the launch returns with the prompt over the app).
- ``type_text first`` / ``type_text``: ``"qa"`` into the demo app's focused user name field, the
  first time and the next (over uiautomator2 the first time makes its AdbKeyboard the current
  input method: three commands more, once per driver).
- ``no AdbKeyboard first`` / ``no AdbKeyboard``: the same on an Android phone without uiautomator2's
  AdbKeyboard, with a new driver (over uiautomator2: the broadcast nobody takes and ``ime enable``,
  which says it does not know the id, then the clipboard's three RPCs; after that the three RPCs
  alone). The other backends do not use AdbKeyboard; iOS rows show ``-``.

Prints a Markdown table; ``tests/load/test_budgets.py`` checks the same counts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from amc.drivers.base import Driver  # noqa: E402
from amc.drivers.connect import connect  # noqa: E402
from amc.sim.catalog import DEMO_APP  # noqa: E402
from amc.sim.device import SimDevice  # noqa: E402
from amc.sim.faults import FaultInjector  # noqa: E402
from amc.sim.profiles import ANDROID_APIS, AndroidProfile, IosProfile  # noqa: E402
from amc.sim.timing import REALISTIC  # noqa: E402

from benchmarks.common import keep_off_real_adb  # noqa: E402

__all__ = ["BACKENDS", "PROFILES", "Budget", "main", "measure", "table"]

PROFILES: dict[str, tuple[AndroidProfile | IosProfile, ...]] = {
    "android": tuple(AndroidProfile(api) for api in ANDROID_APIS),
    "ios": (IosProfile("15", "4"), IosProfile("17", "5"), IosProfile("18", "9"), IosProfile("18", "10")),
}
# backend -> (scheme, platforms)
BACKENDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "uiautomator2": ("sim+adb", ("android",)),
    "WebDriverAgent": ("sim+wda", ("ios",)),
    "Appium": ("sim+appium", ("android", "ios")),
    "in process": ("sim", ("android", "ios")),
}
SETTINGS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
NOTES = "com.example.amc.notes"
CALLS = (
    "observe first",
    "observe again",
    "current_app",
    "launch_app",
    "launch (prompt)",
    "type_text first",
    "type_text",
    "no AdbKeyboard first",
    "no AdbKeyboard",
)


@dataclass(frozen=True)
class Budget:
    """The requests each call cost on one backend and profile."""

    backend: str
    platform: str
    profile: str
    counts: dict[str, int]


def _counter(driver: Driver, faults: FaultInjector | None) -> Callable[[], int]:
    if faults is None:
        return lambda: int(driver.requests)  # type: ignore[attr-defined]

    def count() -> int:  # adb: shell commands and RPCs; the transport's handshakes and streams are not
        return sum(
            n
            for route, n in faults.counts.items()
            if not route.startswith("adb:") or route.startswith("adb:shell")
        )

    return count


def _connect(
    backend: str, platform: str, profile: AndroidProfile | IosProfile, *, adb_keyboard: bool = True
) -> tuple[Driver, SimDevice, Callable[[], int]]:
    scheme, _ = BACKENDS[backend]
    spec = f"{scheme}:{platform}?{profile.label}"
    device = SimDevice("android" if platform == "android" else "ios", profile=profile, timing=REALISTIC)
    device.adb_keyboard = adb_keyboard
    faults = None if scheme == "sim" else FaultInjector()
    options = (
        {} if faults is None else {"device": device, "faults": faults, "timeout": 5.0, "launch_timeout": 2.0}
    )
    driver = connect(spec, **options)
    device = getattr(driver, "device", device) if scheme == "sim" else device
    device.adb_keyboard = adb_keyboard
    return driver, device, _counter(driver, faults)


def measure(backend: str, platform: str, profile: AndroidProfile | IosProfile) -> Budget:
    counts: dict[str, int] = {}

    def cost(name: str, call: Callable[[], object]) -> None:
        before = count()
        call()
        counts[name] = count() - before

    driver, device, count = _connect(backend, platform, profile)
    try:
        device.launch(SETTINGS[platform])
        _in_place(device)  # a look mid-slide would see SpringBoard, then Settings: two first looks
        cost("observe first", driver.observe)
        cost("observe again", driver.observe)
        cost("current_app", driver.current_app)
        device.home()
        cost("launch_app", lambda: driver.launch_app(SETTINGS[platform]))
        device.home()
        cost("launch (prompt)", lambda: driver.launch_app(NOTES))
        _focus_the_user_name(device)
        cost("type_text first", lambda: driver.type_text("qa"))
        cost("type_text", lambda: driver.type_text("qa"))
    finally:
        driver.close()
    if platform == "android":
        driver, device, count = _connect(backend, platform, profile, adb_keyboard=False)
        try:
            _focus_the_user_name(device)
            cost("no AdbKeyboard first", lambda: driver.type_text("qa"))
            cost("no AdbKeyboard", lambda: driver.type_text("qa"))
        finally:
            driver.close()
    return Budget(backend, platform, profile.label, counts)


def _in_place(device: SimDevice) -> None:
    """Wait out the simulated screen's transition (at most 0.4 s), so what is counted does not
    depend on how busy the machine is when the first look lands."""
    deadline = time.monotonic() + 2.0
    while (left := device.transition_left()) > 0 and time.monotonic() < deadline:
        time.sleep(left + 0.01)


def _focus_the_user_name(device: SimDevice) -> None:
    """The demo app's sign-in screen with its user name field focused, straight on the phone."""
    device.launch(DEMO_APP)
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        field = next((n for n in device.tree().iter() if n.ref == "widget:username"), None)
        if field is not None and device.tap(*field.bounds.center) and device.keyboard_shown():
            return
        time.sleep(0.05)
    raise RuntimeError("the demo app's user name field did not take the focus")


def every_budget() -> list[Budget]:
    return [
        measure(backend, platform, profile)
        for backend, (_, platforms) in BACKENDS.items()
        for platform in platforms
        for profile in PROFILES[platform]
    ]


def table(budgets: list[Budget]) -> str:
    lines = [
        "| backend | platform | profile | " + " | ".join(CALLS) + " |",
        "|---|---|---|" + "---:|" * len(CALLS),
    ]
    for b in budgets:
        lines.append(
            f"| {b.backend} | {b.platform} | `{b.profile}` | "
            + " | ".join(str(b.counts.get(c, "-")) for c in CALLS)
            + " |"
        )
    return "\n".join(lines)


def main() -> int:
    keep_off_real_adb()
    print(table(every_budget()))
    print("\n- `python -m benchmarks.budgets`: requests that reached the face")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
