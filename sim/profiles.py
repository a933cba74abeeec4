"""Version profiles of the simulated device: which Android release, which iOS and WebDriverAgent
build the faces play, so each face prints what that version prints.

A profile is a frozen value the faces read (:class:`AndroidProfile` for the adb shell,
:class:`IosProfile` for the WebDriverAgent and Appium faces). What changes between versions, each
taken from real outputs in ``tests/fixtures/real`` (see its PROVENANCE.md):

Android (``api``), the shapes of ``dumpsys``:

- ``dumpsys window windows`` has no ``mCurrentFocus``/``mFocusedApp`` from API 29 on (the tail
  ends with ``mTopFocusedDisplayId``; emulator captures for 11, 12, 13 and uiautomator2#952 for 13/14);
  window blocks say ``stackId=`` and ``AppWindowToken`` up to 10, ``rootTaskId=`` and
  ``ActivityRecord`` from 11;
- ``dumpsys window displays`` holds one ``Display: mDisplayId=N`` block per display with that
  display's ``mCurrentFocus`` and ``mFocusedApp``; the header is ``rootTasks=N`` on 12 and
  ``(organized)`` from 13 on;
- ``ActivityRecord{…}`` closes its brace before the task on 13 and 14 (``….Act} t9}``);
- ``dumpsys activity activities`` prints ``mResumedActivity:`` per stack only up to 11 and
  ``topResumedActivity=`` / ``ResumedActivity:`` from 10.

iOS (``wda``, the appium/WebDriverAgent generation, and ``ios``):

- ``/wda/tap`` exists from WDA 6.0.0, ``/wda/tap/:uuid`` up to 5.x (CHANGELOG 6.0.0);
- a launch of a missing app hangs before WDA 5.1.1 (no answer at all, WebDriverAgent PR #704) and
  is an HTTP 400 ``invalid argument`` carrying FrontBoard's NSError from 5.1.4 (PR #706);
- ``/status`` gains ``device`` in 5.9 and ``build.version`` in 8.3.0;
- the XML source gains ``placeholderValue`` (9.1.0), ``traits`` (9.12.0) and ``processId``/``bundleId``
  on the application element (10.1.0, PR #1055).

An iOS profile also says which kind of iPhone it is (``kind``): an iOS Simulator by default, where
``xcrun simctl`` clears an app's data, sets its permissions and resets the keychain, and Maestro runs
its iOS flows; or ``kind=device``, a physical iPhone, where none of that can be done from outside
(WebDriverAgent's ``/wda/device/info`` says ``isSimulator`` and ``/status`` carries
``ios.simulatorVersion`` only on a Simulator: appium/WebDriverAgent ``FBCustomCommands.m``,
``FBSessionCommands.m``).

Android skins (``oem``, :data:`ANDROID_OEMS`): which packages draw the system's own prompts, as
:mod:`sim.prompts` lists them (MIUI / HyperOS's permission prompt in ``com.lbe.security.miui``,
ColorOS's and OxygenOS's ``grant_singleton``, OriginOS's ``grant_scroll``, EMUI's and MagicOS's
resolver, MIUI's and EMUI's auto-start managers); ``aosp`` (the default) and ``oneui`` draw AOSP's and
Google's.

The defaults (:data:`DEFAULT_ANDROID`, :data:`DEFAULT_IOS`) are what most phones in the field ran
when this was written: Android 14 (API 34), the release on the largest share of Android phones in
2024-2025 public distribution figures, and iOS 18 with the WebDriverAgent generation the Appium
XCUITest driver shipped through late 2025 (10.x). Parsing a profile from text is strict: an unknown
value is a ``ConfigError`` that lists the accepted ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import ConfigError

__all__ = [
    "ANDROID_APIS",
    "ANDROID_OEMS",
    "DEFAULT_ANDROID",
    "DEFAULT_IOS",
    "IOS_KINDS",
    "IOS_VERSIONS",
    "WDA_GENERATIONS",
    "AndroidProfile",
    "IosProfile",
    "android_profile",
    "ios_profile",
]

# API level -> the Android release it is (the releases real outputs were collected for).
ANDROID_APIS: dict[int, str] = {29: "10", 31: "12", 33: "13", 34: "14", 35: "15"}
# Android skin -> what it is (sim.prompts draws each one's prompts).
ANDROID_OEMS: dict[str, str] = {
    "aosp": "AOSP and Google's apps (a Pixel, an emulator)",
    "miui": "Xiaomi MIUI / HyperOS",
    "oneui": "Samsung One UI",
    "coloros": "OPPO ColorOS",
    "oxygenos": "OnePlus OxygenOS",
    "originos": "vivo OriginOS / FuntouchOS",
    "emui": "Huawei EMUI / HarmonyOS",
    "magicos": "Honor MagicOS",
}
# iOS profile -> the full version the simulated iPhone reports.
IOS_VERSIONS: dict[str, str] = {"15": "15.8", "16": "16.3.1", "17": "17.5", "18": "18.5"}
# WebDriverAgent generation -> the release played (the last of that major version).
# "6" is 6.1.1, the release facebook-wda's e2e_benchmarks were checked against on an iPhone with
# iOS 16.3.1 (its reports/WDA_V611.md): the peer suite plays ios=16&wda=6.
IOS_KINDS: tuple[str, ...] = ("simulator", "device")
WDA_GENERATIONS: dict[str, str] = {"4": "4.15.1", "5": "5.15.9", "6": "6.1.1", "9": "9.15.3", "10": "10.5.4"}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@dataclass(frozen=True)
class AndroidProfile:
    """An Android release as the adb shell prints it, and the skin (``oem``) whose prompts it draws."""

    api: int = 34
    oem: str = "aosp"

    def __post_init__(self) -> None:
        if self.api not in ANDROID_APIS:
            raise ConfigError(
                f"no simulated Android profile for API {self.api!r}",
                hint="accepted api values: " + ", ".join(str(a) for a in ANDROID_APIS),
            )
        if self.oem not in ANDROID_OEMS:
            raise ConfigError(
                f"no simulated Android skin oem={self.oem!r}",
                hint="accepted oem values: " + ", ".join(ANDROID_OEMS),
            )

    @property
    def release(self) -> str:
        return ANDROID_APIS[self.api]

    @property
    def focus_in_windows_dump(self) -> bool:
        """``dumpsys window windows`` still prints ``mCurrentFocus`` (API 28 and older only)."""
        return self.api < 29

    @property
    def brace_before_task(self) -> bool:
        """``ActivityRecord{h u0 pkg/.Act} t9}``: Android 13 and 14 (and, not collected, 15)."""
        return self.api >= 33

    @property
    def per_stack_resumed(self) -> bool:
        """``mResumedActivity:`` per stack in ``dumpsys activity activities`` (up to Android 11)."""
        return self.api <= 30

    @property
    def label(self) -> str:
        return f"api={self.api}" + (f"&oem={self.oem}" if self.oem != "aosp" else "")


@dataclass(frozen=True)
class IosProfile:
    """An iOS version and the WebDriverAgent generation serving it."""

    ios: str = "18"
    wda: str = "10"
    kind: str = "simulator"  # an iOS Simulator, or "device": a physical iPhone

    def __post_init__(self) -> None:
        if self.kind not in IOS_KINDS:
            raise ConfigError(
                f"no simulated iPhone of kind={self.kind!r}",
                hint="accepted kind values: " + ", ".join(IOS_KINDS),
            )
        if self.ios not in IOS_VERSIONS:
            raise ConfigError(
                f"no simulated iOS profile for ios={self.ios!r}",
                hint="accepted ios values: " + ", ".join(IOS_VERSIONS),
            )
        if self.wda not in WDA_GENERATIONS:
            raise ConfigError(
                f"no simulated WebDriverAgent profile for wda={self.wda!r}",
                hint="accepted wda values: " + ", ".join(WDA_GENERATIONS),
            )

    @property
    def os_version(self) -> str:
        return IOS_VERSIONS[self.ios]

    @property
    def wda_version(self) -> str:
        return WDA_GENERATIONS[self.wda]

    def wda_at_least(self, version: str) -> bool:
        return _version(self.wda_version) >= _version(version)

    @property
    def has_coordinate_tap(self) -> bool:
        """``POST /wda/tap`` (6.0.0 and later); older builds only have ``/wda/tap/:uuid``."""
        return self.wda_at_least("6.0.0")

    @property
    def hangs_on_missing_app(self) -> bool:
        """A launch of an app that is not installed never answers (before 5.1.1)."""
        return not self.wda_at_least("5.1.1")

    @property
    def app_attributes(self) -> bool:
        """``processId``/``bundleId`` on the XML application element (10.1.0 and later)."""
        return self.wda_at_least("10.1.0")

    @property
    def simulator(self) -> bool:
        """Whether the simulated iPhone plays an iOS Simulator (else a physical iPhone)."""
        return self.kind == "simulator"

    @property
    def label(self) -> str:
        shown = "" if self.simulator else f"&kind={self.kind}"
        return f"ios={self.ios}&wda={self.wda}{shown}"


DEFAULT_ANDROID = AndroidProfile()
DEFAULT_IOS = IosProfile()


def android_profile(api: str | int, oem: str | None = None) -> AndroidProfile:
    """The profile for an ``api`` value from a spec (``"31"``) and a skin (``oem``, default ``aosp``);
    ``ConfigError`` naming a bad one otherwise."""
    text = str(api).strip()
    if not text.isdigit():
        raise ConfigError(
            f"api={api!r} is not an API level",
            hint="accepted api values: " + ", ".join(str(a) for a in ANDROID_APIS),
        )
    return AndroidProfile(int(text), "aosp" if oem is None else str(oem).strip().lower())


def ios_profile(ios: str | None = None, wda: str | None = None, kind: str | None = None) -> IosProfile:
    """The profile for ``ios``, ``wda`` and ``kind`` values from a spec; defaults for the ones not given."""
    return IosProfile(
        ios=DEFAULT_IOS.ios if ios is None else str(ios).strip(),
        wda=DEFAULT_IOS.wda if wda is None else str(wda).strip(),
        kind=DEFAULT_IOS.kind if kind is None else str(kind).strip().lower(),
    )
