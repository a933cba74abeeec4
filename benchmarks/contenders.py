"""The contenders of the wire suite: the harness's adapters and each client used directly, each on
its own face and phone (see :mod:`benchmarks.wire`).

Each :class:`Contender` opens the Settings sub-page (``forward``) and comes back (``back``) its own
way, and knows its own ``launch`` and ``typing`` calls; ``device_requests`` and ``hops`` read its
face's counters (requests that reach the phone; everything the face served).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import adbutils
import uiautomator2
import wda
from amc.core.models import PlannedStep, Platform
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.base import Driver
from amc.drivers.u2 import U2Config, U2Driver
from amc.drivers.wda import WdaDriver
from amc.runtime.executor import Executor
from amc.runtime.observer import Observer
from amc.sim.adb_face import AdbFace
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace
from appium import webdriver
from appium.options.android import UiAutomator2Options
from appium.options.ios import XCUITestOptions
from appium.webdriver.common.appiumby import AppiumBy

from benchmarks.common import RouteLatency

__all__ = ["APPS", "BACK", "BUILDERS", "LATENCY", "SUBPAGE", "Contender", "contenders"]

LATENCY = 0.05
ADB_DEVICE_ROUTES = ("rpc:", "adb:shell", "adb:sync")
APPS: dict[Platform, str] = {"android": "com.android.settings", "ios": "com.apple.Preferences"}
SUBPAGE: dict[Platform, tuple[str, str]] = {
    "android": ("network", "Network & internet"),
    "ios": ("general", "General"),
}
BACK: dict[Platform, dict[str, str]] = {"android": {"label": "Navigate up"}, "ios": {"id": "BackButton"}}


@dataclass
class Contender:
    """One way of doing the action on its own face and phone.

    ``forward`` opens the sub-page, ``back`` returns; ``device_requests`` and ``hops`` read the
    face's counters (requests that reach the phone; everything the face served).
    """

    backend: str
    way: str
    code: str
    harness: bool
    device: SimDevice
    faults: RouteLatency
    forward: Callable[[], None]
    back: Callable[[], None]
    adb: bool = False
    driver: Driver | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    launch: Callable[[str], object] | None = None
    typing: Callable[[str], object] | None = None
    launch_code: str = ""
    typing_code: str = ""

    @property
    def platform(self) -> Platform:
        return self.device.platform

    def device_requests(self) -> int:
        if not self.adb:
            return self.faults.count()
        routes = [r for r in list(self.faults.counts) if r.startswith(ADB_DEVICE_ROUTES)]
        return self.faults.count(*routes) if routes else 0

    def hops(self) -> int:
        return self.faults.count() - self.device_requests()

    def reset_screen(self) -> None:
        """Settings in front on its first screen, straight on the phone (nothing on the wire)."""
        app = APPS[self.platform]
        self.device.terminate(app)
        self.device.launch(app)

    def on_subpage(self) -> bool:
        run = self.device.current_run()
        return run is not None and run.stack == ["main", SUBPAGE[self.platform][0]]

    def set_latency(self, seconds: float) -> None:
        self.faults.route_latency = seconds


def _injector(adb: bool) -> RouteLatency:
    return RouteLatency(0.0, ADB_DEVICE_ROUTES if adb else ("",))


def _harness_action(driver: Driver, selector: dict[str, str]) -> Callable[[], None]:
    """Observe once, then tap by the selector resolved on that Scene: the executor's path."""
    executor = Executor(driver)

    def act() -> None:
        screen = Observer(driver)
        screen.look()
        result = executor.execute(PlannedStep("tap", selector), screen)
        if not result.success:
            raise RuntimeError(f"the harness's tap failed: {result.error}")

    return act


def _harness_calls(driver: Driver) -> dict[str, Any]:
    return {
        "launch": driver.launch_app,
        "typing": driver.type_text,
        "launch_code": "driver.launch_app(app_id)",
        "typing_code": "driver.type_text(text)",
    }


# --- the contenders, each on its own face ------------------------------------------------------


@contextmanager
def _wda(harness: bool) -> Iterator[Contender]:
    device = SimDevice("ios")
    faults = _injector(adb=False)
    face = WdaFace(device, faults=faults).start()
    try:
        if harness:
            driver = WdaDriver.from_url(face.url, device_id=device.device_id, timeout=30.0).connect()
            text = SUBPAGE["ios"][1]
            yield Contender(
                "WebDriverAgent",
                "harness: WdaDriver",
                f'observe + tap {{text: "{text}"}}',
                True,
                device,
                faults,
                _harness_action(driver, {"text": text}),
                _harness_action(driver, BACK["ios"]),
                driver=driver,
                closers=[driver.close],
                **_harness_calls(driver),
            )
        else:
            client = wda.Client(face.url)
            yield Contender(
                "WebDriverAgent",
                "facebook-wda",
                'client(name="General").click()',
                False,
                device,
                faults,
                lambda: client(name="General").click(),
                lambda: client(name="BackButton").click(),
                launch=client.app_activate,
                typing=client.send_keys,
                launch_code="client.app_activate(bundle_id)",
                typing_code="client.send_keys(text)",
            )
    finally:
        face.stop()


@contextmanager
def _u2(way: str) -> Iterator[Contender]:
    device = SimDevice("android")
    faults = _injector(adb=True)
    face = AdbFace([device], faults=faults).start()
    text = SUBPAGE["android"][1]
    try:
        if way == "harness":
            config = U2Config(adb_host=face.host, adb_port=face.port, timeout=30.0)
            driver = U2Driver(device.device_id, config).connect()
            yield Contender(
                "uiautomator2",
                "harness: U2Driver",
                f'observe + tap {{text: "{text}"}}',
                True,
                device,
                faults,
                _harness_action(driver, {"text": text}),
                _harness_action(driver, BACK["android"]),
                adb=True,
                driver=driver,
                closers=[driver.close],
                **_harness_calls(driver),
            )
            return
        d = uiautomator2.Device(
            adbutils.AdbClient(host=face.host, port=face.port).device(serial=device.device_id)
        )
        if way == "selector":
            forward = lambda: d(text=text).click()  # noqa: E731
            back = lambda: d(description="Navigate up").click()  # noqa: E731
            code = f'd(text="{text}").click()'
        else:
            forward = lambda: d.xpath(f'//*[@text="{text}"]').click()  # noqa: E731
            back = lambda: d.xpath('//*[@content-desc="Navigate up"]').click()  # noqa: E731
            code = f"d.xpath('//*[@text=\"{text}\"]').click()"
        yield Contender(
            "uiautomator2",
            f"uiautomator2 ({way})",
            code,
            False,
            device,
            faults,
            forward,
            back,
            adb=True,
            launch=d.app_start,
            typing=d.send_keys,
            launch_code="d.app_start(package)",
            typing_code="d.send_keys(text)",
        )
    finally:
        face.stop()


@contextmanager
def _appium(platform: Platform, harness: bool) -> Iterator[Contender]:
    device = SimDevice(platform)
    faults = _injector(adb=False)
    face = AppiumFace(device, faults=faults).start()
    name = f"Appium ({'UiAutomator2' if platform == 'android' else 'XCUITest'})"
    text = SUBPAGE[platform][1]
    try:
        if harness:
            driver = AppiumDriver(
                face.url, options_for(platform, udid=device.device_id), timeout=30.0
            ).connect()
            yield Contender(
                name,
                "harness: AppiumDriver",
                f'observe + tap {{text: "{text}"}}',
                True,
                device,
                faults,
                _harness_action(driver, {"text": text}),
                _harness_action(driver, BACK[platform]),
                driver=driver,
                closers=[driver.close],
                **_harness_calls(driver),
            )
            return
        options: Any = UiAutomator2Options() if platform == "android" else XCUITestOptions()
        options.udid = device.device_id
        wd = webdriver.Remote(face.url, options=options)
        by: str = AppiumBy.XPATH if platform == "android" else AppiumBy.ACCESSIBILITY_ID
        value = f'//*[@text="{text}"]' if platform == "android" else text
        back_by, back_value = (
            AppiumBy.ACCESSIBILITY_ID,
            "Navigate up" if platform == "android" else "BackButton",
        )
        yield Contender(
            name,
            "Appium-Python-Client",
            f"find_element({by!r}, {value!r}).click()",
            False,
            device,
            faults,
            lambda: wd.find_element(by, value).click(),
            lambda: wd.find_element(back_by, back_value).click(),
            closers=[wd.quit],
            launch=wd.activate_app,
            typing=lambda text: wd.switch_to.active_element.send_keys(text),
            launch_code="wd.activate_app(app_id)",
            typing_code="wd.switch_to.active_element.send_keys(text)",
        )
    finally:
        face.stop()


BUILDERS: dict[str, list[Callable[[], Any]]] = {
    "WebDriverAgent": [lambda: _wda(True), lambda: _wda(False)],
    "uiautomator2": [lambda: _u2("harness"), lambda: _u2("selector"), lambda: _u2("xpath")],
    "Appium Android": [lambda: _appium("android", True), lambda: _appium("android", False)],
    "Appium iOS": [lambda: _appium("ios", True), lambda: _appium("ios", False)],
}


@contextmanager
def contenders(backend: str) -> Iterator[list[Contender]]:
    """The harness and the client ways for one backend, each on its own started face, warmed up."""
    with ExitStack() as stack:
        made: list[Contender] = []
        for build in BUILDERS[backend]:
            contender = stack.enter_context(build())
            for close in contender.closers:
                stack.callback(close)
            contender.reset_screen()
            contender.forward()  # the first action may open a session or learn an id: not measured
            contender.back()
            made.append(contender)
        yield made
